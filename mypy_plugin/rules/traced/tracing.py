"""Where a function a JAX transform traces needs the Python value of a tracer: the walk.

One walk of the function's statements in the order they run (``lib/flow.py``) follows which
values are certainly tracers (``values.py``): a traced parameter (``transforms.py``), anything
computed from one (``expressions.py``), what a call gives (``calls.py``: a JAX function under a
staging transform, a helper of the module walked with the tracers it is given). Every other value
is undecided and never reported. Where branches disagree the value is undecided; loops are
walked twice so that a value traced by the end of one turn is seen at the start of the next.
``with jax.ensure_compile_time_eval():`` blocks, and the functions and lambdas defined inside
are not walked, unless called there (as helpers, with their closure's states) or given to a
transform.

The walk records each *site* (``sites.py``); the rule decides what to say. A tracer stored by a
statement of the transformed function's own body where it outlives the trace (``stored``) is a
site too: ``rules/traced/leaks.py`` finds where the module uses it after the call.
"""

from __future__ import annotations

import functools
from typing import Final

from mypy.nodes import (
    AssertStmt,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    Decorator,
    DelStmt,
    Expression,
    ExpressionStmt,
    ForStmt,
    FuncDef,
    FuncItem,
    GlobalDecl,
    IfStmt,
    IndexExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    NonlocalDecl,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    ReturnStmt,
    Statement,
    TupleExpr,
    UnaryExpr,
    WithStmt,
)

from mypy_plugin.analyses import sites
from mypy_plugin.analyses.sites import Site
from mypy_plugin.analyses.transforms import TransformedFunction, receiver_of
from mypy_plugin.analyses.values import CANDIDATE, ITEM, TRACED, Env, State, is_traced, merge_all, merge_envs
from mypy_plugin.lib import flow, fullnames, mypy_internals, statements
from mypy_plugin.rules.traced.calls import Calls
from mypy_plugin.rules.traced.expressions import Expressions
from mypy_plugin.rules.traced.trace import Followed, Sites


