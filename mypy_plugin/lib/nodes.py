"""Every call inside statements, and every name of a module by what it refers to, for the
searches that look for where a function is called.

mypy's ``TraverserVisitor`` is compiled and cannot be subclassed by a plugin, so this walks the
nodes a search needs by hand: the expressions of each statement, the blocks of compound ones
(``statements.compound_blocks``), and the bodies of the functions, lambdas and classes defined
there, without recursion (a deep expression is walked with a stack).
"""

from __future__ import annotations

from collections.abc import Iterator

from mypy.nodes import (
    AssertStmt,
    AssignmentExpr,
    AssignmentStmt,
    AwaitExpr,
    Block,
    CallExpr,
    CastExpr,
    ClassDef,
    ComparisonExpr,
    ConditionalExpr,
    Decorator,
    DelStmt,
    DictExpr,
    DictionaryComprehension,
    Expression,
    ExpressionStmt,
    ForStmt,
    FuncDef,
    GeneratorExpr,
    IfStmt,
    IndexExpr,
    LambdaExpr,
    ListComprehension,
    ListExpr,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RaiseStmt,
    RefExpr,
    ReturnStmt,
    SetComprehension,
    SetExpr,
    SliceExpr,
    StarExpr,
    Statement,
    TryStmt,
    TupleExpr,
    UnaryExpr,
    WhileStmt,
    WithStmt,
    YieldExpr,
    YieldFromExpr,
)

from mypy_plugin.lib import statements


def walk(found: list[Statement]) -> Iterator[Node]:
    """Every node in ``found``, in the blocks inside them and in the bodies defined there, in
    the order they are written."""
    pending: list[Node] = list(reversed(found))
    while pending:
        node = pending.pop()
        yield node
        pending.extend(reversed(children(node)))


def calls_in(found: list[Statement]) -> Iterator[CallExpr]:
    """Every call in ``found``, in the blocks inside them and in the bodies defined there."""
    return (node for node in walk(found) if isinstance(node, CallExpr))


def names_a_function(node: Expression) -> bool:
    """A lambda, or a name or module attribute bound by ``def`` (``jnp.tanh``, ``activate``)."""
    return isinstance(node, LambdaExpr) or isinstance(node, RefExpr) and isinstance(node.node, (FuncDef, Decorator, OverloadedFuncDef))


def children(node: Node) -> list[Node]:
    """The statements and expressions directly inside ``node`` that may hold a call."""
    if isinstance(node, Block):
        return list(node.body)
    if isinstance(node, Statement):
        return statement_parts(node)
    return expression_parts(node) if isinstance(node, Expression) else []


def statement_parts(node: Statement) -> list[Node]:
    parts: list[Node] = []
    if isinstance(node, (ExpressionStmt, AssertStmt, DelStmt)):
        parts.append(node.expr)
    elif isinstance(node, AssignmentStmt):
        parts += [node.rvalue, *node.lvalues]
    elif isinstance(node, OperatorAssignmentStmt):
        parts += [node.lvalue, node.rvalue]
    elif isinstance(node, (ReturnStmt, RaiseStmt)) and node.expr is not None:
        parts.append(node.expr)
    elif isinstance(node, IfStmt):
        parts += node.expr
    elif isinstance(node, WhileStmt):
        parts.append(node.expr)
    elif isinstance(node, ForStmt):
        parts += [node.expr, node.index]
    elif isinstance(node, WithStmt):
        parts += node.expr
    elif isinstance(node, MatchStmt):
        parts.append(node.subject)
        parts += [guard for guard in node.guards if guard is not None]
    elif isinstance(node, TryStmt):
        parts += [kind for kind in node.types if kind is not None]
    elif isinstance(node, FuncDef):
        parts.append(node.body)
    elif isinstance(node, Decorator):
        parts += [*node.decorators, node.func.body]
    elif isinstance(node, OverloadedFuncDef):
        parts += node.items
    elif isinstance(node, ClassDef):
        parts += [*node.decorators, node.defs]
    parts += statements.compound_blocks(node)
    return parts


