"""``jax-donated-buffer`` (``docs/rules/jax-donated-buffer.md``): how the rule finds it.

The plugin keeps, on what ``jax.jit`` returns, the donated parameters whose buffer an output
certainly takes (``rules/jit/donation.py``: only then does JAX delete the argument). At a call of
such a function that passes a ``jax.Array`` variable there, the statements that run after the
call are read (``analyses/later_reads.py``, also after the loops and ``with`` blocks around it)
until the name is bound again on that path: the first read that needs the array's values (an operator, an index, a computing method, a
``jax.numpy`` function, ``print``, ``float()``, formatting) is reported; its shape, dtype,
``len()`` and ``is_deleted()`` still answer, and a read passed to another function may not touch
the values; passed to the donating function again (by the name the call used, until it is bound
again), it is reported: that call raises. The same array passed again in the donating call is reported there. Reads in the
body of a ``try`` with handlers, loops that call again and the call's own statement are left
alone, and so is a call inside a function under a transform's decorator, where JAX traces the
call and ignores donation.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    AssertStmt,
    AssignmentStmt,
    Block,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    Context,
    Decorator,
    Expression,
    ExpressionStmt,
    FuncDef,
    GlobalDecl,
    Import,
    ImportAll,
    ImportFrom,
    IndexExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    NonlocalDecl,
    OperatorAssignmentStmt,
    OpExpr,
    PassStmt,
    RaiseStmt,
    RefExpr,
    ReturnStmt,
    Statement,
    StrExpr,
    TupleExpr,
    UnaryExpr,
    Var,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface, MethodContext
from mypy.types import Type

from mypy_plugin.analyses import bindings, later_reads, sites
from mypy_plugin.lib import arguments, checked_module, errorcodes, fullnames, reporting, statements, types
from mypy_plugin.lib.rule import Rule
from mypy_plugin.rules.jit import jitted
from mypy_plugin.rules.jit.donation import METADATA

CODE: Final = errorcodes.DONATED_BUFFER

READ_AFTER_DONATION: Final = (
    '"{name}" is read after "{function}" took its buffer at line {line} (donated); JAX raises RuntimeError or ValueError'
)
USE_THE_RESULT: Final = (
    'Use what "{function}" returns, which holds that buffer: rebind the name to it (the JAX way: "{name} = {function}(...)"), or '
    'keep "{name}" by not donating it'
)
PASSED_TWICE: Final = '"{name}" is passed to "{function}" again, in the call that takes its buffer (donated); JAX raises RuntimeError'
PASS_A_COPY: Final = 'Pass a copy where it is not donated ("{copy}"), or do not donate "{name}"'
READING_CALLS: Final = frozenset({"builtins.print", "builtins.str", "builtins.repr", "builtins.float", "builtins.int", "builtins.bool"})
"""Python functions that need an array's values (each raises on a deleted one: ``print`` measured)."""
VALUE_OPERATORS: Final = frozenset({"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"})


def on_call(ctx: MethodContext) -> Type:
    """A call of a jitted function that deletes a donated argument: a later read of it."""
    kept = jitted.jitted_signature_of(ctx.type)
    call = ctx.context
    if kept is None or not kept.deleted or not isinstance(call, CallExpr) or not bindings.holds(ctx.api, call.callee):
        return ctx.default_return_type  # another binding of the callee's name (one that donates nothing) may reach the call
    if under_a_default_device(ctx.api, call):
        return ctx.default_return_type
    # the function as the call names it ("train_step"), else as it was defined
    function = call.callee.name if isinstance(call.callee, NameExpr) else (kept.signature.name or "the function").partition(" of ")[0]
    given = arguments.against(ctx, kept.signature)
    for name, arg, typ in given:
        if name not in kept.deleted or not isinstance(arg, NameExpr) or not isinstance(arg.node, Var):
            continue
        if not bindings.holds(ctx.api, arg):
            continue
        pytree = not types.is_array(typ) and types.pytree_of_arrays(typ)
        if types.is_array(typ) or pytree:
            again = next(
                (other for _, other, _ in given if other is not arg and isinstance(other, NameExpr) and other.name == arg.name), None
            )
            if again is not None:
                report_passed_twice(ctx.api, again, arg.name, function, bool(pytree))
                continue
            read = read_after(ctx.api, call, arg.name, pytree)
            if read is not None:
                report_read(ctx.api, read, arg.name, function, call)
    return ctx.default_return_type


def under_a_default_device(api: CheckerPluginInterface, call: CallExpr) -> bool:
    """Whether ``call`` runs inside ``with jax.default_device(...)``: where that device is not
    the one the argument lives on (an accelerator's array, the CPU named), JAX donates a copy
    and the argument keeps its buffer (measured on a TPU), and which machine runs it is not known."""
    return any(
        isinstance(statement, WithStmt) and any(fullnames.called(item) == fullnames.DEFAULT_DEVICE for item in statement.expr)
        for statement in checked_module.enclosing_statements(api, call)
    )


def read_after(api: CheckerPluginInterface, call: CallExpr, name: str, pytree: bool = False) -> NameExpr | None:
    """The first read of ``name``'s values (of its leaves' values, for a ``pytree`` of arrays)
    after the statement that holds ``call``, before the name is bound again
    (``analyses/later_reads.py``); None where there is none, or where that statement binds it
    (``x = step(x)``)."""
    function = call.callee.name if isinstance(call.callee, NameExpr) else None
    read = later_reads.first_read(api, call, Donated(name, pytree, function))
    return read if isinstance(read, NameExpr) else None


