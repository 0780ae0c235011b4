"""Where a tracer stored outside the trace is used after it: ``jax-leaked-tracer``.

A transformed function that keeps a tracer where it outlives the trace (``history.append(loss)``
on a global list, ``global cache``, ``self.last = y`` in a jitted bound method: the walk's
``sites.LEAK``) leaves a tracer whose trace has ended. Printing it, its ``len``, its ``shape``
run; computing with it raises ``UnexpectedTracerError`` (measured on 0.10.2: an operator, a
comparison, a ``jax.numpy`` function, an array method, ``sum``/``max``/``min`` of the list; not
``jnp.asarray`` nor ``jax.device_get``, which hand the tracer back). So a store is reported only
where the module computes with what it stored after a call of the function, on the path that
certainly runs after it: the statements that follow the call in its block, and after the loops
and ``with`` blocks around it (not after an ``if``, a ``try`` or a function around it), until the
holder is bound again or handed to anything else. A store never used so is not reported: it
raises nothing.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    AssertStmt,
    AssignmentStmt,
    CallExpr,
    ComparisonExpr,
    ConditionalExpr,
    Decorator,
    DelStmt,
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
    IntExpr,
    LambdaExpr,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    OpExpr,
    PassStmt,
    ReturnStmt,
    Statement,
    StrExpr,
    UnaryExpr,
    WhileStmt,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.analyses import sites, transforms
from mypy_plugin.lib import checked_module, nodes

COMPUTING_OPERATORS: Final = frozenset({"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"})
HANDING_BACK: Final = frozenset(
    f"jax.numpy.{name}" for name in ("asarray", "shape", "ndim", "size", "result_type", "isscalar", "iscomplexobj", "isrealobj")
)
"""``jax.numpy`` functions that return a leaked tracer or read only its type (measured: they run)."""
COMPUTING_MODULES: Final = ("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.", "jax.scipy.")
"""JAX's modules whose functions compute with their arguments (measured for ``jax.numpy`` and
``jax.random.normal``: a leaked tracer there raises)."""
PASSIVE_READS: Final = frozenset({"builtins.print", "builtins.len", "builtins.repr", "builtins.str"})
"""Builtins that read a list without changing it or computing with its items (measured: they run)."""
REDUCING_BUILTINS: Final = frozenset({"builtins.sum", "builtins.max", "builtins.min"})
"""Python's builtins that compute with every item of a list: one leaked tracer there raises."""


class Holder:
    """Where the tracer is kept, as the module reads it after the call: ``root`` is the name
    that holds it (a global, a closure's variable, an object); ``attribute`` or ``key`` the
    part of it (``model.last``, ``stats["loss"]``); ``appended`` for a list the function
    appends to (its last item, ``history[-1]``, and the whole list, ``sum(history)``)."""

    __slots__ = ("root", "attribute", "key", "appended", "only_appended")

    def __init__(self, root: NameExpr, attribute: str | None = None, key: object = None, appended: bool = False) -> None:
        self.root = root
        self.attribute = attribute
        self.key = key
        self.appended = appended
        self.only_appended = False
        """Whether the list starts empty where it is made (``history = []``, its one binding):
        every item is then one the function appended (``history[0]``)."""

    def written(self) -> str:
        """How the module names the place: ``history``, ``model.last``, ``stats["loss"]``."""
        if self.attribute is not None:
            return f"{self.root.name}.{self.attribute}"
        if self.key is not None:
            return f'{self.root.name}["{self.key}"]' if isinstance(self.key, str) else f"{self.root.name}[{self.key}]"
        return self.root.name

    def names_root(self, node: Node) -> bool:
        return isinstance(node, NameExpr) and node.name == self.root.name and node.node is self.root.node

    def is_item(self, node: Node) -> bool:
        """Whether ``node`` reads the stored tracer."""
        if self.attribute is not None:
            return isinstance(node, MemberExpr) and node.name == self.attribute and self.names_root(node.expr)
        if not self.appended and self.key is None:
            return self.names_root(node)  # a global or a closure's variable
        if not isinstance(node, IndexExpr) or not self.names_root(node.base):
            return False
        index = literal(node.index)
        if self.appended:
            return index == -1 or self.only_appended and isinstance(index, int)
        return index == self.key

    def is_whole_list(self, node: Node) -> bool:
        return self.appended and self.names_root(node)


def holder_of(site: sites.Site, receiver: str | None, instance: Expression | None) -> Holder | None:
    """How the module reads what ``site`` stored. In a method jitted bound to an object
    (``jax.jit(model.step)``), ``receiver`` is its ``self`` and ``instance`` the object as
    written there (``model``)."""
    held = site.holder
    if isinstance(held, NameExpr):
        return Holder(held, appended=site.construct == sites.APPENDED)
    if isinstance(held, IndexExpr) and isinstance(held.base, NameExpr):
        key = literal(held.index)
        return Holder(held.base, key=key) if key is not None else None
    if isinstance(held, MemberExpr) and isinstance(held.expr, NameExpr):
        if held.expr.name != receiver:
            return Holder(held.expr, attribute=held.name)
        return Holder(instance, attribute=held.name) if isinstance(instance, NameExpr) else None
    return None


def starts_empty(tree: MypyFile, root: NameExpr) -> bool:
    """Whether the one assignment in ``tree`` that binds ``root``'s variable is ``= []``."""
    bindings = [
        node.rvalue
        for node in nodes.walk(tree.defs)
        if isinstance(node, AssignmentStmt) and any(isinstance(t, NameExpr) and t.node is root.node for t in node.lvalues)
    ]
    return len(bindings) == 1 and isinstance(bindings[0], ListExpr) and not bindings[0].items


