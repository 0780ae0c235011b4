"""``jax-stubs lint --fix``: the fixes the reports offer, applied through a concrete syntax tree.

The plugin records each fix as edits to spans of the file (``lib/fixes.py``). Here each edit
finds the node of LibCST's tree that spans exactly what the edit names (a simple statement, a
call whose keyword argument changes, an expression) and replaces that node alone, so comments,
blank lines and layout around it stay as they were. A fix whose node is not found is not applied
(the file changed since it was checked, or the span is not one node); a file whose fixed text
would not compile is left as it was.

mypy reports a fresh module's errors from its cache without running the plugin, so the fixes a
run records are kept next to lint's cache (``STORE``), by file and content hash: a module mypy
takes from its cache gets the fixes stored for it.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

STORE: Final = "fixes.json"
Key = tuple[str, int, int, str]
"""A report's place: file, line, column (from 1, as reports count it), code."""


def digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class Store:
    """The fixes recorded for each file, with the hash of the content they were recorded on
    (read from its shadow, where the check read the file from one)."""

    def __init__(self, cache: Path, shadows: dict[str, str] | None = None) -> None:
        self.path = cache / STORE
        self.shadows = {os.path.normpath(file): shadow for file, shadow in (shadows or {}).items()}
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = {}
        self.files: dict[str, dict[str, Any]] = loaded if isinstance(loaded, dict) else {}

    def record(self, checked_files: Iterable[str], recorded: Iterable[tuple[str, int, int, str, Any]]) -> None:
        """The fixes of the files mypy checked anew replace what was stored for them."""
        found: dict[str, list[dict[str, Any]]] = {os.path.normpath(file): [] for file in checked_files}
        for path, line, column, code, fix in recorded:
            file = os.path.normpath(path)
            if file in found:
                entry = {"line": line, "column": column + 1, "code": code, "fix": fix.as_json()}
                if entry not in found[file]:
                    found[file].append(entry)
        for file, fixes in found.items():
            self.files[file] = {"sha256": self.digest(file), "fixes": fixes}

    def fixes_of(self, file: str) -> list[dict[str, Any]] | None:
        """The fixes stored for ``file`` as it is now; None where none are stored for it."""
        entry = self.files.get(os.path.normpath(file))
        if not isinstance(entry, dict) or entry.get("sha256") != self.digest(file):
            return None
        return list(entry.get("fixes", []))

    def digest(self, file: str) -> str | None:
        normal = os.path.normpath(file)
        return digest(Path(self.shadows.get(normal, normal)))

    def save(self) -> None:
        try:
            self.path.write_text(json.dumps(self.files), encoding="utf-8")
        except OSError:
            pass  # fixes are then found again by the next run


def offered(store: Store, keys: Iterable[Key]) -> tuple[dict[Key, dict[str, Any]], set[str]]:
    """The fix each report offers (by its key), and the files whose fixes are not known."""
    found: dict[Key, dict[str, Any]] = {}
    unknown: set[str] = set()
    by_file: dict[str, dict[Key, dict[str, Any]] | None] = {}
    for key in keys:
        file = key[0]
        if file not in by_file:
            stored = store.fixes_of(file)
            by_file[file] = None if stored is None else {(file, e["line"], e["column"], e["code"]): e["fix"] for e in stored}
        fixes = by_file[file]
        if fixes is None:
            unknown.add(file)
        elif key in fixes:
            found[key] = fixes[key]
    return found, unknown


def lines_of(text: str) -> list[str]:
    """The lines of ``text``, each with its ending: lines end at ``\r\n``, ``\r`` or ``\n``,
    for mypy, LibCST and the Language Server Protocol alike (``str.splitlines`` also splits at
    form feeds and Unicode separators, which these do not)."""
    return io.StringIO(text, newline="").readlines()


def applied(text: str, fixes: list[dict[str, Any]]) -> tuple[str, int]:
    """``text`` with as many of ``fixes`` applied as find their nodes and do not overlap an
    earlier one; how many were (none where ``text`` does not parse)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return text, 0
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    nodes: dict[tuple[int, int], list[cst.CSTNode]] = {}
    for node, where in wrapper.resolve(PositionProvider).items():
        nodes.setdefault((where.start.line, where.start.column), []).append(node)
    lines = lines_of(text)
    starts = [0]
    for written in lines:
        starts.append(starts[-1] + len(written))
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    taken: list[tuple[int, int, int, int]] = []
    count = 0
    for fix in sorted(fixes, key=lambda fix: [(edit["line"], edit["column"]) for edit in fix["edits"]]):
        made: dict[cst.CSTNode, cst.CSTNode] = {}  # edits of one call build on each other
        spans = []
        for edit in fix["edits"]:
            span = char_span(lines, edit)
            if span is None or any(overlaps(span, other) for other in taken):
                break
            line, column, end_line, end_column = span
            written = text[starts[line - 1] + column : starts[end_line - 1] + end_column]
            starting = nodes.get((line, column), [])
            target = next((found for found in starting if fits(found, edit["kind"]) and code_of(module, found) == written), None)
            new = replacement(made.get(target) or target, edit) if target is not None else None
            if target is None or new is None:
                break
            made[target] = new
            spans.append(span)
        else:
            taken += spans
            replacements.update(made)
            count += 1
    if not replacements:
        return text, 0
    return module.visit(replacer(replacements)).code, count


def char_span(lines: list[str], edit: dict[str, Any]) -> tuple[int, int, int, int] | None:
    """The edit's span with columns in characters (LibCST's), from mypy's UTF-8 byte offsets."""
    line, column, end_line, end_column = edit["line"], edit["column"], edit["end_line"], edit["end_column"]
    if not 1 <= line <= end_line <= len(lines) or column < 0 or end_column < 0:
        return None

    def chars(number: int, offset: int) -> int:
        return len(lines[number - 1].encode("utf-8")[:offset].decode("utf-8", errors="ignore"))

    return line, chars(line, column), end_line, chars(end_line, end_column)


