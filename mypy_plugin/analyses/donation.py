"""Which donated parameters of a jitted function certainly lose their buffer, and what reads one.

``jax.jit(f, donate_argnums=...)`` hands an argument's buffer to XLA, which gives it to an output
of the same size; JAX then deletes the argument (on the CPU too, measured on JAX 0.4.31, 0.7.2,
0.10.2 and 0.12.0.1). Where no output can take it (``return x.sum()`` of a vector), JAX warns
and the argument lives. So a donated parameter is taken as deleted only where every ``return``
of the function gives back, as the result or an item of a returned tuple, an array of the
parameter's own size: the parameter itself, ``x.at[i].set(v)`` (and the other ``.at`` updates),
``-x``, ``x`` with an int literal (``x + 1``, ``2 * x``: a weak int keeps the dtype), or a name
assigned once to one of these. A call deletes the argument only where it is a ``jax.Array`` (a
NumPy array or a Python number passed is copied, and lives): the rule checks that at the call.

After the call, the caller's name holds a deleted array: reading its values raises
``RuntimeError: Array has been deleted`` (every release above), while its shape, dtype and
``len()`` still answer (``METADATA``).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import CallExpr, Expression, FuncItem, IndexExpr, IntExpr, MemberExpr, NameExpr, OpExpr, ReturnStmt, TupleExpr, UnaryExpr
from mypy.types import CallableType

from mypy_plugin.analyses import structures
from mypy_plugin.analyses.structures import UPDATES, Returns

KEEPING_OPERATORS: Final = frozenset({"+", "-", "*", "//", "%"})
"""Operators that keep an array's dtype and shape with an int literal on the other side."""
METADATA: Final = frozenset({"shape", "dtype", "ndim", "size", "sharding", "is_deleted", "itemsize", "nbytes", "weak_type"})
"""What a deleted array still answers (measured: ``shape``, ``dtype``, ``ndim``, ``size``,
``sharding``, ``is_deleted()``; the rest come from the shape and dtype)."""


def deleted_parameters(function: FuncItem, signature: CallableType, donated: frozenset[str]) -> frozenset[str]:
    """The donated parameters whose buffer an output of ``function`` certainly takes."""
    returns = Returns(function, {}).read()
    results = [node.expr for node, _ in returns if isinstance(node, ReturnStmt)]
    if not returns or len(results) != len(returns) or any(result is None for result in results):
        return frozenset()  # no body (another module's, from the cache), or one ending without a value
    assigned = structures.assignments(function.body)
    single = {name: bound[0] for name, (bound, *more) in assigned.items() if bound is not None and not bound[1] and not more}
    found = set()
    for name in donated:
        if name in assigned or name not in signature.arg_names:
            continue
        if all(any(keeps_buffer(item, name, single, 0) for item in returned_items(result)) for result in results if result is not None):
            found.add(name)
    return frozenset(found)


def returned_items(result: Expression) -> list[Expression]:
    """What a ``return`` gives back: the items of a tuple written there, or the value."""
    return list(result.items) if isinstance(result, TupleExpr) else [result]


def keeps_buffer(node: Expression, parameter: str, single: dict[str, Expression], depth: int) -> bool:
    """Whether ``node`` is an array of ``parameter``'s size and dtype, computed from it."""
    if depth > 8:
        return False
    if isinstance(node, NameExpr):
        if node.name == parameter:
            return True
        return node.name in single and keeps_buffer(single[node.name], parameter, single, depth + 1)
    if isinstance(node, UnaryExpr):
        return node.op in ("-", "+") and keeps_buffer(node.expr, parameter, single, depth + 1)
    if isinstance(node, OpExpr) and node.op in KEEPING_OPERATORS:
        left = keeps_buffer(node.left, parameter, single, depth + 1) and isinstance(node.right, IntExpr)
        right = node.op in ("+", "*") and isinstance(node.left, IntExpr) and keeps_buffer(node.right, parameter, single, depth + 1)
        return left or right
    if isinstance(node, CallExpr) and isinstance(node.callee, MemberExpr) and node.callee.name in UPDATES - {"get"}:
        index = node.callee.expr
        at = index.base if isinstance(index, IndexExpr) else None
        return isinstance(at, MemberExpr) and at.name == "at" and keeps_buffer(at.expr, parameter, single, depth + 1)
    return False