def expression_parts(node: Expression) -> list[Node]:
    if isinstance(node, CallExpr):
        return [node.callee, *node.args]
    if isinstance(node, OpExpr):
        return [node.left, node.right]
    if isinstance(node, ComparisonExpr):
        return list(node.operands)
    if isinstance(node, (UnaryExpr, StarExpr, AwaitExpr, CastExpr, YieldFromExpr)):
        return [node.expr]
    if isinstance(node, YieldExpr):
        return [node.expr] if node.expr is not None else []
    if isinstance(node, MemberExpr):
        return [node.expr]
    if isinstance(node, IndexExpr):
        return [node.base, node.index]
    if isinstance(node, (TupleExpr, ListExpr, SetExpr)):
        return list(node.items)
    if isinstance(node, DictExpr):
        return [part for key, value in node.items for part in (key, value) if part is not None]
    if isinstance(node, ConditionalExpr):
        return [node.cond, node.if_expr, node.else_expr]
    if isinstance(node, SliceExpr):
        return [part for part in (node.begin_index, node.end_index, node.stride) if part is not None]
    if isinstance(node, AssignmentExpr):
        return [node.value]
    if isinstance(node, LambdaExpr):
        return [node.body]
    if isinstance(node, (ListComprehension, SetComprehension)):
        return [node.generator]
    if isinstance(node, GeneratorExpr):
        return [*node.sequences, *(condition for conditions in node.condlists for condition in conditions), node.left_expr]
    if isinstance(node, DictionaryComprehension):
        parts = [*node.sequences, *(condition for conditions in node.condlists for condition in conditions), node.key, node.value]
        return [part for part in parts if part is not None]
    return []


class References:
    """Every name of a module that is read, by name, each with the call it is the callee of (or
    None), and how many assignments bind each name: built in one walk of the module and asked
    for the calls of one function or variable, and whether it is used otherwise (passed on,
    stored, returned: it escapes). Which node a name refers to is read when asked
    (``NameExpr.node``), so a tree that mypy analyses again in place (the daemon) answers as it
    is now."""

    __slots__ = ("bindings", "uses")

    def __init__(self, found: list[Statement]) -> None:
        self.uses: dict[str, list[tuple[NameExpr, CallExpr | None]]] = {}
        self.bindings: dict[str, int] = {}
        callees: set[int] = set()
        bound: set[int] = set()
        pending: list[Node] = list(reversed(found))
        while pending:
            node = pending.pop()
            if isinstance(node, CallExpr) and isinstance(node.callee, NameExpr):
                callees.add(id(node.callee))
                self.uses.setdefault(node.callee.name, []).append((node.callee, node))
            elif isinstance(node, AssignmentStmt):
                for target in node.lvalues:
                    if isinstance(target, NameExpr):
                        bound.add(id(target))
                        self.bindings[target.name] = self.bindings.get(target.name, 0) + 1
            elif isinstance(node, NameExpr) and id(node) not in callees and id(node) not in bound:
                self.uses.setdefault(node.name, []).append((node, None))
            pending.extend(reversed(children(node)))

    def calls(self, name: str, node: object) -> list[CallExpr]:
        """The calls of ``name`` where it refers to ``node``."""
        return [call for use, call in self.uses.get(name, []) if call is not None and use.node is node]

    def escapes(self, name: str, node: object) -> bool:
        """Whether ``name``, referring to ``node``, is used other than called, or bound by more
        than one assignment (which binding a call sees is then not known)."""
        uses = self.uses.get(name, [])
        return self.bindings.get(name, 0) > 1 or any(call is None and use.node is node for use, call in uses)


_last: tuple[MypyFile, References] | None = None


def references(tree: MypyFile) -> References:
    """The ``References`` of ``tree``, built once per tree (the one checked now is kept)."""
    global _last
    if _last is None or _last[0] is not tree:
        _last = (tree, References(tree.defs))
    return _last[1]
