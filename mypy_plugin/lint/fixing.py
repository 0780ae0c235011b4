"""``jax-stubs lint --fix``: the fixes the reports offer, applied through a concrete syntax tree.

Each report carries its fix as edits to spans of the file (``lib/fixes.py``). Here each edit
finds the node of LibCST's tree that spans exactly what the edit names (a simple statement, a
call whose keyword argument changes, an expression) and replaces that node alone, so comments,
blank lines and layout around it stay as they were. A fix whose node is not found is not applied
(the file changed since it was checked, or the span is not one node); a file whose fixed text
would not compile is left as it was.
"""

from __future__ import annotations

import difflib
import io
from typing import Any


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
