"""The plugin's reports, as ``jax-stubs lint`` prints them: mypy's text form, GitHub Actions
annotations, or JSON lines.

A report is one error with its notes, read from mypy's JSON output (which carries the notes
tied to an error as its hint). Lines and columns count from 1, as mypy's text form prints them
(a column mypy does not know is left out, ``null`` in JSON).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

FORMS: Final = ("text", "github", "json")


class LintReport:
    """One error of the plugin and its notes."""

    __slots__ = ("file", "line", "column", "code", "message", "notes", "fix")

    def __init__(self, file: str, line: int, column: int, code: str, message: str, notes: list[str]) -> None:
        self.file, self.line, self.column, self.code, self.message, self.notes = file, line, column, code, message, notes
        self.fix: dict[str, Any] | None = None
        """The fix it offers (``lib/fixes.py``'s ``Fix.as_json``), where one is known."""

    @classmethod
    def of(cls, error: dict[str, Any]) -> LintReport:
        """From mypy's JSON object (its column counts from 0), the note that carries the fix
        taken out of the notes (``lib/fixes.py``)."""
        from mypy_plugin.lib import fixes

        hint = error.get("hint")
        notes = hint.splitlines() if isinstance(hint, str) else []
        found = [fix for fix in map(fixes.from_note, notes) if fix is not None]
        report = cls(
            str(error.get("file")),
            int(error.get("line", 0)),
            int(error.get("column", -1)) + 1,
            str(error.get("code")),
            str(error.get("message")),
            [note for note in notes if fixes.from_note(note) is None],
        )
        report.fix = found[0] if found else None
        return report

    @property
    def where(self) -> str:
        if self.line < 1:
            return self.file
        return f"{self.file}:{self.line}:{self.column}" if self.column > 0 else f"{self.file}:{self.line}"

    def text(self) -> list[str]:
        """mypy's form: ``file:line:column: error: message  [code]``, then each note."""
        return [f"{self.where}: error: {self.message}  [{self.code}]", *(f"{self.where}: note: {note}" for note in self.notes)]

    def github(self) -> list[str]:
        """A GitHub Actions error annotation, the notes folded into its message."""
        properties = f"file={escape(self.file, True)},line={self.line}"
        if self.column > 0:
            properties += f",col={self.column}"
        message = "\n".join([self.message, *self.notes])
        return [f"::error {properties},title={escape(self.code, True)}::{escape(message, False)}"]

    def json(self) -> list[str]:
        """One JSON object per line."""
        return [
            json.dumps(
                {
                    "file": self.file,
                    "line": self.line,
                    "column": self.column if self.column > 0 else None,
                    "code": self.code,
                    "message": self.message,
                    "notes": self.notes,
                    "fix": self.fix,
                }
            )
        ]


def escape(text: str, is_property: bool) -> str:
    """GitHub's workflow-command escaping: ``%``, line breaks, and in a property ``:`` and ``,``."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if is_property else text


def lines(reports: Iterable[LintReport], form: str) -> list[str]:
    return [line for report in reports for line in getattr(report, form)()]


def summary(reports: list[LintReport], sources: int, rechecked: int | None) -> str:
    """The last line of the text form, in mypy's words, and how much came from the cache."""
    files = len({report.file for report in reports})
    checked = f"{sources} source file{'s' if sources != 1 else ''}"
    if rechecked is not None:
        checked += f", {sources - rechecked} from the cache"
    if not reports:
        return f"Success: no JAX errors found (checked {checked})"
    return (
        f"Found {len(reports)} JAX error{'s' if len(reports) != 1 else ''} in {files} file{'s' if files != 1 else ''} (checked {checked})"
    )


def fix_summary(reports: list[LintReport], fixed: int, files: set[str], unsafe: bool, diff: bool) -> str:
    """What was fixed (or would be, with ``--diff``), and what of what is left a fix offers."""
    said = []
    if fixed:
        verb = "Would fix" if diff else "Fixed"
        said.append(f"{verb} {fixed} JAX error{'s' if fixed != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}")
    safe = sum(1 for report in reports if report.fix is not None and report.fix["safe"])
    hidden = sum(1 for report in reports if report.fix is not None and not report.fix["safe"])
    if not diff and (safe or (unsafe and hidden)):
        said.append(f"{safe + hidden if unsafe else safe} fixable with --fix{' --unsafe-fixes' if unsafe and hidden else ''}")
    if not diff and hidden and not unsafe:
        said.append(f"{hidden} more with --fix --unsafe-fixes")
    return "; ".join(said)
