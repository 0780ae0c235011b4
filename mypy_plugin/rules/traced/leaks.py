"""Where a tracer stored outside the trace is used after it: ``jax-leaked-tracer``.

A transformed function that keeps a tracer where it outlives the trace (``history.append(loss)``
on a global list, ``global cache``, ``self.last = y`` in a jitted bound method: the walk's
``sites.LEAK``) leaves a tracer whose trace has ended. Printing it, its ``len``, its ``shape``
run; computing with it raises ``UnexpectedTracerError`` (measured on 0.10.2: an operator, a
comparison, a ``jax.numpy`` function, an array method, ``sum``/``max``/``min`` of the list; not
``jnp.asarray`` nor ``jax.device_get``, which hand the tracer back). So a store is reported only
where the module computes with what it stored after a call of the function
(``analyses/later_reads.py`` reads what runs after the call), until the holder is bound again or
handed to anything else. A store never used so is not reported: it raises nothing.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    AssignmentStmt,
    CallExpr,
    ComparisonExpr,
    DelStmt,
    Expression,
    IndexExpr,
    IntExpr,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    OpExpr,
    Statement,
    StrExpr,
    TupleExpr,
    UnaryExpr,
)

from mypy_plugin.analyses import sites
from mypy_plugin.lib import nodes

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
    """Where the tracer is kept, as the module reads it after the call (what ``later_reads``
    looks for, a ``Gone``): ``root`` is the name that holds it (a global, a closure's variable,
    an object); ``attribute`` or ``key`` the part of it (``model.last``, ``stats["loss"]``);
    ``appended`` for a list the function appends to (its last item, ``history[-1]``, and the
    whole list, ``sum(history)``)."""

    __slots__ = ("root", "attribute", "key", "appended", "only_appended")
    anywhere = False  # the report is made at the store: its use must run whenever the store does

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

    # What ``later_reads`` asks of what is gone

    def read(self, parent: Expression, child: Expression) -> Expression | None:
        return parent if computes_with(parent, child, self) else None

    def bound_by(self, statement: Statement) -> bool:
        targets = [*statement.lvalues] if isinstance(statement, AssignmentStmt) else []
        targets += [statement.lvalue] if isinstance(statement, OperatorAssignmentStmt) else []
        return any(self.binds(target) for target in targets)

    def ends(self, statement: Statement) -> bool:
        return touches(statement, self)

    def binds(self, target: Expression) -> bool:
        if isinstance(target, (TupleExpr, ListExpr)):
            return any(self.binds(item) for item in target.items)
        return self.is_item(target) or self.names_root(target)

    def binds_any(self, names: set[str]) -> bool:
        return self.root.name in names


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


def touches(statement: Statement, holder: Holder) -> bool:
    """Whether ``statement`` binds the holder, or names its root other than to read the stored
    tracer (calls a method of it, passes it on): what it holds after is not known."""
    if isinstance(statement, DelStmt):
        return True
    if holder.bound_by(statement):
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


def computes_with(parent: Expression, child: Expression, holder: Holder) -> bool:
    """Whether ``parent`` computes with ``child``, the stored tracer (or the list holding it)."""
    if isinstance(parent, OpExpr) and parent.op in COMPUTING_OPERATORS:
        return holder.is_item(child)
    if isinstance(parent, ComparisonExpr):
        return not any(op in ("is", "is not", "in", "not in") for op in parent.operators) and holder.is_item(child)
    if isinstance(parent, UnaryExpr):
        return parent.op in ("-", "+", "~") and holder.is_item(child)
    if not isinstance(parent, CallExpr):
        return False
    callee = parent.callee
    if child is callee:  # "history[-1].sum()"
        return isinstance(callee, MemberExpr) and callee.name in sites.ARRAY_STAGING_METHODS and holder.is_item(callee.expr)
    fullname = getattr(callee, "fullname", "") or ""
    if fullname.startswith(COMPUTING_MODULES) and fullname not in HANDING_BACK:
        return holder.is_item(child) or holder.is_whole_list(child)
    return fullname in REDUCING_BUILTINS and child is parent.args[0] and holder.is_whole_list(child)