class Donated:
    """A name whose array a call donated (what ``later_reads`` looks for, a ``Gone``): a read
    of its values raises; its shape, dtype, ``len()`` and ``is_deleted()`` still answer, and a
    bare use (passed on, returned, stored) may not read the values."""

    anywhere = True  # the report is made at the read

    def __init__(self, name: str, pytree: bool = False, function: str | None = None) -> None:
        self.name = name
        self.pytree = pytree
        """Whether the name holds a pytree of arrays (a dict, a tuple, a NamedTuple): its items'
        values are read (``params["w"] + 1``, ``state.w.sum()``), or the whole printed."""
        self.function = function
        """The name the donating call calls (``train_step``): called again with the deleted
        array, it raises as a read does (jax-ml/jax#9675), until that name is bound again."""

    def read(self, parent: Expression, child: Expression) -> Expression | None:
        """The name, where ``parent`` reads the values of ``child`` and ``child`` is the donated
        array, or for a pytree, one of its items (or the whole, printed or formatted)."""
        if isinstance(parent, CallExpr) and self.function is not None and same_name(parent.callee, self.function):
            return child if child is not parent.callee and same_name(child, self.name) else None
        if not needs_values(parent, child):
            return None
        if not self.pytree:
            return child if same_name(child, self.name) else None
        base = child.expr if isinstance(child, MemberExpr) else child.base if isinstance(child, IndexExpr) else None
        if isinstance(base, NameExpr) and base.name == self.name:
            return base  # an item's values
        printed = isinstance(parent, CallExpr) and (fullnames.called(parent) in READING_CALLS or is_format(parent.callee))
        return child if printed and same_name(child, self.name) else None

    def bound_by(self, statement: Statement) -> bool:
        bound = statements.assigned_names(Block([statement])) | {getattr(statement, "name", None)}
        return self.name in bound or (self.function is not None and self.function in bound)

    def ends(self, statement: Statement) -> bool:
        """Bound again, and what is not read through (``del``, ...)."""
        return self.bound_by(statement) or not isinstance(statement, READ_THROUGH)

    def binds(self, target: Expression) -> bool:
        return same_name(target, self.name) or (isinstance(target, (TupleExpr, ListExpr)) and any(map(self.binds, target.items)))

    def binds_any(self, names: set[str]) -> bool:
        return self.name in names


READ_THROUGH: Final = (
    ExpressionStmt,
    AssertStmt,
    ReturnStmt,
    RaiseStmt,
    AssignmentStmt,
    OperatorAssignmentStmt,
    PassStmt,
    Import,
    ImportFrom,
    ImportAll,
    GlobalDecl,
    NonlocalDecl,
    FuncDef,
    Decorator,
    ClassDef,
)
"""The statements without blocks after which the donated name still holds the deleted array,
unless they bind it."""


def is_format(callee: Expression) -> bool:
    return isinstance(callee, MemberExpr) and isinstance(callee.expr, StrExpr) and callee.name == "format"


def needs_values(parent: Expression, child: Expression) -> bool:
    """Whether ``parent`` needs the values of ``child`` when it is an array."""
    if isinstance(parent, OpExpr):
        return parent.op in VALUE_OPERATORS
    if isinstance(parent, ComparisonExpr):
        return not any(op in ("is", "is not", "in", "not in") for op in parent.operators)
    if isinstance(parent, UnaryExpr):
        return parent.op in ("-", "+", "~")
    if isinstance(parent, IndexExpr):
        return child is parent.base
    if isinstance(parent, MemberExpr):
        return parent.name not in METADATA and parent.name in sites.ARRAY_METHODS | {"at", "T", "real", "imag"}
    if isinstance(parent, CallExpr) and child is not parent.callee:
        fullname = (parent.callee.fullname or "") if isinstance(parent.callee, RefExpr) else ""
        return fullname in READING_CALLS or fullname.startswith(fullnames.JAX_NUMPY_PREFIXES) or is_format(parent.callee)
    return False


def same_name(node: Expression, name: str) -> bool:
    return isinstance(node, NameExpr) and node.name == name


def report_passed_twice(api: CheckerPluginInterface, again: NameExpr, name: str, function: str, pytree: bool) -> None:
    """A pytree's copy copies each leaf (``dict.copy()`` would keep the same arrays)."""
    copy = f"jax.tree.map(lambda leaf: leaf.copy(), {name})" if pytree else f"{name}.copy()"
    notes = [PASS_A_COPY.format(copy=copy, name=name)]
    reporting.error_with_notes(api, again, CODE, PASSED_TWICE.format(name=name, function=function), notes)


def report_read(api: CheckerPluginInterface, read: NameExpr, name: str, function: str, call: Context) -> None:
    reporting.error_with_notes(
        api,
        read,
        CODE,
        READ_AFTER_DONATION.format(name=name, function=function, line=call.line),
        [USE_THE_RESULT.format(function=function, name=name)],
    )


RULE: Final = Rule(CODE, method_hooks={jitted.CALL: on_call})
