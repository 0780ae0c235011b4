"""``jax-donated-buffer`` (``docs/rules/jax-donated-buffer.md``): how the rule finds it.

The plugin keeps, on what ``jax.jit`` returns, the donated parameters whose buffer an output
certainly takes (``rules/jit/donation.py``: only then does JAX delete the argument). At a call of
such a function that passes a ``jax.Array`` variable there, the statements after the call are
read in the order they run (``lib/flow.py``) until the name is bound again on that path: the
first read that needs the array's values (an operator, an index, a computing method, a
``jax.numpy`` function, ``print``, ``float()``, formatting) is reported; its shape, dtype,
``len()`` and ``is_deleted()`` still answer, and a read passed to another function may not touch
the values. The same array passed again in the donating call is reported there. Reads in the
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
    ConditionalExpr,
    Context,
    Decorator,
    DictExpr,
    Expression,
    ExpressionStmt,
    ForStmt,
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
    SetExpr,
    SliceExpr,
    StarExpr,
    Statement,
    StrExpr,
    TupleExpr,
    UnaryExpr,
    Var,
)
from mypy.plugin import CheckerPluginInterface, MethodContext
from mypy.types import Type

from mypy_plugin.analyses import bindings, sites, transforms
from mypy_plugin.lib import arguments, checked_module, errorcodes, flow, fullnames, reporting, statements, types
from mypy_plugin.lib.rule import Rule
from mypy_plugin.rules.jit import jitted
from mypy_plugin.rules.jit.donation import METADATA

CODE: Final = errorcodes.DONATED_BUFFER

READ_AFTER_DONATION: Final = '"{name}" is read after "{function}" took its buffer at line {line} (donated); JAX raises RuntimeError'
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


def read_after(api: CheckerPluginInterface, call: CallExpr, name: str, pytree: bool = False) -> NameExpr | None:
    """The first read of ``name``'s values (of its leaves' values, for a ``pytree`` of arrays)
    after the statement that holds ``call`` (an expression or an assignment), before the name is
    bound again; None where there is none, or where that statement binds it (``x = step(x)``)."""
    chain = checked_module.enclosing_statements(api, call)
    if not chain:
        return None
    holding = chain[-1]
    if not isinstance(holding, (ExpressionStmt, AssignmentStmt)) or binds(holding, name) or any(map(transformed, chain)):
        return None
    after = checked_module.statements_after(api, chain)
    return FirstRead(name, pytree).statements(after) if after is not None else None


def transformed(statement: Statement) -> bool:
    """A function under a transform's decorator (``@jax.jit``): JAX traces the calls in it, and
    ignores donation there."""
    return isinstance(statement, Decorator) and any(transforms.transform_of(node) is not None for node in statement.decorators)


def binds(statement: Statement, name: str) -> bool:
    """Whether ``statement`` (or a block inside it) binds ``name``."""
    return name in statements.assigned_names(Block([statement])) or getattr(statement, "name", None) == name


class Path:
    """One path of the reading: whether the name may have been bound again on it (nothing after
    is then read)."""

    __slots__ = ("bound",)

    def __init__(self, bound: bool = False) -> None:
        self.bound = bound


class FirstRead(flow.Flow[Path]):
    """Reads statements in the order they run for the first read of one name's values, on each
    path until the name is bound again. Reads in the body of a ``try`` with handlers are not
    taken (a handler may catch what JAX raises); a ``match`` subject is not taken for a read."""

    def __init__(self, name: str, pytree: bool = False) -> None:
        super().__init__()
        self.name = name
        self.pytree = pytree
        """Whether the name holds a pytree of arrays (a dict, a tuple, a NamedTuple): its items'
        values are read (``params["w"] + 1``, ``state.w.sum()``), or the whole printed."""
        self.read: NameExpr | None = None

    def statements(self, found: list[Statement]) -> NameExpr | None:
        self.block(Block(found), Path())
        return self.read

    def finished(self) -> bool:
        return self.read is not None

    def fork(self, state: Path) -> Path:
        return Path(state.bound)

    def join(self, state: Path, ends: list[Path]) -> None:
        state.bound = any(end.bound for end in ends)

    def reads(self, node: Expression | None, state: Path) -> None:
        """Take the first read of the name's values in ``node``, where the path still holds the
        donated array."""
        if node is not None and not state.bound and not self.guarded and self.read is None:
            self.read = self.expression(node)

    def simple(self, node: Statement, state: Path) -> bool:
        if isinstance(node, (ExpressionStmt, AssertStmt)):
            self.reads(node.expr, state)
        elif isinstance(node, (ReturnStmt, RaiseStmt)):
            self.reads(node.expr, state)
        elif isinstance(node, AssignmentStmt):  # the value is read first
            self.reads(node.rvalue, state)
        elif isinstance(node, OperatorAssignmentStmt):  # "x += 1" reads x's values
            self.reads(node.rvalue, state)
            if self.read is None and not state.bound and not self.guarded and same_name(node.lvalue, self.name):
                assert isinstance(node.lvalue, NameExpr)  # same_name says so
                self.read = node.lvalue
        elif not isinstance(node, (PassStmt, Import, ImportFrom, ImportAll, GlobalDecl, NonlocalDecl, FuncDef, Decorator, ClassDef)):
            state.bound = True  # del, and what else is not read through
        state.bound = state.bound or binds(node, self.name)
        return super().simple(node, state)

    def condition(self, node: Expression, construct: str, state: Path) -> None:
        self.reads(node, state)

    def target(self, node: ForStmt, state: Path) -> None:
        self.reads(node.expr, state)
        state.bound = state.bound or name_in(node.index, self.name)

    def with_item(self, node: Expression, target: Expression | None, state: Path) -> None:
        self.reads(node, state)
        state.bound = state.bound or (target is not None and name_in(target, self.name))

    def pattern(self, names: set[str], state: Path) -> None:
        state.bound = state.bound or self.name in names

    def expression(self, node: Expression) -> NameExpr | None:
        """The first read of the name's values in ``node``, in the order Python evaluates it."""
        if isinstance(node, NameExpr):
            return None  # a bare use (passed on, returned, stored): its values may not be read
        for child, reads in parts(node):
            found = self.read_in(node, child) if reads else None
            found = found or self.expression(child)
            if found is not None:
                return found
        return None

    def read_in(self, parent: Expression, child: Expression) -> NameExpr | None:
        """The name, where ``parent`` reads the values of ``child`` and ``child`` is the donated
        array, or for a pytree, one of its items (or the whole, printed or formatted)."""
        if not self.pytree:
            return child if isinstance(child, NameExpr) and child.name == self.name else None
        base = child.expr if isinstance(child, MemberExpr) else child.base if isinstance(child, IndexExpr) else None
        if isinstance(base, NameExpr) and base.name == self.name:
            return base  # an item's values
        printed = isinstance(parent, CallExpr) and (fullnames.called(parent) in READING_CALLS or is_format(parent.callee))
        return child if printed and isinstance(child, NameExpr) and child.name == self.name else None


