"""mypy in this process, with what the plugin costs it measured from inside.

    python benchmarks/timed_mypy.py <mypy arguments>
    python benchmarks/timed_mypy.py --lookups      # step 1 alone: each getter's extra ns

mypy's own modules are imported first, so that only the plugin's import is counted. Then:

1. **Lookups.** mypy asks each of the plugin's hook getters about every call, attribute and
   type it meets, through its (compiled) chain of plugins; for each getter the extra cost of
   one question with this plugin in the chain, over the chain without it, is measured on a mix
   of names asked repeatedly, as in a real run (the plugin decides once per name).
2. **The run.** Every public method of the plugin class (and ``__init__``), and every hook it
   hands to mypy, is wrapped in a counter that also times it (the timing is an upper bound:
   it includes the wrapper's own cost).
3. **The estimate** of the plugin's whole cost: each getter's calls times its extra cost per
   lookup, plus the time inside the hooks it handed out, ``__init__`` and the import.

The lines before the last give each method's calls and timed seconds (``<getter>:hooks`` for
the hooks it handed out) and its measured extra cost per lookup (0 for what is not a getter);
the last line the totals:

    plugin method: <name> <calls> calls <seconds> s <ns> ns per lookup
    plugin time: <seconds> s timed in <calls> calls; estimated <seconds> s; mypy ran <seconds> s
"""

from __future__ import annotations

import random
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

_imported = time.perf_counter() - _began

REPORT = re.compile(
    r"^plugin time: (?P<seconds>[0-9.]+) s timed in (?P<calls>\d+) calls; estimated (?P<estimate>[0-9.]+) s; "
    r"mypy ran (?P<checking>[0-9.]+) s$",
    re.MULTILINE,
)
PER_METHOD = re.compile(
    r"^plugin method: (?P<name>\S+) (?P<calls>\d+) calls (?P<seconds>[0-9.]+) s (?P<lookup_ns>-?\d+) ns per lookup$",
    re.MULTILINE,
)
NAMES = [
    *(f"pkg{i % 40}.module.Class{i % 400}.name{i}" for i in range(4000)),
    "jax._src.basearray.Array.to_device",
    "jax._src.basearray.Array.__setitem__",
    "jax.numpy.zeros",
    "builtins.str.join",
    "numpy.ndarray.sum",
    "builtins.int",
]
"""Names to ask the getters about: mostly ones no rule knows, as in a real run."""


class Timer:
    """How many calls, and the time spent inside what it wraps; what a wrapped call returns
    that is callable (a hook) is counted by ``hooks``, another Timer."""

    def __init__(self, seconds: float = 0.0, hooks: Timer | None = None) -> None:
        self.seconds, self.calls, self.hooks = seconds, 0, hooks

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                returned = function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - began
                self.calls += 1
            return (self.hooks or self).wrap(returned) if callable(returned) else returned

        return run


def lookup_seconds(getter: str, plugins: list[mypy.plugin.Plugin], asked: list[str]) -> float:
    """The best time of one ``getter`` question through mypy's chain of ``plugins``."""
    ask = getattr(mypy.plugin.ChainedPlugin(Options(), plugins), getter)
    best = float("inf")
    for _ in range(7):
        began = time.perf_counter()
        for name in asked:
            ask(name)
        best = min(best, (time.perf_counter() - began) / len(asked))
    return best


def extra_lookup_seconds(getter: str) -> float:
    """What one question to ``getter`` costs more with the plugin in mypy's chain."""
    asked = random.Random(0).choices(NAMES, k=100_000)
    ours = JaxStubsPlugin(Options())
    return lookup_seconds(getter, [ours, DefaultPlugin(Options())], asked) - lookup_seconds(getter, [DefaultPlugin(Options())], asked)


def main(args: list[str]) -> None:
    getters = [name for name in dir(mypy.plugin.Plugin) if name.startswith("get_") and name.endswith("_hook")]
    extra = {name: extra_lookup_seconds(name) for name in getters}
    if args == ["--lookups"]:
        for name, seconds in extra.items():
            print(f"{name}: {seconds * 1e9:.0f} ns more per lookup")
        return
    timers = {"import": Timer(seconds=_imported)}
    timers["import"].calls = 1
    for name in dir(JaxStubsPlugin):
        if name == "__init__" or (not name.startswith("_") and callable(getattr(JaxStubsPlugin, name))):
            timers[f"{name}:hooks"] = Timer()
            timers[name] = Timer(hooks=timers[f"{name}:hooks"])
            setattr(JaxStubsPlugin, name, timers[name].wrap(getattr(JaxStubsPlugin, name)))
    checking = time.perf_counter()
    try:
        mypy.main.main(args=args, clean_exit=True)
    finally:
        checking = time.perf_counter() - checking
        estimate = 0.0
        for name, timer in timers.items():
            if not timer.calls:
                continue
            per_lookup = extra.get(name)
            # A getter costs its lookups; everything else (hooks, __init__, the import) its time.
            estimate += timer.calls * max(per_lookup, 0.0) if per_lookup is not None else timer.seconds
            print(
                f"plugin method: {name} {timer.calls} calls {timer.seconds:.6f} s {(per_lookup or 0.0) * 1e9:.0f} ns per lookup",
                file=sys.stderr,
            )
        seconds, calls = sum(t.seconds for t in timers.values()), sum(t.calls for t in timers.values())
        print(
            f"plugin time: {seconds:.6f} s timed in {calls} calls; estimated {estimate:.6f} s; mypy ran {checking:.3f} s", file=sys.stderr
        )


if __name__ == "__main__":
    main(sys.argv[1:])
