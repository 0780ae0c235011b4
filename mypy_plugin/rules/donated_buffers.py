"""``jax-donated-buffer``: an array read after a jitted function took its buffer.

``jax.jit(f, donate_argnums=...)`` (or ``donate_argnames``) lets XLA reuse an argument's buffer
for an output; JAX then deletes the argument, and reading the caller's array afterwards raises
``RuntimeError: Array has been deleted`` (on the CPU too: measured on JAX 0.4.31, 0.7.2, 0.10.2
and 0.12.0.1). ``x = step(x)`` is the JAX way: the name holds the result from then on.

The plugin keeps, on what ``jax.jit`` returns, the donated parameters whose buffer an output
certainly takes (``lib/donation.py``: only then does JAX delete the argument). At a call of such
a function that passes a ``jax.Array`` variable there, the statements after the call, in the same
block and the blocks inside them, are read in order until the name is bound again: the first
read that needs the array's values (an operator, an index, a computing method, a ``jax.numpy``
function, ``print``, ``float()``, formatting) is reported. Its shape, dtype, ``len()`` and
``is_deleted()`` still answer, and a read passed to another function may not touch the values:
neither is reported. The same array passed again in the donating call is reported there: XLA
refuses it (``INVALID_ARGUMENT: Attempt to use a buffer that was previously donated in the same
call``, an ``XlaRuntimeError`` before JAX 0.8, a ``JaxRuntimeError`` since: both RuntimeErrors).
A name bound in any branch of a compound statement ends the reading
after it; ``try`` statements, loops that call again and the call's own statement are left
alone, and so is a call inside a function under a transform's decorator, where JAX traces the
call and ignores donation (a function jitted by a call elsewhere, ``jax.jit(train)``, is not
known here).
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
    IfStmt,
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
    WhileStmt,
)
from mypy.plugin import CheckerPluginInterface, MethodContext
from mypy.types import Type

from mypy_plugin.lib import (
    arguments,
    checked_module,
    errorcodes,
    fullnames,
    jitted,
    mypy_internals,
    reporting,
    statements,
    tracing,
    transforms,
    types,
)
from mypy_plugin.lib.donation import METADATA
from mypy_plugin.lib.rule import Rule

CODE: Final = errorcodes.DONATED_BUFFER

READ_AFTER_DONATION: Final = '"{name}" is read after "{function}" took its buffer at line {line} (donated); JAX raises RuntimeError'
USE_THE_RESULT: Final = (
    'Use what "{function}" returns, which holds that buffer: rebind the name to it (the JAX way: "{name} = {function}(...)"), or '
    'keep "{name}" by not donating it'
)
PASSED_TWICE: Final = '"{name}" is passed to "{function}" again, in the call that takes its buffer (donated); JAX raises RuntimeError'
PASS_A_COPY: Final = 'Pass a copy where it is not donated ("{name}.copy()"), or do not donate "{name}"'
READING_CALLS: Final = frozenset({"builtins.print", "builtins.str", "builtins.repr", "builtins.float", "builtins.int", "builtins.bool"})
"""Python functions that need an array's values (each raises on a deleted one: ``print`` measured)."""
VALUE_OPERATORS: Final = frozenset({"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"})


def on_call(ctx: MethodContext) -> Type:
    """A call of a jitted function that deletes a donated argument: a later read of it."""
    kept = jitted.jitted_signature_of(ctx.type)
    call = ctx.context
    if kept is None or not kept.deleted or not isinstance(call, CallExpr):
        return ctx.default_return_type
    function = (kept.signature.name or "the function").partition(" of ")[0]
    given = arguments.against(ctx, kept.signature)
    for name, arg, typ in given:
        if name in kept.deleted and isinstance(arg, NameExpr) and isinstance(arg.node, Var) and types.is_array(typ):
            again = next(
                (other for _, other, _ in given if other is not arg and isinstance(other, NameExpr) and other.name == arg.name), None
            )
            if again is not None:
                report_passed_twice(ctx.api, again, arg.name, function)
                continue
            read = read_after(ctx.api, call, arg.name)
            if read is not None:
                report_read(ctx.api, read, arg.name, function, call)
    return ctx.default_return_type


def read_after(api: CheckerPluginInterface, call: CallExpr, name: str) -> NameExpr | None:
    """The first read of ``name``'s values after the statement that holds ``call`` (an
    expression or an assignment), before the name is bound again; None where there is none,
    or where that statement binds it (``x = step(x)``)."""
    chain = checked_module.enclosing_statements(api, call)
    tree = mypy_internals.module_tree(api)
    if not chain or tree is None:
        return None
    holding = chain[-1]
    if not isinstance(holding, (ExpressionStmt, AssignmentStmt)) or binds(holding, name) or any(map(transformed, chain)):
        return None
    for block in blocks_around(chain[-2] if len(chain) > 1 else None, tree.defs):
        index = next((i for i, statement in enumerate(block) if statement is holding), None)
        if index is not None:
            return Reader(name).statements(block[index + 1 :])
    return None


