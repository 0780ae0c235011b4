"""Every node inside statements, and every call, for the searches that look inside a body.

mypy's ``TraverserVisitor`` is compiled and cannot be subclassed by a plugin, so this walks the
nodes a search needs by hand: the expressions of each statement, the blocks of compound ones
(``statements.compound_blocks``), and the bodies of the functions, lambdas and classes defined
there, without recursion (a deep expression is walked with a stack).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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


def walk(found: Sequence[Node], into_lambdas: bool = True) -> Iterator[Node]:
    """Every node in ``found``, in the blocks inside them and in the bodies defined there (a
    lambda's body only ``into_lambdas``), in the order they are written."""
    pending: list[Node] = list(reversed(found))
    while pending:
        node = pending.pop()
        yield node
        if into_lambdas or not isinstance(node, LambdaExpr):
            pending.extend(reversed(children(node)))


def calls_written_by(statement: Statement) -> Iterator[CallExpr]:
    """Every call in ``statement``'s own expressions: for a compound statement its header (the
    test of ``if``, the decorators of a ``def``), not the blocks inside it."""
    own = [part for part in statement_parts(statement) if isinstance(part, Expression)]
    return (node for node in walk(own) if isinstance(node, CallExpr))


def calls_run_by(found: list[Statement]) -> Iterator[CallExpr]:
    """The calls that run when ``found`` runs: every call in it but those in a lambda's body,
    which runs where the lambda is called (``{"swish": lambda x: Swish()(x)}`` makes no module
    where the table is written, but inside the method that calls it)."""
    return (node for node in walk(found, into_lambdas=False) if isinstance(node, CallExpr))


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
