"""The traced-value walk's reading of expressions: the state of each value, and the sites inside.

``Expressions`` evaluates an expression on one path (``values.Env``): names, attributes,
operators, comparisons, indexing, literals and comprehensions; truth tests record a site, and a
use that only an array serves proves a ``CANDIDATE`` a tracer on that path. Calls are read
by ``calls.Calls``, statements by the walk (``tracing.Walk``), which both are handed.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    LDEF,
    AssignmentExpr,
    BytesExpr,
    CallExpr,
    ComparisonExpr,
    ComplexExpr,
    ConditionalExpr,
    DictExpr,
    DictionaryComprehension,
    EllipsisExpr,
    Expression,
    FloatExpr,
    FuncDef,
    GeneratorExpr,
    IndexExpr,
    IntExpr,
    LambdaExpr,
    ListComprehension,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    RefExpr,
    SetComprehension,
    SliceExpr,
    StarExpr,
    StrExpr,
    TupleExpr,
    UnaryExpr,
    Var,
    YieldExpr,
)

from mypy_plugin.analyses import bindings, sites
from mypy_plugin.analyses.sites import BOOL, BOOLEAN_MASK, INDEX, NUMPY_CONVERSION, SLICE
from mypy_plugin.analyses.transforms import receiver_of
from mypy_plugin.analyses.values import (
    CANDIDATE,
    CONCRETE_ARRAY,
    ITEM,
    MAPPING,
    NUMPY_ARRAY,
    PYTHON_DICT,
    PYTHON_LIST,
    SEQUENCE,
    TRACED,
    TRACED_MASK,
    Env,
    State,
    holds_tracers,
    is_number,
    is_traced,
    merge_all,
    merge_envs,
    python_container,
    staged_by_operation,
)
from mypy_plugin.lib import release, types
from mypy_plugin.lib.source import int_literal
from mypy_plugin.rules.traced.trace import Trace

NUMBER_ONLY_OPERATORS: Final = frozenset({"-", "/", "//", "**", "@", "%"})
"""Operators no list, dict or tuple supports: with a ``CANDIDATE`` operand, a tracer."""
ORDER_OPERATORS: Final = frozenset({"<", "<=", ">", ">="})
CONDITIONAL: Final = "a conditional expression"
COMPREHENSION_CONDITION: Final = "a comprehension condition"
"""Constructs that test a value, as messages name them."""


NOT_FOLLOWED: Final = frozenset({IntExpr, FloatExpr, ComplexExpr, StrExpr, BytesExpr, EllipsisExpr, LambdaExpr})
"""Expressions whose value is no tracer and that hold no site (a lambda's body is walked where
it is called), answered before the other tests."""


class Expressions:
    """The evaluation of expressions for one walk (``trace.Trace``), which records the sites
    found inside them and evaluates calls."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def value(self, node: Expression, env: Env) -> State:
        """The state of ``node``'s value; sites inside it are recorded on the way."""
        if isinstance(node, NameExpr):
            if node.kind == LDEF and node.name not in self.trace.outside and node.name in env:
                return env[node.name]
            return self.from_outside(node)
        if type(node) in NOT_FOLLOWED:
            return None
        if isinstance(node, MemberExpr):
            base = self.value(node.expr, env)
            if node.name in sites.CONCRETE_ATTRIBUTES:
                return None
            if base == CONCRETE_ARRAY:
                return None  # some attributes are Python values of the concrete array (".is_fully_replicated")
            return TRACED if is_traced(base) else self.array_field(node)
        if isinstance(node, IndexExpr):
            return self.index(node, env)
        if isinstance(node, CallExpr):
            return self.trace.call(node, env)
        if isinstance(node, OpExpr):
            if node.op in ("and", "or"):
                self.test(node.left, f'"{node.op}"', env)
                self.on_some_paths([node.right], env)
                return None
            return self.operator(node.op, self.value(node.left, env), self.value(node.right, env), node.left, node.right)
        if isinstance(node, ComparisonExpr):
            return self.comparison(node, env)
        if isinstance(node, UnaryExpr):
            if node.op == "not":
                self.test(node.expr, '"not"', env)
                return None
            state = self.value(node.expr, env)
            if node.op == "~":
                return TRACED_MASK if state == TRACED_MASK else (TRACED if holds_tracers(state) or state == CONCRETE_ARRAY else None)
            return TRACED if holds_tracers(state) or state == CONCRETE_ARRAY else None
        if isinstance(node, ConditionalExpr):
            self.test(node.cond, CONDITIONAL, env)
            return merge_all(self.on_some_paths([node.if_expr, node.else_expr], env))
        if isinstance(node, TupleExpr):
            return tuple(self.value(item, env) for item in node.items)
        if isinstance(node, ListExpr):
            for item in node.items:
                self.value(item, env)
            return PYTHON_LIST
        if isinstance(node, DictExpr):
            for key, item in node.items:
                for part in (key, item):
                    if part is not None:
                        self.value(part, env)
            return PYTHON_DICT
        if isinstance(node, (ListComprehension, SetComprehension)):
            self.comprehension(node.generator, env)
            return PYTHON_LIST if isinstance(node, ListComprehension) else None
        if isinstance(node, GeneratorExpr):
            self.comprehension(node, env)
            return None
        if isinstance(node, DictionaryComprehension):
            return None
        if isinstance(node, AssignmentExpr):
            state = self.value(node.value, env)
            self.bind(node.target, state, env)
            return state
        if isinstance(node, StarExpr):
            self.value(node.expr, env)
            return None
        if isinstance(node, YieldExpr) and node.expr is not None:
            self.value(node.expr, env)
            return None
        return None  # literals, lambdas (not walked), and what else the walk does not follow

    def operator(
        self, op: str, left: State, right: State, left_node: Expression | None = None, right_node: Expression | None = None
    ) -> State:
        if op in ("&", "|", "^") and TRACED_MASK in (left, right) and all(s in (TRACED_MASK, None) for s in (left, right)):
            return TRACED_MASK
        if staged_by_operation(left) or staged_by_operation(right):
            return TRACED
        if CANDIDATE not in (left, right):
            return None
        if op == "%" and isinstance(left_node, StrExpr):
            return None  # "layer_%s" % i formats a string
        if op in NUMBER_ONLY_OPERATORS:
            return TRACED
        other = right_node if left == CANDIDATE else left_node
        if op == "+" and other is not None and is_number(other):
            return TRACED  # a list or tuple is not added to a number
        if op == "*" and isinstance(other, FloatExpr):
            return TRACED  # a list or tuple is repeated by an int only
        return CANDIDATE if left == right == CANDIDATE or op in ("+", "*", "|") else None

    def comparison(self, node: ComparisonExpr, env: Env) -> State:
        states = [self.value(operand, env) for operand in node.operands]
        if any(op in ("is", "is not", "in", "not in") for op in node.operators):
            return None
        pairs = []
        for op, a, b, left, right in zip(node.operators, states, states[1:], node.operands, node.operands[1:]):
            proof = op in ORDER_OPERATORS and CANDIDATE in (a, b) and ordered(a, b, left, right)
            if proof:
                self.proven(left if a == CANDIDATE else right, env)
            pairs.append(staged_by_operation(a) or staged_by_operation(b) or proof)
        if len(pairs) > 1 and pairs[0]:
            self.trace.site(BOOL, node, node, "a chained comparison")
        return TRACED_MASK if any(pairs) else None

    def index(self, node: IndexExpr, env: Env) -> State:
        base = self.value(node.base, env)
        if isinstance(node.index, SliceExpr):
            parts = [part for part in (node.index.begin_index, node.index.end_index, node.index.stride) if part is not None]
            traced_part = next((part for part, state in ((part, self.value(part, env)) for part in parts) if holds_tracers(state)), None)
            if traced_part is not None and staged_by_operation(base):
                self.trace.site(SLICE, node, traced_part, "slicing")
            elif traced_part is not None and base == CANDIDATE:
                self.trace.site(SLICE, node, traced_part, sites.SLICED_PARAMETER)
            return TRACED if staged_by_operation(base) else None
        index = self.value(node.index, env)
        if base == CANDIDATE and isinstance(node.base, NameExpr):
            base = self.value(node.base, env)  # the index may have proven it an array: "x[x > 0]"
        if index == TRACED_MASK and staged_by_operation(base):
            self.trace.site(BOOLEAN_MASK, node, node.index, "indexing")
        if holds_tracers(index):
            self.python_index(node, base)
        if isinstance(base, tuple):
            position = int_literal(node.index)
            if position is not None and -len(base) <= position < len(base):
                return base[position]
            return None
        if base == CANDIDATE:
            return CANDIDATE  # an item of a pytree: a leaf or a pytree again
        return TRACED if staged_by_operation(base) else None

    def python_index(self, node: IndexExpr, base: State) -> None:
        """A tracer indexing a Python list or tuple (which needs an int: ``__index__``), a dict
        (which hashes it) or a NumPy array (which converts it), written there or a module's."""
        held = python_container(node.base, base) if not staged_by_operation(base) else None
        if held is not None and base not in (PYTHON_LIST, PYTHON_DICT) and not bindings.of(self.trace.tree).holds(node.base):
            return  # a module's table bound again (or filled) with values of another kind: which one reaches here is not known
        if held == SEQUENCE:
            self.trace.site(INDEX, node, node.index, "indexing a Python sequence")
        elif held == MAPPING:
            hashing = "TypeError" if release.at_least(release.TRACERS_UNHASHABLE) else "KeyError"
            self.trace.site(INDEX, node, node.index, sites.DICT_INDEX, raises=hashing)
        elif held == NUMPY_ARRAY:
            self.trace.site(NUMPY_CONVERSION, node, node.index, sites.NUMPY_INDEX)

    def comprehension(self, node: GeneratorExpr, env: Env) -> None:
        inner = dict(env)
        for target, sequence, conditions in zip(node.indices, node.sequences, node.condlists):
            self.bind(target, self.iterated(sequence, inner), inner)
            for condition in conditions:
                self.test(condition, COMPREHENSION_CONDITION, inner)
        self.value(node.left_expr, inner)

    def iterated(self, node: Expression, env: Env) -> State:
        """The state of each item a ``for`` takes from ``node``."""
        if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and node.callee.fullname == "builtins.range":
            self.value(node, env)
            return None
        state = self.value(node, env)
        # the items of an array are tracers; those of a pytree argument are leaves or pytrees,
        # but iterating a dict gives its keys, Python values
        return TRACED if is_traced(state) else ITEM if state == CANDIDATE else None

    def bind(self, target: Expression, state: State, env: Env) -> None:
        if isinstance(target, NameExpr):
            if target.name not in self.trace.outside:
                env[target.name] = state
        elif isinstance(target, (TupleExpr, ListExpr)):
            items = target.items
            if isinstance(state, tuple) and len(state) == len(items) and not any(isinstance(i, StarExpr) for i in items):
                for item, item_state in zip(items, state):
                    self.bind(item, item_state, env)
            else:
                for item in items:
                    self.bind(item, TRACED if is_traced(state) and not isinstance(item, StarExpr) else None, env)
        elif isinstance(target, StarExpr):
            self.bind(target.expr, None, env)
        elif isinstance(target, IndexExpr):
            self.value(target.base, env)
            self.value(target.index, env)
        elif isinstance(target, MemberExpr):
            self.value(target.expr, env)

    def test(self, node: Expression, construct: str, env: Env) -> None:
        """``node`` is tested for truth by ``construct``: each operand of ``and``/``or``/``not``
        is, when it is reached."""
        if isinstance(node, OpExpr) and node.op in ("and", "or"):
            self.test(node.left, construct, env)
            self.test(node.right, construct, env)
        elif isinstance(node, UnaryExpr) and node.op == "not":
            self.test(node.expr, construct, env)
        elif is_traced(self.value(node, env)) or self.equal_to_a_number(node, env):
            self.trace.site(BOOL, node, node, construct)

    def equal_to_a_number(self, node: Expression, env: Env) -> bool:
        """``kind == 1`` tested, for a ``CANDIDATE`` ``kind``: a list or a dict is never equal to
        a number, so the test is meant for a number, which the transform traces (used as a
        value, ``x[x == 1]``, a list's comparison gives False and runs)."""
        if not (isinstance(node, ComparisonExpr) and len(node.operators) == 1 and node.operators[0] in ("==", "!=")):
            return False
        left, right = node.operands
        return any(self.value(side, env) == CANDIDATE and is_number(other) for side, other in ((left, right), (right, left)))

    def on_some_paths(self, arms: list[Expression], env: Env) -> list[State]:
        """The states of ``arms``, each evaluated on some paths only (the arms of a conditional
        expression, the right of ``and``/``or``, which the left may skip): what one proves or
        binds holds after them only where all paths agree (``x.sum() if isinstance(x, jax.Array)
        else ...`` proves nothing of ``x``)."""
        ends = [dict(env) for _ in arms]
        states = [self.value(arm, end) for arm, end in zip(arms, ends)]
        if len(arms) == 1:
            ends.append(dict(env))  # the path that skipped the arm
        merged = merge_envs(ends)
        env.clear()
        env.update(merged)
        return states

    def proven(self, node: Expression, env: Env) -> None:
        """A local ``CANDIDATE`` that a use has just proven a tracer (``x > 0``, ``x.sum()``: a
        list or a dict raises there) holds one from here on this path. (An ``ITEM`` may be a
        Python number, which has ``.conjugate()``: it stays as it is.)"""
        if isinstance(node, NameExpr) and node.kind == LDEF and node.name not in self.trace.outside and env.get(node.name) == CANDIDATE:
            env[node.name] = TRACED

    def from_outside(self, node: NameExpr) -> State:
        """A name the walk does not bind: a module global, a closure's variable, a parameter
        left at its default. A ``jax.Array`` (as mypy has typed it so far) is ``CONCRETE_ARRAY``
        where the function is staged; anything else is undecided."""
        if self.trace.staged and isinstance(node.node, Var) and types.is_array(node.node.type) and bindings.of(self.trace.tree).holds(node):
            return CONCRETE_ARRAY
        return None

    def array_field(self, node: MemberExpr) -> State:
        """``self.std`` in a staged method, for an attribute its class declares (or mypy has
        inferred so far) as a ``jax.Array``: a tracer where ``self`` is a traced pytree, a
        concrete array where it is static; an operation on it is traced either way."""
        function = self.trace.transformed.function
        receiver = receiver_of(function)
        if (
            self.trace.depth
            or not self.trace.staged
            or receiver is None
            or not isinstance(node.expr, NameExpr)
            or node.expr.name != receiver
        ):
            return None
        assert isinstance(function, FuncDef)  # receiver_of says so
        found = function.info.get(node.name)
        if found is None or not isinstance(found.node, Var) or not types.is_array(found.node.type):
            return None
        return CONCRETE_ARRAY if bindings.of(self.trace.tree).holds(node) else None


def ordered(a: State, b: State, left: Expression, right: Expression) -> bool:
    """Whether an order comparison of a ``CANDIDATE`` proves it a tracer: against a number or a
    tracer (two lists compare, item by item)."""
    other, node = (b, right) if a == CANDIDATE else (a, left)
    return is_traced(other) or is_number(node)