def is_format(callee: Expression) -> bool:
    return isinstance(callee, MemberExpr) and isinstance(callee.expr, StrExpr) and callee.name == "format"


def parts(node: Expression) -> list[tuple[Expression, bool]]:
    """The sub-expressions of ``node`` in evaluation order, each with whether ``node`` needs
    its values when it is an array. Lambdas and comprehensions are not entered."""
    if isinstance(node, OpExpr):
        reads = node.op in VALUE_OPERATORS
        return [(node.left, reads), (node.right, reads)]
    if isinstance(node, ComparisonExpr):
        reads = not any(op in ("is", "is not", "in", "not in") for op in node.operators)
        return [(operand, reads) for operand in node.operands]
    if isinstance(node, UnaryExpr):
        return [(node.expr, node.op in ("-", "+", "~"))]
    if isinstance(node, IndexExpr):
        return [(node.base, True), (node.index, False)]
    if isinstance(node, MemberExpr):
        return [(node.expr, node.name not in METADATA and node.name in sites.ARRAY_METHODS | {"at", "T", "real", "imag"})]
    if isinstance(node, CallExpr):
        callee = node.callee
        fullname = (callee.fullname or "") if isinstance(callee, RefExpr) else ""
        reads = fullname in READING_CALLS or fullname.startswith(fullnames.JAX_NUMPY_PREFIXES) or is_format(callee)
        return [(callee, False), *((arg, reads) for arg in node.args)]
    if isinstance(node, (TupleExpr, ListExpr, SetExpr)):
        return [(item, False) for item in node.items]
    if isinstance(node, DictExpr):
        return [(part, False) for key, value in node.items for part in (key, value) if part is not None]
    if isinstance(node, ConditionalExpr):
        return [(node.cond, False)]  # which branch runs is not known
    if isinstance(node, SliceExpr):
        return [(part, False) for part in (node.begin_index, node.end_index, node.stride) if part is not None]
    if isinstance(node, StarExpr):
        return [(node.expr, False)]
    return []


def same_name(node: Expression, name: str) -> bool:
    return isinstance(node, NameExpr) and node.name == name


def name_in(target: Expression, name: str) -> bool:
    return (
        isinstance(target, NameExpr)
        and target.name == name
        or (isinstance(target, (TupleExpr, ListExpr)) and any(name_in(item, name) for item in target.items))
    )


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
