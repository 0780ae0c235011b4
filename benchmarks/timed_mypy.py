"""mypy in this process, with the time spent in the plugin measured from inside.

    python benchmarks/timed_mypy.py <mypy arguments>

Every public method of the plugin class (and ``__init__``), and every hook it hands to mypy, is
wrapped in a timer; mypy's own modules are imported first, so that only the plugin's import is
counted. Beforehand it measures what one method-hook lookup costs more through mypy's
(compiled) chain of plugins with this plugin in it than without it, the call itself included,
which the timers inside the plugin cannot see. The last line on stderr gives the figures:

    plugin time: <seconds> s in <calls> calls; one lookup costs <ns> ns more; mypy ran <seconds> s
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from typing import Any

import mypy.main
import mypy.plugin
from mypy.options import Options
from mypy.plugins.default import DefaultPlugin

_began = time.perf_counter()
from mypy_plugin.main import JaxStubsPlugin  # noqa: E402

REPORT = re.compile(
    r"^plugin time: (?P<seconds>[0-9.]+) s in (?P<calls>\d+) calls; one lookup costs (?P<lookup_ns>-?\d+) ns more; "
    r"mypy ran (?P<checking>[0-9.]+) s$",
    re.MULTILINE,
)
LOOKED_UP = ["builtins.str.join", "jax._src.basearray.Array.to_device", "numpy.ndarray.sum", "jax.numpy.zeros"]


class Timer:
    """The time spent inside what it wraps, and how many calls."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds, self.calls = seconds, 0

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                returned = function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - began
                self.calls += 1
            return self.wrap(returned) if callable(returned) else returned

        return run


def lookup_seconds(plugins: list[mypy.plugin.Plugin], rounds: int = 200_000) -> float:
    """The best time of one ``get_method_hook`` through mypy's chain of ``plugins``."""
    chain = mypy.plugin.ChainedPlugin(Options(), plugins)
    best = float("inf")
    for _ in range(5):
        began = time.perf_counter()
        for _ in range(rounds // len(LOOKED_UP)):
            for name in LOOKED_UP:
                chain.get_method_hook(name)
        best = min(best, (time.perf_counter() - began) / rounds)
    return best


def main(args: list[str]) -> None:
    timer = Timer(seconds=time.perf_counter() - _began)
    extra_lookup = (lookup_seconds([JaxStubsPlugin(Options()), DefaultPlugin(Options())])
                    - lookup_seconds([DefaultPlugin(Options())]))
    for name in dir(JaxStubsPlugin):
        if name == "__init__" or (not name.startswith("_") and callable(getattr(JaxStubsPlugin, name))):
            setattr(JaxStubsPlugin, name, timer.wrap(getattr(JaxStubsPlugin, name)))
    checking = time.perf_counter()
    try:
        mypy.main.main(args=args, clean_exit=True)
    finally:
        checking = time.perf_counter() - checking
        print(f"plugin time: {timer.seconds:.6f} s in {timer.calls} calls; one lookup costs "
              f"{extra_lookup * 1e9:.0f} ns more; mypy ran {checking:.3f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