def literal(node: Expression) -> object:
    if isinstance(node, (IntExpr, StrExpr)):
        return node.value
    if isinstance(node, UnaryExpr) and node.op == "-" and isinstance(node.expr, IntExpr):
        return -node.expr.value
    return None


def blocks_after(api: CheckerPluginInterface, call: CallExpr) -> list[list[Statement]]:
    """The statements that certainly run after the statement holding ``call``, block by block:
    the rest of its block, then of the blocks around it while they are loops or ``with``
    blocks. Empty where the call is in a function a transform traces (its tracers are of
    another trace) or the tree cannot be read."""
    chain = checked_module.enclosing_statements(api, call)
    if not chain or not isinstance(chain[-1], (ExpressionStmt, AssignmentStmt)):
        return []
    if any(isinstance(s, Decorator) and any(transforms.transform_of(d) is not None for d in s.decorators) for s in chain):
        return []
    found = []
    for depth in range(len(chain), 0, -1):
        if depth < len(chain) and not isinstance(chain[depth - 1], (ForStmt, WhileStmt, WithStmt)):
            break
        after = checked_module.statements_after(api, chain[:depth])
        if after is None:
            break
        found.append(after)
    return found


def first_use(after: list[list[Statement]], holder: Holder) -> Expression | None:
    """The first expression in ``after`` (blocks' remainders, in the order they run) that
    computes with the stored tracer, before the holder is bound again or handed on."""
    for block in after:
        for statement in block:
            found, stop = use_in_statement(statement, holder)
            if found is not None or stop:
                return found
    return None


def use_in_statement(statement: Statement, holder: Holder) -> tuple[Expression | None, bool]:
    """What ``statement`` does with the holder: a use (found), or it may change or end what
    follows (stop)."""
    if isinstance(statement, (ExpressionStmt, AssignmentStmt, ReturnStmt, AssertStmt, OperatorAssignmentStmt)):
        value = statement.rvalue if isinstance(statement, (AssignmentStmt, OperatorAssignmentStmt)) else statement.expr
        found = use_in(value, holder) if value is not None else None
        if found is not None:
            return found, True
        return None, isinstance(statement, ReturnStmt) or touches(statement, holder)
    if isinstance(statement, WithStmt):
        for block_statement in statement.body.body:
            found, stop = use_in_statement(block_statement, holder)
            if found is not None or stop:
                return found, True
        return None, False
    if isinstance(statement, IfStmt):  # its first condition runs; which branch, is not known
        return use_in(statement.expr[0], holder), True
    if isinstance(statement, (PassStmt, Import, ImportFrom, ImportAll, GlobalDecl, FuncDef, Decorator)):
        return None, False
    if isinstance(statement, (ForStmt, WhileStmt)) and not touches(statement, holder):
        return None, False  # its body may not run: what it uses is not taken
    return None, True  # if, try, del, raise, anything else: what follows is not certain


def touches(statement: Statement, holder: Holder) -> bool:
    """Whether ``statement`` binds the holder, or names its root other than to read the stored
    tracer (calls a method of it, passes it on): what it holds after is not known."""
    if isinstance(statement, DelStmt):
        return True
    targets = [*statement.lvalues] if isinstance(statement, AssignmentStmt) else []
    targets += [statement.lvalue] if isinstance(statement, OperatorAssignmentStmt) else []
    targets += [statement.index] if isinstance(statement, ForStmt) else []
    if any(holder.is_item(target) or holder.names_root(target) for target in targets):
        return True
    pending: list[Node] = [statement]
    while pending:
        node = pending.pop()
        if holder.is_item(node):
            continue
        if holder.names_root(node):
            return True
        if isinstance(node, CallExpr) and getattr(node.callee, "fullname", "") in PASSIVE_READS:
            pending.extend(arg for arg in node.args if not holder.names_root(arg))
            continue
        if holder.attribute is not None and isinstance(node, MemberExpr) and holder.names_root(node.expr):
            continue  # another attribute of the object
        pending.extend(nodes.children(node))
    return False


def use_in(node: Expression, holder: Holder) -> Expression | None:
    """The first part of ``node`` that computes with the stored tracer. Lambdas, comprehensions
    and the arms of a conditional or of ``and``/``or`` are not entered: they may not run."""
    pending: list[Node] = [node]
    while pending:
        current = pending.pop()
        if computes_with(current, holder):
            assert isinstance(current, Expression)  # computes_with says so
            return current
        if isinstance(current, (LambdaExpr, ConditionalExpr)) or (isinstance(current, OpExpr) and current.op in ("and", "or")):
            continue
        pending.extend(reversed(nodes.expression_parts(current) if isinstance(current, Expression) else []))
    return None


def computes_with(node: Node, holder: Holder) -> bool:
    if isinstance(node, OpExpr) and node.op in COMPUTING_OPERATORS:
        return holder.is_item(node.left) or holder.is_item(node.right)
    if isinstance(node, ComparisonExpr) and not any(op in ("is", "is not", "in", "not in") for op in node.operators):
        return any(holder.is_item(operand) for operand in node.operands)
    if isinstance(node, UnaryExpr) and node.op in ("-", "+", "~"):
        return holder.is_item(node.expr)
    if not isinstance(node, CallExpr):
        return False
    callee = node.callee
    fullname = getattr(callee, "fullname", "") or ""
    if fullname.startswith(COMPUTING_MODULES) and fullname not in HANDING_BACK:
        return any(holder.is_item(arg) or holder.is_whole_list(arg) for arg in node.args)
    if fullname in REDUCING_BUILTINS:
        return bool(node.args) and holder.is_whole_list(node.args[0])
    return isinstance(callee, MemberExpr) and callee.name in sites.ARRAY_STAGING_METHODS and holder.is_item(callee.expr)
