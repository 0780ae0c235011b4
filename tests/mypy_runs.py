"""The one way the tests run mypy outside pytest-mypy-plugins (and its daemon): a config with
the plugin on (unless a test says otherwise), a cache, and mypy of the environment under test.

The suite shares one mypy cache (``JAX_STUBS_TEST_MYPY_CACHE``, set by ``scripts/test``), so
JAX is parsed once per run; a test that needs a cache of its own passes one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PYTHON = Path(sys.executable)
"""The Python of the environment the wheel is installed in."""
BIN = PYTHON.parent
"""Its commands: mypy, dmypy, jax-stubs and the other checkers."""
CRASH_SIGNS = ("INTERNAL ERROR", "Traceback", "skipped its check")

CORRECT = "import jax\nimport jax.numpy as jnp\n\njnp.zeros(3).to_device(jax.devices()[0])\n"
"""A module that calls into JAX correctly."""
MISUSE = CORRECT.replace("[0])", "[0], stream=0)")
"""The same module with the misuse on line 4."""


def shared_cache(fallback: Path) -> Path:
    """The suite's shared mypy cache, or ``fallback`` outside ``scripts/test``."""
    return Path(os.environ.get("JAX_STUBS_TEST_MYPY_CACHE") or fallback)


def write_config(folder: Path, *, cache: Path, plugin: bool = True, extra: str = "") -> Path:
    """``folder/mypy.ini``: the plugin on unless ``plugin`` is False, the cache, ``extra`` lines."""
    config = folder / "mypy.ini"
    lines = ["[mypy]", *(["plugins = mypy_plugin"] if plugin else []), f"cache_dir = {cache}", extra]
    config.write_text("\n".join(lines).rstrip("\n") + "\n")
    return config


def run_mypy(
    folder: Path,
    *args: str,
    cache: Path | None = None,
    plugin: bool = True,
    extra: str = "",
    python: Path = PYTHON,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m mypy *args`` in ``folder`` with a fresh ``mypy.ini`` there (see
    ``write_config``); the cache defaults to the suite's shared one."""
    write_config(folder, cache=cache or shared_cache(folder / ".mypy_cache"), plugin=plugin, extra=extra)
    return subprocess.run([str(python), "-m", "mypy", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=900)


def assert_no_crash(result: subprocess.CompletedProcess[str], *, statuses: tuple[int, ...] = (0, 1)) -> None:
    """mypy finished with one of ``statuses``, without a traceback or the plugin's guard line."""
    output = result.stdout + result.stderr
    assert result.returncode in statuses, output[-3000:]
    for sign in CRASH_SIGNS:
        assert sign not in output, output[-3000:]


class Daemon:
    """mypy's daemon, as editors run it, on one folder with the plugin on."""

    def __init__(self, folder: Path, *, cache: Path, env: dict[str, str] | None = None) -> None:
        write_config(folder, cache=cache)
        self.folder, self.env = folder, env
        self.command = [str(BIN / "dmypy"), "--status-file", str(folder / ".dmypy.json")]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.command, *args], cwd=self.folder, env=self.env, capture_output=True, text=True, timeout=900)

    def check(self, *files: str, options: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
        """``dmypy run -- <options> <files>``: starts the daemon if needed, then checks."""
        return self.run("run", "--", *options, *files)

    def stop(self) -> None:
        self.run("stop")