class Walk(flow.Flow[Env]):
    """The walk of one transformed function, or of a helper it calls with tracers (a
    ``trace.Trace``): it reads the statements, and hands itself to the readers of expressions
    and calls; ``sites`` holds what they found."""

    passes = 2

    def __init__(
        self, transformed: TransformedFunction, tree: MypyFile, followed: dict[Followed, State] | None = None, depth: int = 0
    ) -> None:
        super().__init__()
        self.transformed = transformed
        self.staged = transformed.staged
        self.tree = tree
        self.module = tree.fullname
        self.depth = depth
        self.function: FuncItem = transformed.function
        self.sites: Sites = {}
        self.printing = 0
        self.outside: set[str] = set()
        self.defined: set[FuncDef] = set()
        self.followed: dict[Followed, State] = {} if followed is None else followed
        self.expressions = Expressions(self)
        self.calls = Calls(self, self.expressions)
        self.returned: list[State] = []
        self.top_level = {id(statement) for statement in transformed.function.body.body} if depth == 0 else set()
        """The statements of the transformed function's own body, which run on every call: a
        store there certainly happens (``stored``)."""

    def run(self) -> list[Site]:
        leaf = ITEM if self.transformed.arrays_only else CANDIDATE
        env: Env = {name: self.transformed.given.get(name, leaf) for name in self.transformed.leaf_parameters}
        env.update({name: TRACED for name in self.transformed.traced_parameters})
        self.body(self.transformed.function, env)
        return sorted(self.sites.values(), key=lambda site: (site.node.line, site.node.column))

    def body(self, function: FuncItem, env: Env) -> State:
        """Walk ``function``'s body from ``env``; the state of what it returns."""
        if not self.block(function.body, env):
            self.returned.append(None)
        return merge_all(self.returned)

    def helper(self, function: FuncDef, env: Env) -> tuple[State, Sites]:
        walk = Walk(self.transformed, self.tree, self.followed, self.depth + 1)
        walk.function = function
        return walk.body(function, env), walk.sites

    def call(self, node: CallExpr, env: Env) -> State:
        return self.calls.call(node, env)

    def site(self, kind: str, node: Expression, value: Expression, construct: str, callee: str = "", raises: str = "") -> None:
        if self.guarded or (self.transformed.differentiated and not sites.raises_under_grad(kind, construct)):
            return
        key = (kind, node.line, node.column)
        if key not in self.sites:
            self.sites[key] = Site(kind, node, value, construct, self.printing > 0, callee, raises)

    # The paths' states

    def fork(self, state: Env) -> Env:
        return dict(state)

    def join(self, state: Env, ends: list[Env]) -> None:
        merged = merge_envs(ends)
        state.clear()
        state.update(merged)

    # Statements

    def simple(self, node: Statement, state: Env) -> bool:
        if isinstance(node, ExpressionStmt):
            self.expressions.value(node.expr, state)
            self.stored_by_method(node, state)
        elif isinstance(node, AssignmentStmt):
            value = self.expressions.value(node.rvalue, state)
            for target in node.lvalues:
                self.expressions.bind(target, value, state)
                if id(node) in self.top_level:
                    self.stored(target, node.rvalue, value)
        elif isinstance(node, OperatorAssignmentStmt):
            value = self.expressions.operator(
                node.op, self.expressions.value(node.lvalue, state), self.expressions.value(node.rvalue, state)
            )
            self.expressions.bind(node.lvalue, value, state)
        elif isinstance(node, AssertStmt):
            self.expressions.test(node.expr, '"assert"', state)
            if node.msg is not None:
                self.expressions.value(node.msg, state)
        elif isinstance(node, ReturnStmt):
            self.returned.append(self.expressions.value(node.expr, state) if node.expr is not None else None)
        elif isinstance(node, (FuncDef, Decorator, OverloadedFuncDef, ClassDef)):
            state[node.name] = None
            if isinstance(node, FuncDef):
                self.defined.add(node)
        elif isinstance(node, (GlobalDecl, NonlocalDecl)):
            self.outside.update(node.names)
        elif isinstance(node, DelStmt):
            self.expressions.bind(node.expr, None, state)
        # Anything else (import, pass, ...) binds nothing the walk follows.
        return super().simple(node, state)

    # Stores that outlive the trace

    def stored_by_method(self, node: ExpressionStmt, state: Env) -> None:
        """``history.append(loss)`` (``insert``, a set's ``add``) on a list kept outside the
        function, as a statement of its own body."""
        call = node.expr
        if id(node) not in self.top_level or not isinstance(call, CallExpr) or not call.args:
            return
        callee = call.callee
        if isinstance(callee, MemberExpr) and callee.name in STORING_METHODS and self.kept_outside(callee.expr):
            if is_traced(self.expressions.value(call.args[-1], state)):
                self.leak(call.args[-1], callee.expr, sites.APPENDED)

    def stored(self, target: Expression, value: Expression, state: State) -> None:
        """A tracer assigned to a global (``global cache``), to an item of a list or dict kept
        outside (``stats["loss"] = loss``), or to an attribute of an object kept outside or of
        the instance a bound method is jitted with (``self.last = y``); unpacked into globals
        (``key, subkey = jax.random.split(key)``), an item each."""
        if isinstance(target, TupleExpr):
            items = state if isinstance(state, tuple) and len(state) == len(target.items) else [state] * len(target.items)
            for item, item_state in zip(target.items, items):
                if is_traced(item_state) and isinstance(item, NameExpr) and item.name in self.outside:
                    self.leak(value, item)
            return
        if not is_traced(state):
            return
        if isinstance(target, NameExpr) and target.name in self.outside:
            self.leak(value, target)
        elif isinstance(target, IndexExpr) and self.kept_outside(target.base):
            self.leak(value, target)
        elif isinstance(target, MemberExpr) and isinstance(target.expr, NameExpr):
            receiver = receiver_of(self.transformed.function) if self.transformed.bound else None
            if target.expr.name == receiver or self.kept_outside(target.expr):
                self.leak(value, target)

    def kept_outside(self, node: Expression) -> bool:
        """A name the function neither binds nor takes: a global or a closure's variable."""
        return isinstance(node, NameExpr) and node.name not in self.local_names

    @functools.cached_property
    def local_names(self) -> set[str]:
        """The names the transformed function binds or takes, read where a store is first met."""
        function = self.transformed.function
        return statements.assigned_names(function.body) | {arg.variable.name for arg in mypy_internals.parameters(function) or []}

    def leak(self, value: Expression, holder: Expression, how: str = sites.ASSIGNED) -> None:
        if self.guarded:
            return
        key = (sites.LEAK, holder.line, holder.column)
        if key not in self.sites:
            self.sites[key] = Site(sites.LEAK, value, value, how)
            self.sites[key].holder = holder

    def condition(self, node: Expression, construct: str, state: Env) -> None:
        self.expressions.test(node, construct, state)

    def target(self, node: ForStmt, state: Env) -> None:
        self.expressions.bind(node.index, self.expressions.iterated(node.expr, state), state)

    def with_item(self, node: Expression, target: Expression | None, state: Env) -> None:
        self.expressions.value(node, state)
        if target is not None:
            self.expressions.bind(target, None, state)

    def subject(self, node: Expression, state: Env) -> None:
        self.expressions.value(node, state)

    def pattern(self, names: set[str], state: Env) -> None:
        for name in names:
            state[name] = None

    def if_statement(self, node: IfStmt, state: Env) -> bool:
        for name in (name for condition in node.expr for name in isinstance_names(condition)):
            state[name] = None
        # "if cache is None:" on a closure's or a global's name picks a mode of a function that
        # also runs outside the transform (build, then update under jax.lax.cond): which branch
        # the transform sees is not known, so neither branch's sites are recorded
        modes = any(outside_none_test(condition, state) for condition in node.expr)
        self.guarded += modes
        try:
            return super().if_statement(node, state)
        finally:
            self.guarded -= modes

    def with_statement(self, node: WithStmt, state: Env) -> bool:
        if any(fullnames.called(expr) == fullnames.ENSURE_COMPILE_TIME_EVAL for expr in node.expr if isinstance(expr, CallExpr)):
            for name in statements.assigned_names(node.body):
                state[name] = None
            return False
        return super().with_statement(node, state)


