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

from mypy.nodes import (
    ARG_POS,
    CallExpr,
    Expression,
    FloatExpr,
    FuncItem,
    IndexExpr,
    IntExpr,
    LambdaExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    RefExpr,
    ReturnStmt,
    TupleExpr,
    UnaryExpr,
)
from mypy.types import CallableType, Type

from mypy_plugin.analyses import structures
from mypy_plugin.analyses.structures import UPDATES, Returns
from mypy_plugin.lib import fullnames, mypy_internals, types
from mypy_plugin.lib.types import members

KEEPING_OPERATORS: Final = frozenset({"+", "-", "*", "/", "//", "%"})
"""Operators that keep an array's size with a Python number on the other side (a weak type: a
float array keeps its dtype, an int32 one becomes float32 under ``/`` or a float, the same size;
measured on JAX 0.4.31, 0.10.2 and 0.12.0.1)."""
REAL_NUMBERS: Final = frozenset({"builtins.int", "builtins.float", "builtins.bool"})
CLIPS: Final = frozenset({"jax.numpy.clip"})
"""Functions that keep their first argument's size, given Python numbers as bounds."""
METADATA: Final = frozenset({"shape", "dtype", "ndim", "size", "sharding", "is_deleted", "itemsize", "nbytes", "weak_type"})
"""What a deleted array still answers (measured: ``shape``, ``dtype``, ``ndim``, ``size``,
``sharding``, ``is_deleted()``; the rest come from the shape and dtype)."""


def deleted_parameters(function: FuncItem, signature: CallableType, donated: frozenset[str]) -> frozenset[str]:
    """The donated parameters whose buffer (every leaf's, for a pytree) an output of
    ``function`` certainly takes."""
    returns = Returns(function, {}).read()
    results = [node.expr for node, _ in returns if isinstance(node, ReturnStmt)]
    if not returns or len(results) != len(returns) or any(result is None for result in results):
        return frozenset()  # no body (another module's, from the cache), or one ending without a value
    assigned = structures.assignments(function.body)
    single = {name: bound[0] for name, (bound, *more) in assigned.items() if bound is not None and not bound[1] and not more}
    scalars = frozenset(
        name
        for name, typ in zip(signature.arg_names, signature.arg_types)
        if name is not None and name not in assigned and real_number(typ)
    )
    found = set()
    for name in donated:
        if name in assigned or name not in signature.arg_names:
            continue
        if all(
            any(keeps_buffer(item, name, single, 0, scalars) for item in returned_items(result)) for result in results if result is not None
        ):
            found.add(name)
    return frozenset(found)


def returned_items(result: Expression) -> list[Expression]:
    """What a ``return`` gives back: the items of a tuple written there, or the value."""
    return list(result.items) if isinstance(result, TupleExpr) else [result]


def keeps_buffer(
    node: Expression, parameter: str, single: dict[str, Expression], depth: int, scalars: frozenset[str] = frozenset()
) -> bool:
    """Whether ``node`` is an array of ``parameter``'s size computed from it (or, for a pytree
    parameter, a pytree whose every leaf is: ``jax.tree.map`` of a function that keeps its
    argument's size). ``scalars`` are the names that hold Python numbers (``lr: float``)."""
    if depth > 8:
        return False
    if isinstance(node, NameExpr):
        if node.name == parameter:
            return True
        return node.name in single and keeps_buffer(single[node.name], parameter, single, depth + 1, scalars)
    if isinstance(node, UnaryExpr):
        return node.op in ("-", "+") and keeps_buffer(node.expr, parameter, single, depth + 1, scalars)
    if isinstance(node, OpExpr) and node.op in KEEPING_OPERATORS:
        left = keeps_buffer(node.left, parameter, single, depth + 1, scalars) and python_number(node.right, scalars)
        right = (
            node.op in ("+", "*") and python_number(node.left, scalars) and keeps_buffer(node.right, parameter, single, depth + 1, scalars)
        )
        return left or right
    if not isinstance(node, CallExpr):
        return False
    callee = node.callee
    if isinstance(callee, MemberExpr) and callee.name in UPDATES - {"get"}:
        index = callee.expr
        at = index.base if isinstance(index, IndexExpr) else None
        return isinstance(at, MemberExpr) and at.name == "at" and keeps_buffer(at.expr, parameter, single, depth + 1, scalars)
    fullname = (callee.fullname or "") if isinstance(callee, RefExpr) else ""
    if fullname in CLIPS or isinstance(callee, MemberExpr) and callee.name == "clip" and not fullname:
        clipped = node.args[0] if fullname in CLIPS and node.args else callee.expr if isinstance(callee, MemberExpr) else None
        bounds = node.args[1:] if fullname in CLIPS else node.args
        return (
            clipped is not None
            and keeps_buffer(clipped, parameter, single, depth + 1, scalars)
            and all(python_number(bound, scalars) for bound in bounds)
        )
    if fullname in fullnames.TREE_MAPS and len(node.args) == 2 and node.arg_kinds == [ARG_POS, ARG_POS]:
        function, tree = node.args
        if not isinstance(function, LambdaExpr):
            return False
        parameters = mypy_internals.parameters(function)
        if parameters is None or len(parameters) != 1 or parameters[0].kind != ARG_POS:
            return False
        leaf = parameters[0].variable.name
        returned = function.body.body[-1] if function.body.body else None
        return (
            isinstance(returned, ReturnStmt)
            and returned.expr is not None
            and keeps_buffer(returned.expr, leaf, {}, depth + 1, scalars - {leaf})
            and keeps_buffer(tree, parameter, single, depth + 1, scalars)
        )
    return False


def real_number(typ: Type) -> bool:
    """Declared an int, a float or a bool (a complex one makes a larger array)."""
    found = members(typ)
    return bool(found) and all(types.member_class(member) in REAL_NUMBERS for member in found)


def python_number(node: Expression, scalars: frozenset[str]) -> bool:
    """A Python number: a literal (``0.9``, ``-1``), a name of ``scalars``, or arithmetic of them;
    an array of any size and dtype combined with one keeps its size (measured: ``x * 0.9``,
    ``x / 2`` of an int32 array, ``x * lr``)."""
    if isinstance(node, (IntExpr, FloatExpr)):
        return True
    if isinstance(node, NameExpr):
        return node.name in scalars
    if isinstance(node, UnaryExpr):
        return node.op in ("-", "+") and python_number(node.expr, scalars)
    if isinstance(node, OpExpr):
        return node.op in KEEPING_OPERATORS | {"/", "**"} and python_number(node.left, scalars) and python_number(node.right, scalars)
    return False
