"""``jax-stubs lint``: the plugin's rules for projects that do not run mypy.

Most JAX users check types with pyright or Pylance, or not at all; the stubs bring them one rule.
``jax-stubs lint`` brings every rule: it runs mypy in this process with the plugin and prints
only the plugin's reports (every ``jax-*`` code, each error with its notes), in mypy's form, as
GitHub Actions annotations, or as JSON lines. mypy's other errors are never shown, so a project
that was never type-checked gets exactly the JAX reports.

- ``settings.py``: the project's ``[tool.jax-stubs.lint]`` section (paths, excluded files,
  disabled codes);
- ``checking.py``: mypy's options (the project's own mypy configuration, then what linting
  needs: unannotated functions checked, imports followed silently, a cache of its own), the
  sources, one build;
- ``output.py``: the reports, in the three forms.

Exit status: 1 when it reports, 0 when not, 2 when it cannot check (said in one line).
"""

from __future__ import annotations

import os
import sys
from importlib.util import find_spec
from pathlib import Path

from mypy_plugin import __version__

PREFIX = "jax-stubs lint: error: "


def say(problem: str) -> None:
    """Why nothing was checked, in one line on stderr (stdout may be JSON)."""
    print(PREFIX + problem, file=sys.stderr)


def environment_problem() -> str | None:
    """What keeps this environment from linting: no mypy, a mypy too old, or an install the
    check command would report (no stubs, stub files missing, no JAX)."""
    from mypy_plugin.install import compat
    from mypy_plugin.install.diagnosis import Diagnosis, Installer

    installer = Installer.of_this_python()
    if find_spec("mypy") is None:
        return f"linting needs mypy: {installer.install(f'jax-stubs[lint]=={__version__}')}"
    from mypy.version import __version__ as mypy_version

    if not compat.is_supported(mypy_version):
        return (
            f"mypy {mypy_version} is older than {compat.minimum()}, the first the plugin supports: "
            f"{installer.install(compat.COMPATIBLE_MYPY)}"
        )
    problems = Diagnosis.of_this_environment().environment_problems()
    return problems[0] if problems else None


def codes() -> frozenset[str]:
    """Every code the plugin reports under."""
    from mypy_plugin.install.mismatch import CODE
    from mypy_plugin.rules.hooked import HOOKED

    return frozenset({CODE.code, *(code for rule in HOOKED for code in rule.codes)})


def run(paths: list[str], form: str) -> int:
    """``jax-stubs lint``: check, print the plugin's reports in ``form``, and the exit status.
    It works in the project's root: the paths given, relative to where it started, are taken
    from there, and the reports name files relative to the root."""
    problem = environment_problem()
    if problem is not None:
        say(problem)
        return 2
    from mypy_plugin.lint import checking, notebooks, output, settings

    try:
        found = settings.read(Path.cwd(), codes())
        targets = [os.path.relpath(os.path.abspath(path), found.root) for path in paths]
        os.chdir(found.root)
        checked = checking.check(targets, found)
    except (settings.SettingsError, checking.CannotCheck) as error:
        say(str(error))
        return 2
    if checked.stopped_at is not None:
        stopped = output.Report.of(checked.stopped_at)
        say(
            f"mypy cannot check past {stopped.where}: {stopped.message}"
            if stopped.file != "None"
            else f"mypy cannot check past: {stopped.message}"
        )
        return 2
    shown = {file: notebooks.displayed_lines(Path(file)) for file in {str(error.get("file")) for error in checked.errors}}
    reports = sorted(
        (
            report
            for report in map(output.Report.of, checked.errors)
            if report.code not in found.disable and not (report.code == notebooks.SHOWN_CODE and report.line in shown.get(report.file, ()))
        ),
        key=lambda report: (report.file, report.line, report.column),
    )
    try:
        for line in output.lines(reports, form):
            print(line)
        if form == "text":
            print(output.summary(reports, checked.sources, checked.rechecked))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped reading (| head): the status stands
        pass
    return 1 if reports else 0
