"""What the plugin reads of the installation when mypy loads it, and says about a problem.

The common case costs a few file-system calls (``installed.py``); only a problem loads
``diagnosis.py`` to say it, once on stderr, with the command that mends it. Never raises: a
damaged install must not end the user's type check.
"""

from __future__ import annotations

import os

import mypy
from mypy.options import Options

from mypy_plugin.install import installed, mismatch
from mypy_plugin.lib import guard, mypy_internals, stderr

NOTHING_KNOWN: dict[str, str | None] = {"jax": None, "stubs": None, "flax": None, "equinox": None}


def start(options: Options) -> tuple[dict[str, str | None], mismatch.MismatchReport | None]:
    """The installed versions (for ``report_config_data``) where mypy reads packages
    (``--python-executable`` may name another environment), and this run's mismatch report,
    if any. A run that reads no installed package (``--no-site-packages``) has nothing to check."""
    if options.python_executable is None:
        return NOTHING_KNOWN, None
    try:
        sys_path, site_packages = mypy_internals.search_dirs(options.python_executable)
        found = installed.read([*sys_path, *site_packages])
        report = say_problems(options, found, site_packages) if found.has_problems else None
    except Exception as error:  # the guard's purpose, at start-up
        stderr.say(guard.internal_problem("start-up (reading installed versions)", error))
        return NOTHING_KNOWN, None
    return found.config_data(), report


def say_problems(options: Options, found: installed.Installed, site_packages: list[str]) -> mismatch.MismatchReport | None:
    """Say each problem of the install once on stderr; return the report that fails this run
    (another package's stub files, or JAX and the stubs of different releases), or None when
    there is none or the user disabled its code. A mismatch is also said on stderr, where a run
    that never reaches a call into JAX shows it (another package's files are said there with the
    other problems of the install)."""
    from mypy_plugin.install.diagnosis import Diagnosis

    diagnosis = Diagnosis.of(found, options.python_executable or "python")
    for problem in diagnosis.environment_problems():
        stderr.say(problem)
    failure = diagnosis.run_failure()
    if failure is None or disabled(options, mismatch.CODE.code):
        return None
    error, notes = failure
    if not diagnosis.reads_foreign_stubs:
        stderr.say(f"{error}. {notes[-1]}")
    return mismatch.MismatchReport(error, notes, [*site_packages, os.path.dirname(mypy.__file__)])


def disabled(options: Options, code: str) -> bool:
    """Whether the configuration disables ``code`` (by its name, as written)."""
    disabled_codes, disabled_names = mypy_internals.disabled_codes(options)
    return code in disabled_names or any(getattr(each, "code", None) == code for each in disabled_codes)
