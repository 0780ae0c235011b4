"""``python -m mypy_plugin check``: does the installed jax-stubs fit the installed JAX?

For CI and for users of checkers other than mypy, which cannot tell. Prints the versions and
any problem, one line each; exits 1 when something is wrong, 0 when the stubs fit. It looks
where this Python reads packages, or with ``--python-executable`` where mypy would given the
same option.
"""

from __future__ import annotations

import argparse
import sys

from mypy_plugin import __version__, messages
from mypy_plugin.versions import Diagnosis, search_dirs_of


def check(python_executable: str | None = None) -> int:
    if python_executable is None:
        diagnosis = Diagnosis.of_this_environment()
    else:
        try:
            diagnosis = Diagnosis.of_environment(search_dirs_of(python_executable))
        except Exception as error:  # mypy's own failure, said in one line
            print(f"error: cannot read the environment of {python_executable}: {type(error).__name__}: {error}")
            return 1
    print(f"jax-stubs {__version__}: stubs for jax {diagnosis.stubs or '(none found)'} in {diagnosis.folder or '(not installed)'}")
    print(f"jax: {diagnosis.jax or '(not installed)'}")
    problems = diagnosis.environment_problems()
    for problem in problems:
        print(f"error: {problem}")
    if diagnosis.mismatched:
        assert diagnosis.jax is not None and diagnosis.stubs is not None
        print(f"error: {messages.stubs_mismatch(diagnosis.jax, diagnosis.stubs)}")
        for note in messages.stubs_mismatch_fix(diagnosis.jax, diagnosis.stubs):
            print(f"note: {note}")
    elif not problems:
        print("ok: the stubs describe the installed jax")
    return 1 if problems or diagnosis.mismatched else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mypy_plugin", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check"], help="check that the stubs fit the installed jax")
    parser.add_argument("--python-executable", metavar="PYTHON",
                        help="look in that Python's environment, as mypy's option of the same name does")
    args = parser.parse_args(argv)
    return check(args.python_executable)


if __name__ == "__main__":
    sys.exit(main())
