"""How every rule adds to mypy's report: one short clause as the error, the help in notes tied
to it, under the rule's own error code (all in the ``JAX`` category), and the fix it offers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.lib import checked_module, fixes, mypy_internals
from mypy_plugin.lib.fixes import Fix

CATEGORY: Final = "JAX"
"""The category of every error code of the plugin, as mypy lists codes."""
UNCHECKED_BODY: Final = (
    'At line {line}, in the body of "{function}", which mypy does not check: set "check_untyped_defs = true" '
    '(or run "jax-stubs lint") to see it there'
)
"""The note of a report moved out of a body mypy does not check (it drops what is reported
there) to a line it shows, naming the line."""


class Report:
    """One error of a rule: its code, its message, the help in notes, and the rewrite a note
    prints as edits where it can be applied (``fixes.Fix``), which the report owns."""

    __slots__ = ("code", "message", "notes", "fix")

    def __init__(self, code: ErrorCode, message: str, notes: Sequence[str] = (), fix: Fix | None = None) -> None:
        self.code, self.message, self.notes, self.fix = code, message, notes, fix

    def emit(self, api: CheckerPluginInterface, context: Context) -> None:
        """The error at ``context``, then its notes tied to it: an ignore or a disabled code
        silences them together, and ``mypy -O json`` carries the notes as the error's hint; the
        fix last, as a note, where the run carries fixes (``fixes.offered``). Nothing where
        Python never runs the node (the body of ``if TYPE_CHECKING:``)."""
        if checked_module.only_for_type_checkers(api, context):
            return
        error = api.fail(self.message, context, code=self.code)
        texts = [*self.notes, *([fixes.as_note(self.fix)] if self.fix is not None and fixes.offered(api) else [])]
        for text in texts:
            mypy_internals.note(api, text, context, self.code, error)


def error_with_notes(
    api: CheckerPluginInterface, context: Context, code: ErrorCode, message: str, notes: Sequence[str], fix: Fix | None = None
) -> None:
    """Report ``message`` under ``code`` at ``context``, with ``notes`` and ``fix`` (``Report``)."""
    Report(code, message, notes, fix).emit(api, context)


def notes(api: CheckerPluginInterface, context: Context, code: ErrorCode, texts: Sequence[str]) -> None:
    """Notes under ``code`` alone, for help below an error that mypy itself reported."""
    for text in texts:
        api.msg.note(text, context, code=code)


def counted(number: int, noun: str) -> str:
    """``1 positional parameter``, ``2 positional parameters``."""
    return f"{number} {noun}" + ("" if number == 1 else "s")
