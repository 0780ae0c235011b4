"""mypy's own errors on JAX's API that JAX raises on every run, shown by lint under codes of the package.

Lint shows only the package's codes: mypy's own errors are the project's own type check's
business. Two of them are JAX failures whatever the project's types, and lint would hide them:

- ``jax-removed-name``: a name JAX removed (``jax.tree_map``, ``jnp.DeviceArray``,
  ``jax.ops.index_update``), which mypy reports as ``attr-defined`` or ``name-defined`` with
  nothing of what replaced it, and a module JAX removed (``jax.experimental.host_callback``),
  which mypy does not report at all where missing imports are ignored (lint reads the imports
  mypy could not follow). The tables of removed names and modules (``analyses/contract.py``)
  give the release and what replaced it. What is raised depends on the form written: an
  attribute ``AttributeError``, ``from jax.random import KeyArray`` ``ImportError``, ``import
  jax.experimental.host_callback`` ``ModuleNotFoundError``;
- ``jax-call-signature``: a call into JAX that mypy rejects (``call-arg``) for a keyword that
  JAX's function, as the installed release defines it, does not take (``jnp.reshape(x,
  newshape=...)``: ``TypeError``), or NumPy's ``out=`` where JAX raises for any array
  (``jnp.maximum(x, y, out=x)``: ``NotImplementedError``). Where JAX's annotation is stricter
  than its run time (a keyword it takes through ``**kwargs``), the contract table says so and
  nothing is shown.

The name an error is about is read from the file's own source (its imports resolve ``jnp``),
at the line and column mypy gives. Nothing is shown where it cannot be read, names no JAX
function the table holds, or does not run as written (``lib/evaluated.py``: an annotation
Python does not evaluate, a string, the body of ``if TYPE_CHECKING:``), or runs only where a
check allows it: the body of a ``try`` with a handler that catches what is raised there, an
``if`` on ``hasattr`` or a version.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Callable
from typing import Any, Final

from mypy_plugin.analyses import contract
from mypy_plugin.lib import errorcodes, evaluated
from mypy_plugin.lib.evaluated import dotted

REMOVED_NAME: Final = errorcodes.REMOVED_NAME.code
CALL_SIGNATURE: Final = errorcodes.CALL_SIGNATURE.code
CODES: Final = frozenset({REMOVED_NAME, CALL_SIGNATURE})

MODULE_ATTRIBUTE: Final = re.compile(r'^Module(?: "(?P<module>[\w.]+)")? has no attribute "(?P<name>\w+)"')
UNDEFINED_NAME: Final = re.compile(r'^Name "(?P<name>[\w.]+)" is not defined')
UNEXPECTED_KEYWORD: Final = re.compile(r'^Unexpected keyword argument "(?P<keyword>\w+)" for ')
IGNORED: Final = re.compile(r"#\s*type:\s*ignore\[(?P<codes>[^\]]*)\]")

REMOVED_ATTRIBUTE: Final = '"{name}" was removed in JAX {release}; JAX raises AttributeError'
REMOVED_IMPORT: Final = '"{name}" was removed in JAX {release}; the import raises ImportError'
REMOVED_MODULE: Final = 'Module "{name}" was removed in JAX {release}; the import raises {raised}'
READ_BY: Final = 'The annotation at line {line} is evaluated here, by "{reader}"'
PART_OF: Final = '"{module}" was part of it'
REPLACED_BY: Final = "JAX's note: {replacement}"
SEE_THE_CHANGELOG: Final = "What replaced it is in JAX's changelog: https://docs.jax.dev/en/latest/changelog.html"
NO_KEYWORD: Final = '"{name}" takes no keyword "{keyword}" in JAX {release}; JAX raises TypeError'
NO_OUT: Final = '"{name}" cannot write into "out="; JAX raises {raises}'
ASSIGN_THE_RESULT: Final = 'JAX arrays are immutable: assign the result instead ("y = {call}(...)")'
MYPY_SAYS: Final = "mypy: {message}"


class Names:
    """One module's source as the translation reads it: its names and what runs
    (``evaluated.Source``), its nodes by position, its guards and its ignores."""

    def __init__(self, text: str, python: tuple[int, int]) -> None:
        self.source = evaluated.Source(text, python)
        self.tree = self.source.tree
        self.lines = self.source.lines

    def resolved(self, dotted_name: str) -> str | None:
        return self.source.resolved(dotted_name)

    def node_at(self, line: int, column: int, kind: type[ast.AST]) -> ast.AST | None:
        for node in ast.walk(self.tree):
            if isinstance(node, kind) and getattr(node, "lineno", None) == line and getattr(node, "col_offset", None) == column:
                return node
        return None

    def statement_at(self, line: int, kind: type[ast.stmt]) -> ast.stmt | None:
        """The statement of ``kind`` that spans ``line`` (an import written over several lines)."""
        for node in ast.walk(self.tree):
            if isinstance(node, kind) and node.lineno <= line <= (node.end_lineno or node.lineno):
                return node
        return None

    def guarded(self, line: int, raised: type[BaseException]) -> bool:
        """Whether the line runs only where a check allows it: in the body of a ``try`` whose
        handlers catch ``raised`` (code that falls back where a name is missing), or under an
        ``if`` that tests ``hasattr`` or a version. The failure is then handled, or the line is
        for another release: silent."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Try) and node.body and node.body[0].lineno <= line <= (node.body[-1].end_lineno or 0):
                if any(evaluated.handles(handler, self.source, raised) for handler in node.handlers):
                    return True
            if isinstance(node, ast.If) and node.lineno < line <= (node.end_lineno or 0):
                tested = ast.unparse(node.test)
                if "hasattr" in tested or "version" in tested.lower():
                    return True
        return False

    def ignored(self, line: int, code: str) -> bool:
        """Whether the line silences ``code`` with ``# type: ignore[...]``."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return any(code in [part.strip() for part in match["codes"].split(",")] for match in IGNORED.finditer(text))


def translated(
    errors: list[dict[str, Any]], source: Callable[[str], str | None], python: tuple[int, int] = (3, 11)
) -> list[dict[str, Any]]:
    """The errors among mypy's ``errors`` that are JAX failures, as errors of the package's
    codes (mypy's JSON objects, their notes in ``hint``). ``source`` gives a file's text;
    ``python`` is the release the project runs on (mypy's ``python_version``)."""
    found = []
    read = SourcesRead(source, python)
    for error in errors:
        if error.get("severity") != "error" or error.get("code") not in ("attr-defined", "name-defined", "call-arg"):
            continue
        names = read(str(error.get("file") or ""))
        if names is None:
            continue
        made = removed_name(error, names) if error["code"] != "call-arg" else call_signature(error, names)
        placed = shown(made, names) if made is not None else None
        if placed is not None:
            found.append(placed)
    return found


def removed_imports(paths: list[str], source: Callable[[str], str | None], python: tuple[int, int] = (3, 11)) -> list[dict[str, Any]]:
    """``jax-removed-name`` for each import of a module JAX removed in the files at ``paths``,
    which mypy does not report where missing imports are ignored (and where another file
    imports the module, not even ``from jax.experimental import host_callback``): ``import
    jax.experimental.host_callback`` and ``from jax.experimental.host_callback import call``
    raise ``ModuleNotFoundError``, ``from jax.experimental import host_callback`` ``ImportError``
    (unless the package still binds the name, as ``jax`` binds ``config``). Only files whose
    imports name a removed module's last part are parsed."""
    found = []
    read = SourcesRead(source, python)
    mentions = removed_module_mentions()
    for path in paths:
        text = source(path)
        names = read(path) if text is not None and mentions is not None and mentions.search(text) else None
        if names is None:
            continue
        for node in ast.walk(names.tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for column, module, raised in imported_modules(node):
                removal = contract.removed_module(module)
                if removal is None or (raised is ImportError and removal.parent_binds):
                    continue
                placed = shown(made_at(shown_path(path), node.lineno, column, removal, module, raised), names)
                if placed is not None:
                    found.append(placed)
    return found


@functools.cache
def removed_module_mentions() -> re.Pattern[str] | None:
    """A line of imports that names the last part of a removed module (``host_callback``)."""
    parts = sorted({name.rpartition(".")[2] for name in contract.removed_modules()})
    return re.compile(rf"^[ \t]*(?:from|import)[ \t][^\n]*\b(?:{'|'.join(map(re.escape, parts))})\b", re.M) if parts else None


def shown_path(path: str) -> str:
    """A file's path as mypy's reports show it: relative to where it runs, where it is below."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


class SourcesRead:
    """Each file's ``Names``, read once (None where it cannot be read)."""

    def __init__(self, source: Callable[[str], str | None], python: tuple[int, int]) -> None:
        self.source, self.python = source, python
        self.read: dict[str, Names | None] = {}

    def __call__(self, path: str) -> Names | None:
        if path not in self.read:
            text = self.source(path)
            try:
                self.read[path] = Names(text, self.python) if text is not None else None
            except (SyntaxError, ValueError):
                self.read[path] = None
        return self.read[path]


def shown(made: dict[str, Any], names: Names) -> dict[str, Any] | None:
    """A translated error as it is shown, or None: where its line does not run, runs only where
    a check allows it, or is ignored. A deferred annotation that a decorator (a class statement)
    evaluates raises from there: the error moves there, with a note naming the annotation."""
    line, column = int(made["line"]), int(made["column"])
    raised = RAISED.get(str(made.pop("raised", "")), Exception)
    found = names.source.raised_from(line, column)
    if found is None:
        return None
    (at_line, at_column), reader = found
    if names.guarded(at_line, raised) or names.ignored(at_line, str(made["code"])):
        return None
    if reader is None:
        return made
    note = READ_BY.format(line=line, reader=reader)
    return {**made, "line": at_line, "column": at_column, "hint": "\n".join([note, *filter(None, str(made.get("hint") or "").split("\n"))])}


RAISED: Final[dict[str, type[BaseException]]] = {
    "AttributeError": AttributeError,
    "ImportError": ImportError,
    "ModuleNotFoundError": ModuleNotFoundError,
    "TypeError": TypeError,
    "NotImplementedError": NotImplementedError,
}
"""The exceptions a translated error names, for the handlers that catch them."""


def imported_modules(node: ast.Import | ast.ImportFrom) -> list[tuple[int, str, type[BaseException]]]:
    """The modules an import statement imports, each with its column and what importing it
    raises where it does not exist: ``import a.b`` and ``from a.b import c`` raise
    ``ModuleNotFoundError``; ``from a import b``, where ``b`` is no module, ``ImportError``."""
    if isinstance(node, ast.Import):
        return [(node.col_offset, alias.name, ModuleNotFoundError) for alias in node.names]
    if node.module and node.level == 0:
        found: list[tuple[int, str, type[BaseException]]] = [(node.col_offset, node.module, ModuleNotFoundError)]
        if contract.removed_module(node.module) is None:
            found += [(node.col_offset, f"{node.module}.{alias.name}", ImportError) for alias in node.names]
        return found
    return []


def made_at(path: str, line: int, column: int, removal: contract.RemovedModule, module: str, raised: type[BaseException]) -> dict[str, Any]:
    said = REMOVED_MODULE.format(name=removal.name, release=removal.release, raised=raised.__name__)
    notes = [REPLACED_BY.format(replacement=removal.replacement) if removal.replacement else SEE_THE_CHANGELOG]
    if module != removal.name:
        notes.append(PART_OF.format(module=module))
    error = {"file": path, "line": line, "column": column, "severity": "error", "code": REMOVED_NAME, "message": said}
    return {**error, "hint": "\n".join(notes), "raised": raised.__name__}


def removed_name(error: dict[str, Any], names: Names) -> dict[str, Any] | None:
    """``jax-removed-name`` for mypy's ``Module has no attribute`` or ``Name ... is not defined``
    on a name JAX removed: ``ImportError`` where a ``from`` import names it, ``AttributeError``
    where an expression (an annotation too) reads it."""
    message = str(error.get("message", ""))
    line = int(error["line"])
    fullname = None
    raised = "AttributeError"
    if (match := MODULE_ATTRIBUTE.match(message)) is not None:
        if match["module"] is not None:  # from jax import tree_map
            fullname = f"{match['module']}.{match['name']}"
            imported = names.statement_at(line, ast.ImportFrom)
            if isinstance(imported, ast.ImportFrom) and any(alias.name == match["name"] for alias in imported.names):
                raised = "ImportError"
        else:  # jax.tree_map: the expression at mypy's column
            node = names.node_at(line, int(error["column"]), ast.Attribute)
            written = dotted(node) if node is not None else None
            fullname = names.resolved(written) if written is not None and written.endswith(f".{match['name']}") else None
    elif (match := UNDEFINED_NAME.match(message)) is not None:  # an annotation: jnp.DeviceArray
        fullname = names.resolved(match["name"])
    gone = contract.removed(fullname) if fullname is not None else None
    if gone is None and raised == "ImportError" and fullname is not None:
        module = contract.removed_module(fullname)  # from jax.experimental import host_callback
        if module is not None and not module.parent_binds:
            return made_at(str(error.get("file")), line, int(error["column"]), module, fullname, ImportError)
    if gone is None:
        return None
    notes = [REPLACED_BY.format(replacement=gone.replacement) if gone.replacement else SEE_THE_CHANGELOG, MYPY_SAYS.format(message=message)]
    template = REMOVED_IMPORT if raised == "ImportError" else REMOVED_ATTRIBUTE
    return {**made_from(error, REMOVED_NAME, template.format(name=gone.fullname, release=gone.release), notes), "raised": raised}


def call_signature(error: dict[str, Any], names: Names) -> dict[str, Any] | None:
    """``jax-call-signature`` for mypy's ``Unexpected keyword argument`` on a call of a JAX
    function that raises for that keyword on every call."""
    message = str(error.get("message", ""))
    match = UNEXPECTED_KEYWORD.match(message)
    node = names.node_at(int(error["line"]), int(error["column"]), ast.Call) if match is not None else None
    written = dotted(node.func) if isinstance(node, ast.Call) else None
    fullname = names.resolved(written) if written is not None else None
    if match is None or written is None or fullname is None or not fullname.startswith("jax."):
        return None
    keyword = match["keyword"]
    release = contract.contract().release
    if keyword == "out" and (raises := contract.out_raises(fullname)) is not None:
        notes = [ASSIGN_THE_RESULT.format(call=written), MYPY_SAYS.format(message=message)]
        return {**made_from(error, CALL_SIGNATURE, NO_OUT.format(name=written, raises=raises), notes), "raised": raises}
    if contract.rejects_keyword(fullname, keyword):
        said = NO_KEYWORD.format(name=written, keyword=keyword, release=release)
        return {**made_from(error, CALL_SIGNATURE, said, [MYPY_SAYS.format(message=message)]), "raised": "TypeError"}
    return None


def made_from(error: dict[str, Any], code: str, message: str, notes: list[str]) -> dict[str, Any]:
    return {**error, "code": code, "message": message, "hint": "\n".join(notes)}
