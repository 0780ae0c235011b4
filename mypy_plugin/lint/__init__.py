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
from typing import TYPE_CHECKING

from mypy_plugin import __version__

if TYPE_CHECKING:
    from mypy_plugin.lint import checking, output, settings

ERROR_PREFIX = "jax-stubs lint: error: "


def say(problem: str) -> None:
    """Why nothing was checked, in one line on stderr (stdout may be JSON)."""
    print(ERROR_PREFIX + problem, file=sys.stderr)


def environment_problem(fixing: bool = False) -> str | None:
    """What keeps this environment from linting: no mypy, a mypy too old, or an install the
    check command would report (no stubs, stub files missing, no JAX); for fixing, no LibCST."""
    from mypy_plugin.install import compat
    from mypy_plugin.install.diagnosis import Diagnosis, Installer

    installer = Installer.of_this_python()
    if find_spec("mypy") is None:
        return f"linting needs mypy: {installer.install(f'jax-stubs[lint]=={__version__}')}"
    if fixing and find_spec("libcst") is None:
        return f"fixing needs LibCST: {installer.install(f'jax-stubs[lint]=={__version__}')}"
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
    from mypy_plugin.lint.mypy_errors import CODES
    from mypy_plugin.rules.hooked import HOOKED

    return frozenset({CODE.code, *CODES, *(code for rule in HOOKED for code in rule.codes)})


class FixRequest:
    """What ``--fix``, ``--unsafe-fixes`` and ``--diff`` ask: whether to apply fixes (to the files,
    or as a diff printed), and whether unsafe ones count."""

    __slots__ = ("apply", "unsafe", "diff")

    def __init__(self, apply: bool = False, unsafe: bool = False, diff: bool = False) -> None:
        self.apply, self.unsafe, self.diff = apply or diff, unsafe, diff


ROUNDS = 5
"""How often fixing checks again: a fix may uncover another (a call fixed, then its result)."""


def run(paths: list[str], form: str, request: FixRequest | None = None) -> int:
    """``jax-stubs lint``: check, print the plugin's reports in ``form``, and the exit status.
    It works in the project's root: the paths given, relative to where it started, are taken
    from there, and the reports name files relative to the root. Where ``request`` asks, the
    fixes the reports offer are applied first (or printed as a diff), and what is left is
    reported."""
    request = request or FixRequest()
    problem = environment_problem(request.apply)
    if problem is not None:
        say(problem)
        return 2
    from mypy_plugin.lint import checking, output, settings

    try:
        found = settings.read(Path.cwd(), codes())
        targets = [os.path.relpath(os.path.abspath(path), found.root) for path in paths]
        os.chdir(found.root)
        checked, reports = checked_and_shown(targets, found)
        fixed = Fixed()
        if request.apply and checked.stopped_at is None:
            checked, reports = fix(targets, found, checked, reports, request, fixed)
    except (settings.SettingsError, checking.CannotCheck) as error:
        say(str(error))
        return 2
    if checked.stopped_at is not None:
        stopped = output.LintReport.of(checked.stopped_at)
        say(
            f"mypy cannot check past {stopped.where}: {stopped.message}"
            if stopped.file != "None"
            else f"mypy cannot check past: {stopped.message}"
        )
        return 2
    try:
        for text in fixed.diffs:
            sys.stdout.write(text)
        for line in output.lines(reports, form) if not request.diff else []:
            print(line)
        for message in fixed.kept:
            print(f"jax-stubs lint: {message}", file=sys.stderr)
        if form == "text" and not request.diff:
            print(output.summary(reports, checked.sources, checked.rechecked))
        said = output.fix_summary(reports, fixed.count, fixed.files, request.unsafe, request.diff) if form == "text" else ""
        if said:
            print(said)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped reading (| head): the status stands
        pass
    return 1 if reports or (request.diff and fixed.diffs) else 0


def checked_and_shown(
    targets: list[str], found: settings.Settings, shadows: dict[str, str] | None = None
) -> tuple[checking.Checked, list[output.LintReport]]:
    """One check of ``targets`` (``shadows`` as ``checking.check`` takes them), and the reports
    it shows (none where mypy stopped)."""
    from mypy_plugin.lint import checking

    checked = checking.check(targets, found, shadows)
    return checked, visible(checked, found) if checked.stopped_at is None else []


def visible(checked: checking.Checked, found: settings.Settings) -> list[output.LintReport]:
    """The reports to show: not of a disabled code, nor a notebook's displayed value, in order,
    each with the fix it offers."""
    from mypy_plugin.lint import notebooks, output

    shown = {file: notebooks.displayed_lines(Path(file)) for file in {str(error.get("file")) for error in checked.errors}}
    reports = sorted(
        (
            report
            for report in map(output.LintReport.of, checked.errors)
            if report.code not in found.disable and not (report.code == notebooks.SHOWN_CODE and report.line in shown.get(report.file, ()))
        ),
        key=lambda report: (report.file, report.line, report.column),
    )
    return reports


class Fixed:
    """What fixing did: how many fixes, in which files, the diffs (``--diff``), and why files
    were left as they were."""

    def __init__(self) -> None:
        self.count = 0
        self.files: set[str] = set()
        self.diffs: list[str] = []
        self.kept: list[str] = []


def fix(
    targets: list[str],
    found: settings.Settings,
    checked: checking.Checked,
    reports: list[output.LintReport],
    request: FixRequest,
    fixed: Fixed,
) -> tuple[checking.Checked, list[output.LintReport]]:
    """Apply the fixes the reports offer, checking again after each round, until none is left
    to apply; a file whose fixes would not compile, or would bring a report it did not have, is
    left as it was. Returns the last check and its reports."""
    from mypy_plugin.lint import fixing

    left: set[str] = set()  # files left as they were: not tried again
    for _ in range(ROUNDS):
        chosen: dict[str, list[dict[str, object]]] = {}
        for report in reports:
            if report.fix is not None and (report.fix["safe"] or request.unsafe) and report.file not in left:
                chosen.setdefault(report.file, []).append(report.fix)
        written: dict[str, tuple[str, int]] = {}
        for file, fixes in sorted(chosen.items()):
            old = fixing.read(file)
            new, count = fixing.applied(old, fixes)
            if count and not fixing.compiles(new, file):
                left.add(file)
                fixed.kept.append(f"{file} left as it was: the fixed text would not compile")
            elif count:
                written[file] = (old, count)
                if request.diff:
                    fixed.diffs.append(fixing.diff(file, old, new))
                else:
                    fixing.write(file, new)
        if not written:
            break
        if request.diff:
            fixed.count += sum(count for _, count in written.values())
            fixed.files.update(written)
            break
        after, after_reports = checked_and_shown(targets, found)
        brought = fixing.brought(reports, after_reports, set(written)) if after.stopped_at is None else set(written)
        left |= brought
        for file in sorted(brought):
            fixing.write(file, written[file][0])
            fixed.kept.append(f"{file} left as it was: its fixes would bring a report it did not have")
        if brought:
            after, after_reports = checked_and_shown(targets, found)
        fixed.count += sum(count for file, (_, count) in written.items() if file not in brought)
        fixed.files.update(file for file in written if file not in brought)
        checked, reports = after, after_reports
        if len(brought) == len(written):
            break
    return checked, reports
