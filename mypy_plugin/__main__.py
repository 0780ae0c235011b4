"""``jax-stubs check`` (or ``python -m mypy_plugin check``): do the installed stubs fit the
installed JAX, and will mypy load this plugin?

For CI and for users of checkers other than mypy, which cannot tell. Prints the versions and
any problem, one line each, with the command that fixes it; exits 1 when something is wrong,
0 when the stubs fit. It looks where this Python reads packages, or with
``--python-executable`` where mypy would given the same option. Needs no mypy.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib.machinery import PathFinder
from pathlib import Path

from mypy_plugin import __version__, messages
from mypy_plugin.versions import Diagnosis, search_dirs_of

PLUGIN_MODULE = "mypy_plugin"


def check(python_executable: str | None = None) -> int:
    if python_executable is None:
        diagnosis = Diagnosis.of_this_environment()
    else:
        try:
            diagnosis = Diagnosis.of_environment(search_dirs_of(python_executable).all, python_executable)
        except Exception as error:  # the other Python's failure, said in one line
            print(f"error: cannot read the environment of {python_executable}: {type(error).__name__}: {error}")
            return 1
    print(f"jax-stubs {__version__}: stubs for jax {diagnosis.stubs or '(none found)'} in {diagnosis.folder or '(not installed)'}")
    print(f"jax: {diagnosis.jax or '(not installed)'}")
    problems = diagnosis.environment_problems() + shadowing_modules()
    for problem in problems:
        print(f"error: {problem}")
    if diagnosis.mismatched:
        print(f"error: {diagnosis.mismatch_error()}")
        for note in diagnosis.mismatch_notes():
            print(f"note: {note}")
    elif not problems:
        print("ok: the stubs describe the installed jax")
    return 1 if problems or diagnosis.mismatched else 0


def shadowing_modules(folder: Path | None = None) -> list[str]:
    """A ``mypy_plugin`` that mypy would import instead of this one: from the current folder
    (first on ``sys.path`` under ``python -m mypy``) or from ``PYTHONPATH`` (both ways)."""
    ours = Path(__file__).resolve().parent
    places = [("python -m mypy run in this folder", [str(folder or Path.cwd())])]
    pythonpath = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    if pythonpath:
        places.append(("mypy with this PYTHONPATH", pythonpath))
    problems = []
    for how, path in places:
        spec = PathFinder.find_spec(PLUGIN_MODULE, path)
        found = Path(spec.origin) if spec is not None and spec.origin else None
        if spec is not None and spec.submodule_search_locations and found is None:
            found = Path(next(iter(spec.submodule_search_locations)))  # a namespace folder
        if found is not None and found.resolve() not in (ours, ours / "__init__.py"):
            problems.append(messages.shadowed_plugin(found, how))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jax-stubs", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("command", choices=["check"], help="check that the stubs fit the installed jax")
    parser.add_argument("--python-executable", metavar="PYTHON",
                        help="look in that Python's environment, as mypy's option of the same name does")
    args = parser.parse_args(argv)
    return check(args.python_executable)


if __name__ == "__main__":
    sys.exit(main())
