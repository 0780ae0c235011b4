"""How every rule adds to mypy's report: one short clause as the error, the help in notes tied
to it, under the rule's own error code (all in the ``JAX`` category)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.lib import fixes, mypy_internals
from mypy_plugin.lib.fixes import Fix

CATEGORY: Final = "JAX"
"""The category of every error code of the plugin, as mypy lists codes."""


def error_with_notes(
    api: CheckerPluginInterface, context: Context, code: ErrorCode, message: str, notes: Sequence[str], fix: Fix | None = None
) -> None:
    """The error, then its notes tied to it: an ignore or a disabled code silences them
    together, and ``mypy -O json`` carries the notes as the error's hint; ``fix``, the rewrite
    a note prints, as edits (``lib/fixes.py``)."""
    error = api.fail(message, context, code=code)
    for text in notes:
        mypy_internals.note(api, text, context, code, error)
    if fix is not None:
        fixes.offer(api, context, code, fix)


def notes(api: CheckerPluginInterface, context: Context, code: ErrorCode, texts: Sequence[str]) -> None:
    """Notes under ``code`` alone, for help below an error that mypy itself reported."""
    for text in texts:
        api.msg.note(text, context, code=code)
