"""Later reads of a value that is gone: after the statement that calls a function, the first
read of what that call left without its value.

Two families ask it, each saying what is gone and which reads of it raise (a ``Gone``): the
jit family for an array whose buffer a jitted call took by donation (``jax-donated-buffer``),
the traced family for a tracer a transformed function stored where it outlives its trace
(``jax-leaked-tracer``). The reading is the same for both:

- it starts after the statement that holds the call (an expression or an assignment, which
  must not bind the holder again), and goes on after the loops and ``with`` blocks around it,
  which certainly end after it; not out of an ``if``, a ``try`` or a function;
- it reads the statements in the order they run (``lib/flow.py``), into every branch, loop,
  ``try`` and ``match``, each path until the holder is bound again or handed on there. Where the
  report is made at the read, which raises whenever it runs (``Gone.anywhere``), a read on any
  path counts; where it is made elsewhere (at the store of a leaked tracer), only a read on the
  path every run takes: not in a branch, a loop's body, a handler or a case, nor after a
  statement whose branches may leave the block;
- it takes no read in the body of a ``try`` with handlers (a handler may catch what JAX
  raises), none in lambdas and comprehensions, in the arms of a conditional or the right of
  ``and``/``or``, which may not run;
- a call inside a function under a transform's decorator is left alone: JAX traces it there,
  and neither donates nor leaks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from mypy.nodes import (
    AssertStmt,
    AssignmentExpr,
    AssignmentStmt,
    Block,
    BreakStmt,
    CallExpr,
    ComparisonExpr,
    ConditionalExpr,
    ContinueStmt,
    Decorator,
    DictExpr,
    Expression,
    ExpressionStmt,
    ForStmt,
    IfStmt,
    IndexExpr,
    ListExpr,
    MatchStmt,
    MemberExpr,
    OperatorAssignmentStmt,
    OpExpr,
    RaiseStmt,
    ReturnStmt,
    SetExpr,
    SliceExpr,
    StarExpr,
    Statement,
    TryStmt,
    TupleExpr,
    UnaryExpr,
    WhileStmt,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.analyses import transforms
from mypy_plugin.lib import checked_module, flow, nodes, statements

LEAVING: Final = (ReturnStmt, RaiseStmt, BreakStmt, ContinueStmt)
"""Statements that leave the block around the construct holding them."""
LEAVING_A_LOOP: Final = (ReturnStmt, RaiseStmt)
"""Statements in a loop's body that leave the block around the loop (``break`` goes on after it)."""


class Gone(Protocol):
    """What is gone, as one family sees it: where it is held, and which reads of it raise."""

    anywhere: bool
    """Whether a read on any path counts (the report is made at the read), or only one on the
    path every run takes."""

    def read(self, parent: Expression, child: Expression) -> Expression | None:
        """What to report where ``parent`` uses ``child`` (its operand, its argument, the
        object of its attribute) and that use raises on the gone value; else None."""

    def bound_by(self, statement: Statement) -> bool:
        """Whether ``statement`` (without blocks) binds the holder again."""

    def ends(self, statement: Statement) -> bool:
        """Whether, after ``statement`` (without blocks) is read, what the holder holds is no
        longer known: bound again, deleted, or handed to something that may change it."""

    def binds(self, target: Expression) -> bool:
        """Whether a ``for`` or ``with`` target binds the holder."""

    def binds_any(self, names: set[str]) -> bool:
        """Whether a ``case`` pattern binding ``names`` binds the holder."""


def first_read(api: CheckerPluginInterface, call: CallExpr, gone: Gone) -> Expression | None:
    """The first read after the statement holding ``call`` that raises on the gone value; None
    where there is none on any path, or where it cannot be decided."""
    chain = checked_module.enclosing_statements(api, call)
    if not chain or not isinstance(chain[-1], (ExpressionStmt, AssignmentStmt)) or gone.bound_by(chain[-1]):
        return None
    if any(isinstance(s, Decorator) and any(transforms.transform_of(d) is not None for d in s.decorators) for s in chain):
        return None
    after: list[Statement] = []
    for depth in range(len(chain), 0, -1):
        if depth < len(chain) and not isinstance(chain[depth - 1], (ForStmt, WhileStmt, WithStmt)):
            break
        rest = checked_module.statements_after(api, chain[:depth])
        if rest is None:
            break
        after += rest
    return FirstRead(gone).statements(after)


class Path:
    """One path of the reading: whether the holder may hold something else on it (nothing after
    is then read)."""

    __slots__ = ("bound",)

    def __init__(self, bound: bool = False) -> None:
        self.bound = bound


