"""Expressions printed back as Python source, for the rewrites the notes suggest.

mypy keeps no source text in its syntax tree, so the common shapes of an assignment target,
index and value are printed from the nodes: names, attributes, literals, slices, tuples, lists,
dicts, subscripts, calls, unary, binary, boolean and comparison operators, conditional
expressions and one-line lambdas. Anything else gives None, and the note then gives the general
advice rather than a rewrite that is not the code written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    ArgKind,
    CallExpr,
    ComparisonExpr,
    ComplexExpr,
    ConditionalExpr,
    DictExpr,
    EllipsisExpr,
    Expression,
    FloatExpr,
    IndexExpr,
    IntExpr,
    LambdaExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    ReturnStmt,
    SliceExpr,
    StrExpr,
    TupleExpr,
    UnaryExpr,
)

from mypy_plugin.lib import mypy_internals


def source(node: Expression, *, in_subscript: bool = False) -> str | None:
    """``node`` as source text, or None for a shape not printed here. Operators are wrapped in
    parentheses when nested, so the text means what the node means."""
    if isinstance(node, NameExpr):
        return node.name
    if isinstance(node, MemberExpr):
        base = operand(node.expr)
        return None if base is None else f"{base}.{node.name}"
    if isinstance(node, (IntExpr, FloatExpr, ComplexExpr, StrExpr)):
        return repr(node.value)
    if isinstance(node, EllipsisExpr):
        return "..."
    if isinstance(node, SliceExpr):
        parts = [source(part) if part is not None else "" for part in (node.begin_index, node.end_index, node.stride)]
        if any(part is None for part in parts):
            return None
        text = ":".join(part or "" for part in parts)
        return text[:-1] if node.stride is None else text
    if isinstance(node, TupleExpr):
        items = [source(item, in_subscript=in_subscript) for item in node.items]
        if any(item is None for item in items):
            return None
        joined = ", ".join(item or "" for item in items) + ("," if len(items) == 1 else "")
        return joined if in_subscript and items else f"({joined})"
    if isinstance(node, ListExpr):
        items = [source(item) for item in node.items]
        return None if any(item is None for item in items) else "[" + ", ".join(item or "" for item in items) + "]"
    if isinstance(node, IndexExpr):
        base, index = operand(node.base), source(node.index, in_subscript=True)
        return None if base is None or index is None else f"{base}[{index}]"
    if isinstance(node, DictExpr):
        pairs = [(source(key) if key is not None else None, source(item)) for key, item in node.items]
        if any(key is None or item is None for key, item in pairs):
            return None
        return "{" + ", ".join(f"{key}: {item}" for key, item in pairs) + "}"
    if isinstance(node, CallExpr):
        return call_source(node)
    if isinstance(node, ConditionalExpr):  # only a conditional or a lambda binds looser
        parts = [source(part) for part in (node.if_expr, node.cond, node.else_expr)]
        if None in parts:
            return None
        value, condition = (
            f"({text})" if isinstance(part, (ConditionalExpr, LambdaExpr)) else text for part, text in zip((node.if_expr, node.cond), parts)
        )
        return f"{value} if {condition} else {parts[2]}"
    if isinstance(node, LambdaExpr):
        return lambda_source(node)
    if isinstance(node, UnaryExpr):
        inner = operand(node.expr)
        return None if inner is None else f"{node.op} {inner}" if node.op == "not" else f"{node.op}{inner}"
    if isinstance(node, OpExpr):
        left, right = operand(node.left), operand(node.right)
        return None if left is None or right is None else f"{left} {node.op} {right}"
    if isinstance(node, ComparisonExpr):
        operands = [operand(item) for item in node.operands]
        if any(item is None for item in operands):
            return None
        text = operands[0] or ""
        for op, item in zip(node.operators, operands[1:]):
            text += f" {op} {item}"
        return text
    return None


def operand(node: Expression) -> str | None:
    """``node`` as source fit to stand inside a larger expression."""
    text = source(node)
    if text is not None and isinstance(node, (OpExpr, ComparisonExpr, UnaryExpr, ConditionalExpr, LambdaExpr)):
        return f"({text})"
    return text


def call_source(node: CallExpr) -> str | None:
    if f_string_parts(node) is not None:
        return f_string_source(node)  # None where it needs what is not printed here: not mypy's rewrite of it
    callee = operand(node.callee)
    arguments = arguments_source(node.arg_kinds, node.arg_names, node.args)
    return None if callee is None or arguments is None else f"{callee}({', '.join(arguments)})"


FORMATTED_VALUE: Final = {"{:{}}": "", "{!r:{}}": "!r", "{!s:{}}": "!s", "{!a:{}}": "!a"}
"""mypy's parser turns each value of an f-string into ``'{!r:{}}'.format(value, spec)``, by its
conversion, and the whole string into ``''.join([parts])``."""


def formatted_value(node: Expression) -> tuple[Expression, str, Expression] | None:
    """The value, conversion and spec of one ``{value!r:spec}`` of an f-string as mypy's parser
    writes it, or None for anything else."""
    if not isinstance(node, CallExpr) or not isinstance(node.callee, MemberExpr) or node.callee.name != "format":
        return None
    template = node.callee.expr
    if not isinstance(template, StrExpr) or template.value not in FORMATTED_VALUE or len(node.args) != 2 or node.arg_names != [None, None]:
        return None
    return node.args[0], FORMATTED_VALUE[template.value], node.args[1]


def f_string_parts(node: Expression) -> list[Expression] | None:
    """The parts of an f-string as mypy's parser writes it (``''.join([...])`` of strings and
    formatted values, at least one, or one formatted value alone); None for anything else."""
    parts: list[Expression] = [node]
    if isinstance(node, CallExpr) and isinstance(node.callee, MemberExpr) and isinstance(node.callee.expr, StrExpr):
        if node.callee.name == "join" and node.callee.expr.value == "" and len(node.args) == 1 and isinstance(node.args[0], ListExpr):
            parts = list(node.args[0].items)
    formatted = [formatted_value(part) is not None for part in parts]
    return parts if any(formatted) and all(is_value or isinstance(part, StrExpr) for part, is_value in zip(parts, formatted)) else None


def f_string_text(node: Expression) -> str | None:
    """The text between an f-string's quotes (``block_{i}``), or None where a part is not printed here."""
    if isinstance(node, StrExpr):
        return node.value.replace("{", "{{").replace("}", "}}")
    parts = f_string_parts(node)
    if parts is None:
        return None
    texts = []
    for part in parts:
        value = formatted_value(part)
        if value is None:
            texts.append(f_string_text(part) or "")
            continue
        written, conversion, spec_node = value
        shown, spec = source(written), f_string_text(spec_node)
        if shown is None or spec is None or "{" in spec:
            return None
        texts.append("{" + shown + conversion + (":" + spec if spec else "") + "}")
    return "".join(texts)