def transformed(statement: Statement) -> bool:
    """A function under a transform's decorator (``@jax.jit``): JAX traces the calls in it, and
    ignores donation there."""
    return isinstance(statement, Decorator) and any(transforms.transform_of(node) is not None for node in statement.decorators)


def blocks_around(parent: Statement | None, module: list[Statement]) -> list[list[Statement]]:
    """The statement lists directly inside ``parent`` (the module's top level for None)."""
    if parent is None:
        return [module]
    return [block.body for block in (*statements.compound_blocks(parent), *checked_module.definition_blocks(parent))]


def binds(statement: Statement, name: str) -> bool:
    """Whether ``statement`` (or a block inside it) binds ``name``."""
    return name in statements.assigned_names(Block([statement])) or getattr(statement, "name", None) == name


class Reader:
    """Reads statements in order for the first read of one name's values, until it is bound."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stopped = False
        """Whether the name may have been bound again on some path (nothing after is read)."""

    def statements(self, found: list[Statement]) -> NameExpr | None:
        for statement in found:
            read = self.statement(statement)
            if read is not None or self.stopped:
                return read
        return None

    def statement(self, node: Statement) -> NameExpr | None:
        if isinstance(node, IfStmt):
            read = self.expression(node.expr[0])
            for block in (*node.body, node.else_body):
                if read is None and block is not None:
                    read = Reader(self.name).statements(block.body)
            self.stopped = binds(node, self.name)
            return read
        if isinstance(node, (WhileStmt, ForStmt)):
            read = self.expression(node.expr)
            if read is None and not (isinstance(node, ForStmt) and name_in(node.index, self.name)):
                read = Reader(self.name).statements(node.body.body)
            self.stopped = binds(node, self.name)
            return read
        if isinstance(node, (ExpressionStmt, AssertStmt)):
            return self.expression(node.expr)
        if isinstance(node, (ReturnStmt, RaiseStmt)):
            self.stopped = True
            return self.expression(node.expr) if node.expr is not None else None
        if isinstance(node, AssignmentStmt):  # the value is read first
            read = self.expression(node.rvalue)
            self.stopped = binds(node, self.name)
            return read
        if isinstance(node, OperatorAssignmentStmt):  # "x += 1" reads x's values
            read = self.expression(node.rvalue)
            if read is None and isinstance(node.lvalue, NameExpr) and node.lvalue.name == self.name:
                read = node.lvalue
            self.stopped = binds(node, self.name)
            return read
        if isinstance(node, (PassStmt, Import, ImportFrom, ImportAll, GlobalDecl, NonlocalDecl, FuncDef, Decorator, ClassDef)):
            self.stopped = binds(node, self.name)
            return None
        self.stopped = True  # try, with, del, match: not read through
        return None

    def expression(self, node: Expression) -> NameExpr | None:
        """The first read of the name's values in ``node``, in the order Python evaluates it."""
        if isinstance(node, NameExpr):
            return None  # a bare use (passed on, returned, stored): its values may not be read
        for child, reads in parts(node):
            if reads and isinstance(child, NameExpr) and child.name == self.name:
                return child
            found = self.expression(child)
            if found is not None:
                return found
        return None


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
        return [(node.expr, node.name not in METADATA and node.name in tracing.ARRAY_METHODS | {"at", "T", "real", "imag"})]
    if isinstance(node, CallExpr):
        callee = node.callee
        fullname = (callee.fullname or "") if isinstance(callee, RefExpr) else ""
        formats = isinstance(callee, MemberExpr) and isinstance(callee.expr, StrExpr) and callee.name == "format"
        reads = fullname in READING_CALLS or fullname.startswith(fullnames.JNP) or formats
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


def report_passed_twice(api: CheckerPluginInterface, again: NameExpr, name: str, function: str) -> None:
    reporting.error_with_notes(api, again, CODE, PASSED_TWICE.format(name=name, function=function), [PASS_A_COPY.format(name=name)])


def report_read(api: CheckerPluginInterface, read: NameExpr, name: str, function: str, call: Context) -> None:
    reporting.error_with_notes(
        api,
        read,
        CODE,
        READ_AFTER_DONATION.format(name=name, function=function, line=call.line),
        [USE_THE_RESULT.format(function=function, name=name)],
    )


RULE: Final = Rule(CODE, method_hooks={jitted.CALL: on_call})
