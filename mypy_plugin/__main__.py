"""``python -m mypy_plugin check``: does the installed jax-stubs fit the installed JAX?

For CI and for users of checkers other than mypy, which cannot tell. Prints the versions and
any problem, one line each; exits 1 when something is wrong, 0 when the stubs fit.
"""

from __future__ import annotations

import argparse
import sys

from mypy_plugin import __version__
from mypy_plugin.versions import Diagnosis


def check() -> int:
    diagnosis = Diagnosis.of_this_environment()
    print(f"jax-stubs {__version__}: stubs for jax {diagnosis.stubs or '(none found)'} in {diagnosis.folder or '(not installed)'}")
    print(f"jax: {diagnosis.jax or '(not installed)'}")
    problems = diagnosis.environment_problems() + ([diagnosis.mismatch] if diagnosis.mismatch else [])
    for problem in problems:
        print(f"error: {problem}")
    if not problems:
        print("ok: the stubs describe the installed jax")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mypy_plugin", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check"], help="check that the stubs fit the installed jax")
    parser.parse_args(argv)
    return check()


if __name__ == "__main__":
    sys.exit(main())