def f_string_source(node: CallExpr) -> str | None:
    """An f-string as written (``f'block_{i}'``), where its text needs no escape; None for any
    other call (``''.join(parts)`` written as such is printed as a call)."""
    text = f_string_text(node)
    if text is None or "\\" in text or "\n" in text:
        return None
    quote = next((quote for quote in ("'", '"') if quote not in text), None)
    return None if quote is None else f"f{quote}{text}{quote}"


def arguments_source(kinds: Sequence[ArgKind], names: Sequence[str | None], args: Sequence[Expression]) -> list[str] | None:
    """Each argument of a call as written (``x``, ``*rest``, ``axis=0``)."""
    arguments = []
    for kind, name, argument in zip(kinds, names, args):
        text = source(argument)
        prefix = f"{name}=" if kind == ARG_NAMED else {ARG_POS: "", ARG_STAR: "*", ARG_STAR2: "**"}.get(kind)
        if text is None or prefix is None:
            return None
        arguments.append(prefix + text)
    return arguments


def lambda_source(node: LambdaExpr) -> str | None:
    """``lambda a, b: a + b``: positional parameters without defaults, one expression."""
    parameters = mypy_internals.parameters(node)
    if parameters is None or any(argument.kind != ARG_POS or argument.initializer is not None for argument in parameters):
        return None
    body = node.body.body
    if len(body) != 1 or not isinstance(body[0], ReturnStmt) or body[0].expr is None:
        return None
    text = source(body[0].expr)
    if text is None:
        return None
    names = ", ".join(argument.variable.name for argument in parameters)
    return f"lambda {names}: {text}" if names else f"lambda: {text}"


def int_literal(node: Expression) -> int | None:
    """``1`` or ``-1`` as written; None for anything else."""
    if isinstance(node, IntExpr):
        return node.value
    if isinstance(node, UnaryExpr) and node.op == "-" and isinstance(node.expr, IntExpr):
        return -node.expr.value
    return None
