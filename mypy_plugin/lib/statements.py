"""The blocks of compound statements, every statement of a block, and the names a block binds:
what a rule reads of a body whatever order it runs in (``flow.py`` walks it in that order).

Every compound statement is entered the same way wherever a rule looks inside one: both
branches of ``if``, a loop's body and its ``else``, ``with``, ``try`` with its handlers, ``else``
and ``finally``, every case of ``match``. Nested functions and classes are not entered: their
statements are their own.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    AssignmentExpr,
    AssignmentStmt,
    Block,
    Expression,
    ForStmt,
    FuncItem,
    IfStmt,
    ListExpr,
    MatchStmt,
    MemberExpr,
    NameExpr,
    OperatorAssignmentStmt,
    ReturnStmt,
    StarExpr,
    Statement,
    TryStmt,
    TupleExpr,
    WhileStmt,
    WithStmt,
)
from mypy.patterns import AsPattern, ClassPattern, MappingPattern, OrPattern, Pattern, SequencePattern, StarredPattern

from mypy_plugin.lib import mypy_internals

COMPOUND: Final = frozenset({IfStmt, WhileStmt, ForStmt, WithStmt, TryStmt, MatchStmt, Block})
"""The classes of the statements that hold blocks (``compound_blocks``), for a test by exact
class where a reader looks at every statement of a module."""


def compound_blocks(statement: Statement) -> list[Block]:
    """The blocks of a compound statement (``if``, loops, ``with``, ``try``, ``match``; a bare
    block is its own); none for any other statement."""
    if isinstance(statement, IfStmt):
        blocks = [*statement.body, statement.else_body]
    elif isinstance(statement, (WhileStmt, ForStmt)):
        blocks = [statement.body, statement.else_body]
    elif isinstance(statement, WithStmt):
        blocks = [statement.body]
    elif isinstance(statement, TryStmt):
        blocks = [statement.body, *statement.handlers, statement.else_body, statement.finally_body]
    elif isinstance(statement, MatchStmt):
        blocks = list(statement.bodies)
    elif isinstance(statement, Block):
        blocks = [statement]
    else:
        blocks = []
    return [block for block in blocks if block is not None]


def statements_in(block: Block) -> list[Statement]:
    """Every statement of ``block`` and of the compound statements in it, outermost first."""
    found: list[Statement] = []
    pending = [block]
    while pending:
        for statement in pending.pop().body:
            found.append(statement)
            pending.extend(compound_blocks(statement))
    return found


def straight_path(block: Block) -> list[Statement]:
    """The statements of ``block`` that run whenever it does (what no branch, loop or ``try``
    decides): its own, and those of ``with`` blocks in it, up to the first ``return``."""
    found: list[Statement] = []
    for statement in block.body:
        found.append(statement)
        if isinstance(statement, WithStmt):
            found.extend(straight_path(statement.body))
        if isinstance(statement, ReturnStmt):
            break
    return found


def set_on_receiver(method: FuncItem) -> list[tuple[str, Expression]]:
    """``self.<name> = <value>`` (one target) on the straight path of a method's body, each as
    the name and the value: what every call of the method sets on its instance."""
    parameters = mypy_internals.parameters(method)
    if not parameters:
        return []
    receiver = parameters[0].variable.name
    found = []
    for statement in straight_path(method.body):
        if isinstance(statement, AssignmentStmt) and len(statement.lvalues) == 1:
            target = statement.lvalues[0]
            if isinstance(target, MemberExpr) and isinstance(target.expr, NameExpr) and target.expr.name == receiver:
                found.append((target.name, statement.rvalue))
    return found


def assigned_names(block: Block) -> set[str]:
    """The names ``block`` binds anywhere in its statements: assignment and augmented assignment
    targets, loop variables, ``with ... as`` and ``except ... as`` names, the captures of
    ``case`` patterns, and the targets of ``(name := value)`` (those in the functions and lambdas
    defined there too, which bind names of their own: the answer may name more than ``block``
    binds, never fewer, where mypy's traverser can be used)."""
    targets: list[Expression] = [
        expression.target for expression in mypy_internals.subexpressions(block) or [] if type(expression) is AssignmentExpr
    ]
    captured: set[str] = set()
    for statement in statements_in(block):
        if isinstance(statement, AssignmentStmt):
            targets += statement.lvalues
        elif isinstance(statement, OperatorAssignmentStmt):
            targets.append(statement.lvalue)
        elif isinstance(statement, ForStmt):
            targets.append(statement.index)
        elif isinstance(statement, WithStmt):
            targets += [target for target in statement.target if target is not None]
        elif isinstance(statement, TryStmt):
            targets += [name for name in statement.vars if name is not None]
        elif isinstance(statement, MatchStmt):
            for pattern in statement.patterns:
                captured |= pattern_names(pattern)
    found: set[str] = captured
    while targets:
        target = targets.pop()
        if isinstance(target, NameExpr):
            found.add(target.name)
        elif isinstance(target, (TupleExpr, ListExpr)):
            targets += target.items
        elif isinstance(target, StarExpr):
            targets.append(target.expr)
    return found


def pattern_names(pattern: Pattern) -> set[str]:
    """The names a ``case`` pattern binds: ``x`` of ``case x``, ``case [x, *rest]``, ``case
    Point(x=px)``, ``case {"k": v, **more}``, ``case (1 | 2) as n``."""
    found: set[str] = set()
    pending = [pattern]
    while pending:
        current = pending.pop()
        if isinstance(current, AsPattern):
            if current.name is not None:
                found.add(current.name.name)
            if current.pattern is not None:
                pending.append(current.pattern)
        elif isinstance(current, OrPattern):
            pending += current.patterns
        elif isinstance(current, SequencePattern):
            pending += current.patterns
        elif isinstance(current, StarredPattern):
            if current.capture is not None:
                found.add(current.capture.name)
        elif isinstance(current, MappingPattern):
            pending += current.values
            if current.rest is not None:
                found.add(current.rest.name)
        elif isinstance(current, ClassPattern):
            pending += [*current.positionals, *current.keyword_values]
    return found


def assignment_targets(statement: Statement) -> list[Expression]:
    """What an assignment binds (each item of a tuple target); nothing for other statements."""
    if isinstance(statement, OperatorAssignmentStmt):
        return [statement.lvalue]
    if not isinstance(statement, AssignmentStmt):
        return []
    found: list[Expression] = []
    pending: list[Expression] = list(statement.lvalues)
    while pending:
        target = pending.pop(0)
        if isinstance(target, (TupleExpr, ListExpr)):
            pending[:0] = target.items
        elif isinstance(target, StarExpr):
            pending.insert(0, target.expr)
        else:
            found.append(target)
    return found
