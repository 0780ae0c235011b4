"""The fixes a report offers, as data: what ``jax-stubs lint --fix`` and the language server apply.

A note that prints the JAX way to write a line is text for the reader; the same rewrite, where
it can replace the code in place, is also recorded as a ``Fix``: edits to spans of the file, and
whether applying them keeps what the code means (``safe``: a keyword JAX renamed, an option JAX
never needed) or changes what runs (unsafe: an ``.at[]`` update assigned, ``inplace=False``).

Spans are mypy's: lines from 1, columns from 0 counted in UTF-8 bytes of the line (Python's
``ast`` offsets), end exclusive. An edit names what it replaces, so that the applier can find that
node of a concrete syntax tree and keep everything around it (``lint/fixing.py``):

- ``STATEMENT``: the simple statement at the span, replaced by ``text``;
- ``KEYWORD``: in the call at the span, the argument given by the keyword ``name``: renamed to
  ``text`` (its value kept, or replaced by ``value`` where one is given), or dropped where
  ``text`` is empty;
- ``EXPRESSION``: the expression at the span (a decorator), written as ``name``, replaced by
  ``text``.

A report owns its fix (``reporting.Report``). Where the plugin runs as ``jax-stubs lint`` and
the language server run it (``OFFERING_ENTRY`` among mypy's plugins), the fix travels with its
error as the last of its notes (``NOTE_PREFIX`` and the fix as JSON): through mypy's output, its
JSON hint and its cache alike, so that a module mypy reports from its cache still offers its
fixes. A plain type check never prints that note (and keeps a cache of its own: mypy keys the
cache by the plugins configured).
"""

from __future__ import annotations

import json
from typing import Any, Final

from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

NOTE_PREFIX: Final = "jax-stubs fix: "
"""How the note that carries a report's fix begins."""
OFFERING_ENTRY: Final = "mypy_plugin.lint.fix_notes"
"""The module whose presence among mypy's plugins makes every report carry its fix as a note."""

STATEMENT: Final = "statement"
KEYWORD: Final = "keyword"
EXPRESSION: Final = "expression"


class Edit:
    """One replacement: its kind, the span of the node, the new text; for ``KEYWORD`` the
    keyword replaced (``name``) and the new value's text (``value``, empty to keep it)."""

    __slots__ = ("kind", "line", "column", "end_line", "end_column", "text", "name", "value")

    def __init__(self, kind: str, at: Context, text: str, name: str = "", value: str = "") -> None:
        self.kind = kind
        self.line, self.column = at.line, at.column
        self.end_line = at.end_line if at.end_line is not None else at.line
        self.end_column = at.end_column if at.end_column is not None else -1
        self.text, self.name, self.value = text, name, value

    def as_json(self) -> dict[str, Any]:
        return {slot: getattr(self, slot) for slot in self.__slots__}


class Fix:
    """What a report offers: a title (what the fix does, for a menu), whether it is safe, and
    its edits."""

    __slots__ = ("title", "safe", "edits")

    def __init__(self, title: str, safe: bool, edits: list[Edit]) -> None:
        self.title, self.safe, self.edits = title, safe, edits

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "safe": self.safe, "edits": [edit.as_json() for edit in self.edits]}


def rename_keyword(call: Context, old: str, new: str, value: str = "") -> Fix:
    """A keyword JAX renamed, the value kept (or spelled anew): safe."""
    shown = f"{new}={value}" if value else f"{new}="
    return Fix(f'Write "{shown}" for "{old}="', True, [Edit(KEYWORD, call, new, old, value)])


def drop_keyword(call: Context, old: str) -> Fix:
    """An option JAX does what it asks anyway without: safe."""
    return Fix(f'Drop "{old}="', True, [Edit(KEYWORD, call, "", old)])


def replace_expression(expression: Context, written: str, text: str, title: str) -> Fix:
    """An expression written anew (``@jax.jit`` made ``@partial(jax.jit, static_argnames=...)``):
    it changes what runs, unsafe."""
    return Fix(title, False, [Edit(EXPRESSION, expression, text, written)])


def replace_statement(statement: Context, text: str, title: str) -> Fix:
    """A statement written anew (an ``.at[]`` update assigned): it changes what runs, unsafe."""
    return Fix(title, False, [Edit(STATEMENT, statement, text)])


def offered(api: CheckerPluginInterface) -> bool:
    """Whether this run carries the reports' fixes (``OFFERING_ENTRY`` among the plugins)."""
    return OFFERING_ENTRY in api.options.plugins


def as_note(fix: Fix) -> str:
    """The note that carries ``fix``."""
    return NOTE_PREFIX + json.dumps(fix.as_json(), separators=(",", ":"))


def from_note(note: str) -> dict[str, Any] | None:
    """The fix a note carries, as ``Fix.as_json`` gave it; None for any other note."""
    if not note.startswith(NOTE_PREFIX):
        return None
    try:
        fix = json.loads(note[len(NOTE_PREFIX) :])
    except ValueError:
        return None
    return fix if isinstance(fix, dict) else None
