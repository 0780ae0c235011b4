"""The one walk of a function's statements in the order they run, shared by the flow analyses.

Each analysis carries a state along every path (what it knows of the values, or whether a name
was bound again) and says what that state is (``fork``, ``join``) and what the statements
without blocks do to it (``simple``). The walk owns Python's control flow, the same for all:

- ``if``/``elif``/``else``: each branch from the state after its condition; the ends that fall
  through are joined;
- ``while``/``for``: the condition (or the target) then the body, ``passes`` times, each pass
  joined with the state before the loop (the loop may not run, or may break); then ``else``;
- ``with``: each item, then the body;
- ``try``: the body; each handler from the join of the states before and after the body (an
  exception may come from any point of it); ``else`` after the body; ``finally`` on every path.
  While the body of a ``try`` with handlers is walked, ``guarded`` is above zero: a handler may
  catch what JAX raises there, so the analyses report nothing in it;
- ``match``: the subject, then each case from the state before it, its pattern's names bound
  (``pattern_names``) and its guard tested; a match with no catch-all case may run none.

Each statement walker returns whether the path certainly ends there (``return``, ``raise``,
``break``, ``continue``, or every branch ending). Nested functions and classes are statements
like any other: their bodies are their own.
"""

from __future__ import annotations

from typing import Final, Generic, TypeVar

from mypy.nodes import (
    Block,
    BreakStmt,
    ContinueStmt,
    Expression,
    ForStmt,
    IfStmt,
    MatchStmt,
    RaiseStmt,
    ReturnStmt,
    Statement,
    TryStmt,
    WhileStmt,
    WithStmt,
)
from mypy.patterns import AsPattern, Pattern

from mypy_plugin.lib import statements

PathState = TypeVar("PathState")

IF: Final = '"if"'
WHILE: Final = '"while"'
CASE_GUARD: Final = 'a "case" guard'
"""The constructs that test a condition, as messages name them."""
ENDING: Final = (ReturnStmt, RaiseStmt, BreakStmt, ContinueStmt)
"""The simple statements after which nothing more of the path runs."""


class Flow(Generic[PathState]):
    """A walk of statements in the order they run, with a ``PathState`` on each path."""

    passes: int = 1
    """How many times a loop's body is walked: twice lets a value changed by the end of one
    turn be seen at the start of the next."""

    def __init__(self) -> None:
        self.guarded = 0
        """How many bodies of ``try`` statements with handlers the walk is in."""

    # What each analysis says

    def fork(self, state: PathState) -> PathState:
        """A copy of ``state`` for one path."""
        raise NotImplementedError

    def join(self, state: PathState, ends: list[PathState]) -> None:
        """Make ``state`` what holds after any of ``ends`` (never empty)."""
        raise NotImplementedError

    def simple(self, node: Statement, state: PathState) -> bool:
        """A statement without blocks; whether the path ends there."""
        return isinstance(node, ENDING)

    def condition(self, node: Expression, construct: str, state: PathState) -> None:
        """A condition tested by ``construct`` (``IF``, ``WHILE``, ``CASE_GUARD``)."""

    def target(self, node: ForStmt, state: PathState) -> None:
        """A ``for`` loop takes its next item: its iterable, and the target bound."""

    def with_item(self, node: Expression, target: Expression | None, state: PathState) -> None:
        """One item of a ``with`` statement, and the target it binds (or None)."""

    def subject(self, node: Expression, state: PathState) -> None:
        """The subject of a ``match`` statement."""

    def pattern(self, names: set[str], state: PathState) -> None:
        """The names a ``case`` pattern binds."""

    def finished(self) -> bool:
        """Whether the walk has found what it looks for, and stops."""
        return False

    # Python's control flow

    def block(self, block: Block, state: PathState) -> bool:
        """Walk the statements of ``block``; whether the path ends in it."""
        if block.is_unreachable:
            return True
        for statement in block.body:
            if self.finished() or self.statement(statement, state):
                return True
        return False

    def statement(self, node: Statement, state: PathState) -> bool:
        if type(node) not in statements.COMPOUND:  # most statements: one test by exact class
            return self.simple(node, state)
        if isinstance(node, IfStmt):
            return self.if_statement(node, state)
        if isinstance(node, (WhileStmt, ForStmt)):
            return self.loop(node, state)
        if isinstance(node, WithStmt):
            return self.with_statement(node, state)
        if isinstance(node, TryStmt):
            return self.try_statement(node, state)
        if isinstance(node, MatchStmt):
            return self.match_statement(node, state)
        if isinstance(node, Block):
            return self.block(node, state)
        return self.simple(node, state)

    def if_statement(self, node: IfStmt, state: PathState) -> bool:
        ends = []
        for condition, body in zip(node.expr, node.body):
            self.condition(condition, IF, state)
            branch = self.fork(state)
            if not self.block(body, branch):
                ends.append(branch)
        otherwise = self.fork(state)
        if node.else_body is None or not self.block(node.else_body, otherwise):
            ends.append(otherwise)
        return self.joined(state, ends)

    def loop(self, node: WhileStmt | ForStmt, state: PathState) -> bool:
        before = self.fork(state)
        for _ in range(self.passes):
            if isinstance(node, WhileStmt):
                self.condition(node.expr, WHILE, state)
            else:
                self.target(node, state)
            body = self.fork(state)
            self.block(node.body, body)
            self.join(state, [before, body])
        if node.else_body is not None:
            self.block(node.else_body, state)
        return False  # the loop may not run, or may break

    def with_statement(self, node: WithStmt, state: PathState) -> bool:
        for expr, target in zip(node.expr, node.target):
            self.with_item(expr, target, state)
        return self.block(node.body, state)

    def try_statement(self, node: TryStmt, state: PathState) -> bool:
        before = self.fork(state)
        self.guarded += bool(node.handlers)
        try:
            body_ends = self.block(node.body, state)
        finally:
            self.guarded -= bool(node.handlers)
        ends = []
        for handler in node.handlers:
            branch = self.fork(before)
            self.join(branch, [before, self.fork(state)])
            if not self.block(handler, branch):
                ends.append(branch)
        if not body_ends:
            after_body = self.fork(state)
            if node.else_body is None or not self.block(node.else_body, after_body):
                ends.append(after_body)
        ended = self.joined(state, ends)
        if node.finally_body is not None:
            ended = self.block(node.finally_body, state) or ended
        return ended

    def match_statement(self, node: MatchStmt, state: PathState) -> bool:
        self.subject(node.subject, state)
        ends = []
        for pattern, guard, body in zip(node.patterns, node.guards, node.bodies):
            branch = self.fork(state)
            self.pattern(statements.pattern_names(pattern), branch)
            if guard is not None:
                self.condition(guard, CASE_GUARD, branch)
            if not self.block(body, branch):
                ends.append(branch)
        last = node.patterns[-1] if node.patterns else None
        if last is None or not catches_all(last) or node.guards[-1] is not None:
            ends.append(self.fork(state))  # no case may match
        return self.joined(state, ends)

    def joined(self, state: PathState, ends: list[PathState]) -> bool:
        """``state`` made the join of ``ends``; whether every path ended (no end to join)."""
        if ends:
            self.join(state, ends)
        return not ends


def catches_all(pattern: Pattern) -> bool:
    """``case _:`` and ``case name:``, which match any subject."""
    return isinstance(pattern, AsPattern) and pattern.pattern is None