STORING_METHODS: Final = frozenset({"append", "insert", "add"})
"""Methods of a list or set that keep their last argument."""


def outside_none_test(condition: Expression, env: Env) -> bool:
    """``name is None`` or ``name is not None`` for a name the walk does not bind (a closure's,
    a global's)."""
    return (
        isinstance(condition, ComparisonExpr)
        and condition.operators in (["is"], ["is not"])
        and isinstance(condition.operands[0], NameExpr)
        and condition.operands[0].name not in env
        and isinstance(condition.operands[1], NameExpr)
        and condition.operands[1].fullname == "builtins.None"
    )


def isinstance_names(condition: Expression) -> list[str]:
    """Names an ``isinstance(name, ...)`` in ``condition`` tests: a tracer passes some such
    tests (``jax.Array``) and fails others (``float``), so which branch, and which code after
    the ``if``, runs with one is undecided (a helper that returns early for an array and
    converts a Python number after)."""
    found = []
    pending = [condition]
    while pending:
        node = pending.pop()
        if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and node.callee.fullname == "builtins.isinstance":
            if node.args and isinstance(node.args[0], NameExpr):
                found.append(node.args[0].name)
        elif isinstance(node, OpExpr):
            pending += [node.left, node.right]
        elif isinstance(node, UnaryExpr):
            pending.append(node.expr)
    return found