class FirstRead(flow.Flow[Path]):
    """Reads statements in the order they run for the first read of the gone value, on each
    path until the holder is bound again."""

    def __init__(self, gone: Gone) -> None:
        super().__init__()
        self.gone = gone
        self.found: Expression | None = None
        self.rebound = False
        """Whether the expression read now has bound the holder again (``expression``)."""
        self.uncertain = 0
        """How many constructs the reading is in whose block a run may skip (a branch, a loop's
        body, a handler, a case), or after one that may leave: reads there count only
        ``anywhere``."""

    def statements(self, found: list[Statement]) -> Expression | None:
        self.block(Block(found), Path())
        return self.found

    def finished(self) -> bool:
        return self.found is not None

    def fork(self, state: Path) -> Path:
        return Path(state.bound)

    def join(self, state: Path, ends: list[Path]) -> None:
        state.bound = any(end.bound for end in ends)

    def taking(self, state: Path) -> bool:
        """Whether a read here counts: the path still holds the gone value, no handler may
        catch what it raises, and it runs where the report says it does."""
        certain = self.gone.anywhere or not self.uncertain
        return not state.bound and not self.guarded and self.found is None and certain

    def reads(self, node: Expression | None, state: Path) -> None:
        """Take the first read in ``node``, where it counts; after a ``(name := value)`` in it
        that binds the holder (wherever it runs), the holder may hold something else."""
        if node is None:
            return
        if self.taking(state):
            self.rebound = False
            self.found = self.expression(node)
        if self.found is None and not state.bound:
            state.bound = any(type(part) is AssignmentExpr and self.gone.binds(part.target) for part in nodes.walk([node]))

    def simple(self, node: Statement, state: Path) -> bool:
        if isinstance(node, (ExpressionStmt, AssertStmt, ReturnStmt, RaiseStmt)):
            self.reads(node.expr, state)
        elif isinstance(node, AssignmentStmt):  # the value is read first
            self.reads(node.rvalue, state)
        elif isinstance(node, OperatorAssignmentStmt):  # "x += 1" reads x, then binds it
            self.reads(node.rvalue, state)
            if self.taking(state):
                operation = OpExpr(node.op, node.lvalue, node.rvalue)
                operation.set_line(node)
                self.found = self.gone.read(operation, node.lvalue)
        state.bound = state.bound or self.gone.ends(node)
        return super().simple(node, state)

    def condition(self, node: Expression, construct: str, state: Path) -> None:
        self.reads(node, state)  # a first test was read before: it is found again the same

    def target(self, node: ForStmt, state: Path) -> None:
        state.bound = state.bound or self.gone.binds(node.index)

    def with_item(self, node: Expression, target: Expression | None, state: Path) -> None:
        self.reads(node, state)
        state.bound = state.bound or (target is not None and self.gone.binds(target))

    def pattern(self, names: set[str], state: Path) -> None:
        state.bound = state.bound or self.gone.binds_any(names)

    # What a run may skip: its first test, iterable or subject runs, its blocks may not

    def if_statement(self, node: IfStmt, state: Path) -> bool:
        self.reads(node.expr[0], state)
        return self.skippable(node, state, super().if_statement, [*node.body, node.else_body])

    def loop(self, node: WhileStmt | ForStmt, state: Path) -> bool:
        self.reads(node.expr, state)
        return self.skippable(node, state, super().loop, [node.body, node.else_body], LEAVING_A_LOOP)

    def try_statement(self, node: TryStmt, state: Path) -> bool:
        if not node.handlers and node.else_body is None:
            return super().try_statement(node, state)  # the body runs, then "finally"
        return self.skippable(node, state, super().try_statement, [*node.handlers, node.else_body])

    def match_statement(self, node: MatchStmt, state: Path) -> bool:
        self.reads(node.subject, state)
        return self.skippable(node, state, super().match_statement, node.bodies)

    def skippable(
        self,
        node: Statement,
        state: Path,
        walk: Callable[[Any, Path], bool],
        blocks: Sequence[Block | None],
        leaving: tuple[type[Statement], ...] = LEAVING,
    ) -> bool:
        """Walk ``node``'s blocks as a run may skip them; after it, every read is uncertain
        where one of ``blocks`` may leave the block around ``node``."""
        self.uncertain += 1
        try:
            ended = walk(node, state)
        finally:
            self.uncertain -= 1
        if any(isinstance(inner, leaving) for block in blocks if block is not None for inner in statements.statements_in(block)):
            self.uncertain += 1  # for the rest of the reading
        return ended

    def expression(self, node: Expression) -> Expression | None:
        """The first read in ``node``, in the order Python evaluates it, until a ``(name :=
        value)`` binds the holder (``rebound``)."""
        for child in evaluated_parts(node):
            found = self.gone.read(node, child) or self.expression(child)
            if found is not None or self.rebound:
                return found
        if type(node) is AssignmentExpr and self.gone.binds(node.target):
            self.rebound = True
        return None


def evaluated_parts(node: Expression) -> list[Expression]:
    """The parts of ``node`` that certainly run when it does, in the order they run. Lambdas and
    comprehensions are not entered, nor the arms of a conditional nor the right of ``and`` and
    ``or``."""
    if isinstance(node, OpExpr):
        return [node.left] if node.op in ("and", "or") else [node.left, node.right]
    if isinstance(node, ComparisonExpr):
        return list(node.operands)
    if isinstance(node, (UnaryExpr, StarExpr)):
        return [node.expr]
    if isinstance(node, IndexExpr):
        return [node.base, node.index]
    if isinstance(node, MemberExpr):
        return [node.expr]
    if isinstance(node, CallExpr):
        return [node.callee, *node.args]
    if isinstance(node, (TupleExpr, ListExpr, SetExpr)):
        return list(node.items)
    if isinstance(node, DictExpr):
        return [part for key, value in node.items for part in (key, value) if part is not None]
    if isinstance(node, ConditionalExpr):
        return [node.cond]
    if isinstance(node, AssignmentExpr):
        return [node.value]
    if isinstance(node, SliceExpr):
        return [part for part in (node.begin_index, node.end_index, node.stride) if part is not None]
    return []
