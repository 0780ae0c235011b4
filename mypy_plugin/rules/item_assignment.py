"""``jax-immutable-array``: ``x[i] = v`` and ``x[i] += v`` on a JAX array, which JAX always rejects.

JAX's stub declares ``Array.__setitem__``, so every checker accepts item assignment; at run
time JAX raises ``TypeError: JAX arrays are immutable and do not support in-place item
assignment``. mypy checks ``x[i] = v`` as a call of ``__setitem__`` on ``x`` with the index and
the value, and ``x[i] += v`` (``Array`` has no ``__iadd__``) as ``x[i] = x[i] + v``, whose
value is an operator expression whose left side is the target itself: the method hook sees
both, and tells them apart by that identity.

The note shows the ``.at[]`` rewrite for the operator written, with the method the installed
JAX's stub declares (``+=`` -> ``.add``); an operator without one (``//=``) is written as
``.set(x[i] // v)``.

Pallas kernels write to refs (``o_ref[...] = x``), which are mutable; a ref is a ``jax.Ref``,
not a ``jax.Array``, and is left alone as such. A ref annotated ``jax.Array`` is reported like
any array (the annotation is wrong, and nothing else tells it from an array), with a note that
says so in modules that import Pallas.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.nodes import (
    CallExpr,
    ComparisonExpr,
    Context,
    Decorator,
    Expression,
    FuncDef,
    IndexExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    TypeInfo,
)
from mypy.plugin import CheckerPluginInterface, MethodContext
from mypy.types import CallableType, Instance, Type, get_proper_type

from mypy_plugin.lib import checked_module, fullnames, reporting
from mypy_plugin.lib.receivers import array_receiver
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import operand, source

CODE: Final = ErrorCode(
    "jax-immutable-array",
    "Check that no item of a JAX array is assigned to (JAX raises TypeError; use x.at[i])",
    reporting.CATEGORY,
)

METHOD: Final = "__setitem__"
SET: Final = "set"
UPDATE_METHODS: Final = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "**": "power"}
"""The ``.at[]`` method that does what each augmented operator does to an item."""
VIEWS: Final = {"T": ".T"}
"""Array attributes that NumPy returns as views: ``x.T[i] = v`` writes through to ``x``, so the
rewrite goes through the same view and back (``x = x.T.at[i].set(v).T``)."""


UPDATE_THE_ARRAY_ITSELF: Final = (
    'JAX arrays have no views to write through: update the array itself with ".at[]", '
    'e.g. "x = x.at[<index>].set(<value>)"'
)
PALLAS_REF: Final = (
    'If this is a Pallas ref, annotate it as a ref ("jax.Ref", JAX 0.7.2 and later), '
    'not as "jax.Array": refs are mutable, arrays are not'
)


class Assignment:
    """One item assignment, as written: ``<target>[<index>] <operator>= <value>``."""

    __slots__ = ("target", "index", "value", "operator")

    def __init__(self, target: Expression, index: Expression, value: Expression, operator: str | None) -> None:
        self.target, self.index, self.value = target, index, value
        self.operator = operator
        """``+`` for ``+=``; None for a plain ``=``."""


def check_item_assignment(ctx: MethodContext) -> Type:
    """Report an item assignment on a JAX array, with the ``.at[]`` rewrite."""
    receiver = array_receiver(ctx.type, METHOD)
    assignment = read_assignment(ctx) if receiver is not None else None
    if receiver is None or assignment is None:
        return ctx.default_return_type
    rewrite = suggested_rewrite(ctx, assignment, update_methods(receiver.array))
    report(
        ctx.api, ctx.context, receiver.name, assignment.operator,
        str(rewrite) if rewrite else None, masked_rewrite(assignment, rewrite),
        in_pallas_module=bool(checked_module.imports(ctx.api, fullnames.PALLAS)),
    )
    return ctx.default_return_type


def read_assignment(ctx: MethodContext) -> Assignment | None:
    """The assignment mypy is checking: ``x[i] = v`` (the context is ``x[i]``), ``x[i] op= v``
    (the value is ``x[i] op v`` built on that same ``x[i]``), or ``x.__setitem__(i, v)``."""
    if len(ctx.args) < 2 or len(ctx.args[0]) != 1 or len(ctx.args[1]) != 1:
        return None
    index, value = ctx.args[0][0], ctx.args[1][0]
    context = ctx.context
    if isinstance(context, IndexExpr):
        if isinstance(value, OpExpr) and value.left is context:
            return Assignment(context.base, context.index, value.right, value.op)
        return Assignment(context.base, context.index, value, None)
    if isinstance(context, CallExpr) and isinstance(context.callee, MemberExpr):
        return Assignment(context.callee.expr, index, value, None)
    return None


def update_methods(array: TypeInfo) -> frozenset[str]:
    """The methods of ``x.at[i]`` that the installed JAX's stub declares (read from the type of
    ``Array.at``), so that a note never suggests one this JAX lacks."""
    helper = return_instance(array.get_method("at"))
    reference = return_instance(helper.type.get_method("__getitem__") if helper else None)
    if reference is None:
        return frozenset({SET})
    return frozenset(name for name in reference.type.names if not name.startswith("_"))


def return_instance(node: object) -> Instance | None:
    """What a method or property returns, when that is an instance of a class."""
    function = node.func if isinstance(node, Decorator) else node
    signature = function.type if isinstance(function, FuncDef) else None
    returned = get_proper_type(signature.ret_type) if isinstance(signature, CallableType) else None
    return returned if isinstance(returned, Instance) else None


class Rewrite:
    """``<target> = <target><view>.at[<index>].<method>(<value>)<view>``, as source text."""

    __slots__ = ("target", "view", "index", "method", "value")

    def __init__(self, target: str, view: str, index: str, method: str, value: str) -> None:
        self.target, self.view, self.index, self.method, self.value = target, view, index, method, value

    def __str__(self) -> str:
        return f"{self.target} = {self.target}{self.view}.at[{self.index}].{self.method}({self.value}){self.view}"


def suggested_rewrite(ctx: MethodContext, assignment: Assignment, methods: frozenset[str]) -> Rewrite | None:
    """``x = x.at[i].add(v)`` for ``x[i] += v``, printed from the source (a part that cannot be
    printed, such as mypy's stand-in for one value of ``x[0], x[1] = pair``, shows as
    ``<index>`` or ``<value>``); None when the target is not a place the updated array can be
    assigned to (a call's result, an item of another JAX array)."""
    target, view = rebinding(ctx, assignment.target)
    if target is None:
        return None
    index = source(assignment.index, in_subscript=True) or "<index>"
    value = source(assignment.value) or "<value>"
    method = UPDATE_METHODS.get(assignment.operator) if assignment.operator else SET
    if method is None or method not in methods:  # no method for this operator in this JAX
        method = SET
        value = f"{target}{view}[{index}] {assignment.operator} {operand(assignment.value) or '<value>'}"
    return Rewrite(target, view, index, method, value)


def masked_rewrite(assignment: Assignment, rewrite: Rewrite | None) -> str | None:
    """``x = jnp.where(x > 0, 0, x)`` for ``x[x > 0] = 0``: under ``jax.jit`` a boolean mask
    cannot index (how many elements it selects is unknown while tracing), ``where`` can; for a
    value that fits the whole array (a scalar), it gives the same array."""
    mask, value = source(assignment.index), source(assignment.value)
    if rewrite is None or rewrite.view or not isinstance(assignment.index, ComparisonExpr) or None in (mask, value):
        return None
    if assignment.operator:
        value = f"{rewrite.target} {assignment.operator} {operand(assignment.value)}"
    return f"{rewrite.target} = jnp.where({mask}, {value}, {rewrite.target})"


def rebinding(ctx: MethodContext, target: Expression) -> tuple[str | None, str]:
    """The place to assign the updated array to, and the view to go through: ``x`` for ``x``,
    ``self.w`` for ``self.w``, ``params["w"]`` for an item of a dict, ``(x, ".T")`` for
    ``x.T``; None for a target that is no such place (a call's result, an item or a non-view
    attribute of another JAX array) or cannot be printed."""
    if isinstance(target, MemberExpr) and is_jax_array(ctx, target.expr):
        return (source(target.expr), VIEWS[target.name]) if target.name in VIEWS else (None, "")
    if isinstance(target, (NameExpr, MemberExpr)) or (isinstance(target, IndexExpr) and not is_jax_array(ctx, target.base)):
        return source(target), ""
    return None, ""


def is_jax_array(ctx: MethodContext, node: Expression) -> bool:
    """Whether ``node`` (a part of the target, already checked by mypy) is a JAX array."""
    return array_receiver(ctx.api.get_expression_type(node), METHOD) is not None


def report(
    api: CheckerPluginInterface,
    context: Context,
    receiver: str,
    operator: str | None,
    rewrite: str | None,
    masked: str | None,
    *,
    in_pallas_module: bool,
) -> None:
    """``x[i] = v`` or ``x[i] op= v`` on a JAX array, with the ``.at[]`` rewrite when it can be
    printed (else the general form), for a boolean mask the form that works under jit, and in
    a module that imports Pallas what to do about a ref annotated as an array."""
    written = f' ("{operator}=")' if operator else ""
    notes = [PALLAS_REF] if in_pallas_module else []
    notes.append(f'Use ".at[]", which returns an updated copy: "{rewrite}"' if rewrite else UPDATE_THE_ARRAY_ITSELF)
    if masked:
        notes.append(f'Under jax.jit a boolean mask cannot index; for a scalar value write "{masked}"')
    reporting.error_with_notes(
        api, context, CODE,
        f'"{receiver}" does not support item assignment{written}; JAX raises TypeError (JAX arrays are immutable)',
        notes,
    )


RULE: Final = Rule(CODE, method_hooks={METHOD: check_item_assignment})
