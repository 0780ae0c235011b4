"""``jax-immutable-array`` (``docs/rules/jax-immutable-array.md``): how the rule finds it.

mypy checks ``x[i] = v`` as a call of ``__setitem__`` on ``x`` with the index and the value,
and ``x[i] += v`` (``Array`` has no ``__iadd__``) as ``x[i] = x[i] + v``, whose value is an
operator expression whose left side is the target itself: the method hook sees both, and tells
them apart by that identity. The note's ``.at[]`` method is the one the installed JAX's stub
declares for the operator (``+=`` -> ``.add``; ``//=`` becomes ``.set(x[i] // v)``); the
updated array goes back where the old one was read from (``rules/arrays/places.py``). A statement
that assigns several items (``x[0], x[1] = a, b``) is rewritten whole. A Pallas ref annotated
``jax.Array`` is reported like any array, with a note in modules that import Pallas.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    AssignmentStmt,
    CallExpr,
    ComparisonExpr,
    Context,
    Decorator,
    Expression,
    FuncDef,
    IndexExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    StarExpr,
    Statement,
    TupleExpr,
    TypeInfo,
)
from mypy.plugin import CheckerPluginInterface, MethodContext
from mypy.types import CallableType, Instance, TupleType, Type, get_proper_type

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import checked_module, errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import operand, source
from mypy_plugin.rules.arrays import places
from mypy_plugin.rules.arrays.places import PutBack
from mypy_plugin.rules.arrays.receivers import array_receiver

CODE: Final = errorcodes.IMMUTABLE_ARRAY

METHOD: Final = "__setitem__"
SET: Final = "set"
AT_METHOD_OF_OPERATOR: Final = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "**": "power"}
"""The ``.at[]`` method that does what each augmented operator does to an item."""
VIEWS: Final = {"T": ".T"}
"""Array attributes that NumPy returns as views: ``x.T[i] = v`` writes through to ``x``, so the
rewrite goes through the same view and back (``x = x.T.at[i].set(v).T``)."""


UPDATE_THE_ARRAY_ITSELF: Final = (
    'JAX arrays have no views to write through: update the array itself with ".at[]", e.g. "x = x.at[<index>].set(<value>)"'
)
ONE_BY_ONE: Final = 'Use ".at[]", which returns an updated copy, for each target in turn, e.g. "x = x.at[<index>].set(<value>)"'
IN_GENERAL: Final = 'Use ".at[]", which returns an updated copy, e.g. "x = x.at[<index>].set(<value>)"'
USE_AT: Final = 'Use ".at[]", which returns an updated copy'
NO_ITEM_ASSIGNMENT: Final = '"{receiver}" does not support item assignment{written}; JAX raises TypeError (JAX arrays are immutable)'
WRITTEN_OPERATOR: Final = ' ("{operator}=")'
MASK_UNDER_JIT: Final = "Under jax.jit a boolean mask cannot index; for a scalar value write {rewrite}"
WHERE: Final = "where"
"""``jax.numpy.where``, the form of a masked update that also works under ``jax.jit``."""
PALLAS_REF: Final = (
    'If this is a Pallas ref, annotate it as a ref ("jax.Ref", JAX 0.7.2 and later), not as "jax.Array": refs are mutable, arrays are not'
)


class Assignment:
    """One item assignment, as written: ``<target>[<index>] <operator>= <value>``."""

    __slots__ = ("target", "index", "value", "operator")

    def __init__(self, target: Expression, index: Expression, value: Expression, operator: str | None) -> None:
        self.target, self.index, self.value = target, index, value
        self.operator = operator
        """``+`` for ``+=``; None for a plain ``=``."""


class Update:
    """An updated array as source text (``value``), the place it replaces (``place``), and the
    import statements the text needs that the module lacks."""

    __slots__ = ("place", "value", "imports")

    def __init__(self, place: Expression, value: str, imports: tuple[str, ...] = ()) -> None:
        self.place, self.value, self.imports = place, value, imports


def check_item_assignment(ctx: MethodContext) -> Type:
    """Report an item assignment on a JAX array, with the ``.at[]`` rewrite."""
    receiver = array_receiver(ctx.type, METHOD)
    assignment = read_assignment(ctx) if receiver is not None else None
    if receiver is None or assignment is None or not bindings.holds(ctx.api, assignment.target):
        return ctx.default_return_type  # not an array, or not certainly one: another binding of the name may reach it
    statement = checked_module.statement_at(ctx.api, ctx.context)
    targets = tuple_targets(statement, ctx.context)
    if targets and targets[0] is not ctx.context:
        return ctx.default_return_type  # reported with the statement's first target
    methods = update_methods(receiver.array)
    array = Instance(receiver.array, [])
    if targets and isinstance(statement, AssignmentStmt):
        update, masked = tuple_update(ctx, targets, statement.rvalue), None
    else:
        update = single_update(ctx, assignment, methods)
        masked = masked_update(ctx, assignment, update)
    rewrite = places.put_back(ctx.api, update.place, update.value, array, update.imports) if update else None
    if targets:
        advice = ONE_BY_ONE
    else:
        advice = UPDATE_THE_ARRAY_ITSELF if rebinding(ctx, assignment.target)[0] is None else IN_GENERAL
    report(
        ctx.api,
        ctx.context,
        receiver.name,
        assignment.operator,
        rewrite or advice,
        places.put_back(ctx.api, masked.place, masked.value, array, masked.imports) if masked else None,
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


def single_update(ctx: MethodContext, assignment: Assignment, methods: frozenset[str]) -> Update | None:
    """``x.at[i].add(v)`` for ``x[i] += v``, to replace ``x``; None when the target is not a
    place the updated array can go back to (a call's result, an item of another JAX array) or
    a part of the statement cannot be printed."""
    place, view = rebinding(ctx, assignment.target)
    target = source(place) if place is not None else None
    index, value = source(assignment.index, in_subscript=True), source(assignment.value)
    if place is None or target is None or index is None or value is None:
        return None
    method = AT_METHOD_OF_OPERATOR.get(assignment.operator) if assignment.operator else SET
    if method is None or method not in methods:  # no method for this operator in this JAX
        method = SET
        value = f"{operand(place)}{view}[{index}] {assignment.operator} {operand(assignment.value)}"
    return Update(place, f"{operand(place)}{view}.at[{index}].{method}({value}){view}")


def masked_update(ctx: MethodContext, assignment: Assignment, update: Update | None) -> Update | None:
    """``jnp.where(x > 0, 0, x)`` for ``x[x > 0] = 0``: under ``jax.jit`` a boolean mask cannot
    index (how many elements it selects is unknown while tracing), ``where`` can; for a value
    that fits the whole array (a scalar), it gives the same array."""
    if update is None or not isinstance(assignment.index, ComparisonExpr) or update.place is not assignment.target:
        return None
    target, mask, value = operand(update.place), source(assignment.index), source(assignment.value)
    if target is None or mask is None or value is None:
        return None
    if assignment.operator:
        value = f"{target} {assignment.operator} {operand(assignment.value)}"
    where, imports = checked_module.reference(ctx.api, fullnames.JAX_NUMPY, WHERE)
    return Update(update.place, f"{where}({mask}, {value}, {target})", imports)


def tuple_targets(statement: Statement | None, target: Context) -> list[Expression]:
    """The targets of ``x[0], x[1] = a, b`` when ``target`` is one of them; empty otherwise."""
    if not isinstance(statement, AssignmentStmt):
        return []
    for lvalue in statement.lvalues:
        if isinstance(lvalue, (TupleExpr, ListExpr)) and any(item is target for item in lvalue.items):
            return list(lvalue.items)
    return []


def tuple_update(ctx: MethodContext, targets: list[Expression], rvalue: Expression) -> Update | None:
    """``x.at[0].set(a).at[1].set(b)`` for ``x[0], x[1] = a, b``, when every target is an item
    of the same array and each value can be named (an item of a tuple display, or of a name
    typed as a tuple of that length); None otherwise."""
    values = tuple_values(ctx, rvalue, len(targets))
    if values is None or not all(isinstance(target, IndexExpr) for target in targets):
        return None
    items = [target for target in targets if isinstance(target, IndexExpr)]
    bases = {source(item.base) for item in items}
    place, view = rebinding(ctx, items[0].base)
    if len(bases) != 1 or None in bases or place is not items[0].base or view:
        return None
    chain = operand(place) or ""
    for item, value in zip(items, values):
        index = source(item.index, in_subscript=True)
        if index is None:
            return None
        chain += f".at[{index}].{SET}({value})"
    return Update(place, chain)


def tuple_values(ctx: MethodContext, rvalue: Expression, count: int) -> list[str] | None:
    """The source of each value ``rvalue`` unpacks to, in order, or None."""
    if isinstance(rvalue, (TupleExpr, ListExpr)):
        if len(rvalue.items) != count or any(isinstance(item, StarExpr) for item in rvalue.items):
            return None
        values = [source(item) for item in rvalue.items]
        return None if None in values else [value for value in values if value is not None]
    unpacked = get_proper_type(mypy_internals.checked_type(ctx.api, rvalue))
    name = source(rvalue) if isinstance(rvalue, (NameExpr, MemberExpr)) else None
    if name is None or not isinstance(unpacked, TupleType) or len(unpacked.items) != count:
        return None
    return [f"{name}[{position}]" for position in range(count)]


def rebinding(ctx: MethodContext, target: Expression) -> tuple[Expression | None, str]:
    """The place the updated array goes back to, and the view to go through: ``x`` for ``x``,
    ``self.w`` for ``self.w``, ``params["w"]`` for an item of a dict, ``(x, ".T")`` for
    ``x.T``; None for a target that is no such place (a call's result, an item or a non-view
    attribute of another JAX array)."""
    if isinstance(target, MemberExpr) and is_jax_array(ctx, target.expr):
        return (target.expr, VIEWS[target.name]) if target.name in VIEWS else (None, "")
    if isinstance(target, (NameExpr, MemberExpr)) or (isinstance(target, IndexExpr) and not is_jax_array(ctx, target.base)):
        return target, ""
    return None, ""


def is_jax_array(ctx: MethodContext, node: Expression) -> bool:
    """Whether ``node`` (a part of the target, already checked by mypy) is a JAX array."""
    return array_receiver(mypy_internals.checked_type(ctx.api, node), METHOD) is not None


def report(
    api: CheckerPluginInterface,
    context: Context,
    receiver: str,
    operator: str | None,
    rewrite: PutBack | str,
    masked: PutBack | None,
    *,
    in_pallas_module: bool,
) -> None:
    """``x[i] = v`` or ``x[i] op= v`` on a JAX array, with the ``.at[]`` rewrite when it can be
    printed (else ``rewrite`` is the general advice), for a boolean mask the form that works
    under jit, and in a module that imports Pallas what to do about a ref annotated as an array."""
    written = WRITTEN_OPERATOR.format(operator=operator) if operator else ""
    notes = [PALLAS_REF] if in_pallas_module else []
    notes.append(places.rewrite_note(USE_AT, rewrite) if isinstance(rewrite, PutBack) else rewrite)
    if masked is not None:
        notes.append(MASK_UNDER_JIT.format(rewrite=places.quoted(masked)))
    reporting.error_with_notes(
        api,
        context,
        CODE,
        NO_ITEM_ASSIGNMENT.format(receiver=receiver, written=written),
        notes,
        places.fix_of(api, context, rewrite) if isinstance(rewrite, PutBack) else None,
    )


RULE: Final = Rule(CODE, method_hooks={METHOD: check_item_assignment})