def code_of(module: Any, node: Any) -> str:
    """The node's code as written, less a simple statement's ``;`` (LibCST keeps it on the
    statement, mypy's span ends before it)."""
    import libcst as cst

    if isinstance(node, cst.BaseSmallStatement):
        node = node.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return str(module.code_for_node(node))


def overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return (a[0], a[1]) < (b[2], b[3]) and (b[0], b[1]) < (a[2], a[3])


def fits(node: Any, kind: str) -> bool:
    import libcst as cst

    from mypy_plugin.lib import fixes

    wanted = {fixes.STATEMENT: cst.BaseSmallStatement, fixes.KEYWORD: cst.Call, fixes.EXPRESSION: cst.BaseExpression}.get(kind)
    return wanted is not None and isinstance(node, wanted)


def replacement(node: Any, edit: dict[str, Any]) -> Any:
    """``node`` as the edit makes it; None where the edit does not fit it."""
    import libcst as cst

    from mypy_plugin.lib import fixes

    try:
        if edit["kind"] == fixes.STATEMENT:
            line = cst.parse_statement(edit["text"] + "\n")
            if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
                return None
            return line.body[0].with_changes(semicolon=node.semicolon)
        if edit["kind"] == fixes.EXPRESSION:  # only the expression checked, as it was written
            return cst.parse_expression(edit["text"]) if cst.Module([]).code_for_node(node) == edit["name"] else None
        return with_keyword(node, edit["name"], edit["text"], edit["value"])
    except cst.ParserSyntaxError:
        return None


def with_keyword(call: Any, name: str, new: str, value: str) -> Any:
    """``call`` with its argument ``name=`` renamed to ``new`` (the value replaced by ``value``
    where given), or dropped where ``new`` is empty."""
    import libcst as cst

    args = list(call.args)
    index = next((i for i, arg in enumerate(args) if arg.keyword is not None and arg.keyword.value == name), None)
    if index is None:
        return None
    if new:
        args[index] = args[index].with_changes(keyword=cst.Name(new), value=cst.parse_expression(value) if value else args[index].value)
    else:
        last = args.pop(index)
        if index == len(args) and args:  # the last one dropped: the one before ends the list as it did
            comma = args[-1].comma
            if isinstance(comma, cst.Comma) and "#" in cst.Module([]).code_for_node(comma):
                return None  # a comment after the comma before it: dropping would lose it
            args[-1] = args[-1].with_changes(comma=last.comma)
    return call.with_changes(args=args)


def replacer(replacements: dict[Any, Any]) -> Any:
    """A LibCST transformer that puts each given node's replacement in its place (defined here,
    so that LibCST is imported only where a fix is applied)."""
    import libcst as cst

    class Replacer(cst.CSTTransformer):
        def on_leave(self, original_node: Any, updated_node: Any) -> Any:
            found = replacements.get(original_node)
            return updated_node if found is None else found

    return Replacer()


def brought(before: list[Any], after: list[Any], files: set[str]) -> set[str]:
    """The files among ``files`` with a report after fixing that they did not have before (by
    code and message: fixing moves lines)."""
    from collections import Counter

    def kinds(reports: list[Any], file: str) -> Counter[tuple[str, str]]:
        return Counter((report.code, report.message) for report in reports if report.file == file)

    return {file for file in files if kinds(after, file) - kinds(before, file)}


def diff(file: str, old: str, new: str) -> str:
    """A unified diff, as ``git diff`` and ruff's ``--diff`` print one."""
    return "".join(difflib.unified_diff(lines_of(old), lines_of(new), f"a/{file}", f"b/{file}"))


def read(file: str) -> str:
    """A file's text with its line endings as they are (``\r\n`` stays)."""
    with open(file, encoding="utf-8", newline="") as opened:
        return opened.read()


def write(file: str, text: str) -> None:
    with open(file, "w", encoding="utf-8", newline="") as opened:
        opened.write(text)


def compiles(text: str, file: str) -> bool:
    try:
        compile(text, file, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True
