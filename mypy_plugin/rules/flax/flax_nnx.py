"""``jax-nnx-trace-level`` (``docs/rules/``): Flax NNX state made outside a transform and changed
inside it.

An NNX module keeps its state in Variables and its random streams in an ``nnx.Rngs``; both may
change only at the trace level they were made at. A module or an ``nnx.Rngs`` that a transformed
function reads from the module's top level (a global, not an argument), and changes there (a
Variable set, ``self.count[...] += 1``, a stream drawn, ``rngs.params()``), raises
``TraceContextError: Cannot mutate ... from a different trace level`` at each call: measured on
Flax 0.12.8 under ``jax.jit``, ``jax.vmap``, ``jax.grad``, ``jax.checkpoint``, ``jax.pmap``,
``jax.lax.scan``, ``eqx.filter_jit`` and ``nnx.jit`` alike. Read only, it runs; passed as an
argument of ``nnx.jit`` it runs and keeps the change; passed to ``jax.jit`` it runs and drops it.
Older releases differ (``CHECKED_FROM``, ``EAGER_KINDS``): the installed Flax's release decides
(``lib/libraries.py``).

Read from the hook of ``nnx.Rngs`` itself, so a project without Flax imports nothing of this
rule: where the module's top level makes an ``nnx.Rngs``, the names that hold it or a module
class made with it, each bound once in the module. A change is found in the transformed
function's own body, or in the method it calls on the module (a class of the module: its body,
and the bodies of its submodules' classes there), from the types mypy gave the attributes.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    AssignmentStmt,
    CallExpr,
    Context,
    Decorator,
    Expression,
    FuncDef,
    FuncItem,
    IndexExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    RefExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext
from mypy.types import Instance, Type, get_proper_type

from mypy_plugin.analyses import bindings, transforms
from mypy_plugin.analyses.transforms import TransformedFunction
from mypy_plugin.lib import checked_module, errorcodes, libraries, mypy_internals, nodes, release, reporting
from mypy_plugin.lib.rule import Rule

CODE: Final = errorcodes.NNX_TRACE_LEVEL

RNGS: Final = "flax.nnx.rnglib.Rngs"
NNX_MODULE: Final = "flax.nnx.module.Module"
VARIABLE: Final = "flax.nnx.variablelib.Variable"
MEASURED_KINDS: Final = frozenset(
    {
        transforms.JIT_KIND,
        transforms.VMAP_KIND,
        transforms.PMAP_KIND,
        transforms.NNX_JIT_KIND,
        transforms.EQUINOX_JIT_KIND,
        transforms.LAX_KIND,
        *transforms.GRAD_KINDS,
        *transforms.CHECKPOINT_KINDS,
    }
)
"""The transforms under which a change of outside NNX state was measured to raise."""
EAGER_KINDS: Final = frozenset({transforms.VMAP_KIND, *transforms.GRAD_KINDS})
"""The transforms that run without staging: before JAX 0.4.36 they push no trace that Flax's
check sees, so the change runs there (``release.LEAKED_EAGER_TRACERS_RAISE``)."""
CHECKED_FROM: Final = (((0, 10, 0), True), ((0, 10, 1), False), ((0, 10, 5), True))
"""Whether Flax checks the trace level, from each release on (measured release by release by
``benchmarks/nnx_releases.py``, under the transforms it runs; ``eqx.filter_jit`` and
``jax.value_and_grad`` are counted with ``jax.jit`` and ``jax.grad``): 0.10.1 to 0.10.4 switch the check off ("TODO: re-enable" in
``flax/nnx/tracers.py``), so the change runs and leaves a tracer in the state. Flax 0.8 and 0.9
check it too, but define NNX's classes in ``flax.nnx.nnx``, where ``RNGS`` does not name them:
nothing is reported there."""


PASS_IT_IN: Final = "Pass it in as an argument of NNX's transform, which carries the change out: "
NNX_WAY: Final = {
    **dict.fromkeys(
        (transforms.JIT_KIND, transforms.NNX_JIT_KIND, transforms.EQUINOX_JIT_KIND),
        PASS_IT_IN + '"@nnx.jit" on "def {function}({name}, ...)", called "{function}({name}, ...)"',
    ),
    transforms.VMAP_KIND: PASS_IT_IN + '"nnx.vmap({function}, in_axes=(None, 0))({name}, x)", "{function}" taking it first',
    "jax.grad": PASS_IT_IN + '"nnx.grad({function})({name}, ...)", "{function}" taking it first',
    "jax.value_and_grad": PASS_IT_IN + '"nnx.value_and_grad({function})({name}, ...)", "{function}" taking it first',
    **dict.fromkeys(transforms.CHECKPOINT_KINDS, PASS_IT_IN + '"nnx.remat({function})({name}, ...)", "{function}" taking it first'),
}
"""The NNX way for each transform, measured to run and keep the change on Flax 0.12.8."""
NNX_TRANSFORMS: Final = "NNX state changes under a transform only as an argument of NNX's own (nnx.jit, nnx.pmap, nnx.scan)"
"""The note for the other transforms (``jax.pmap``, ``jax.lax`` loops, ``jax.jacfwd``)."""
DEPTH: Final = 3
"""How many methods deep a change is looked for (a model's ``__call__``, a block's, a layer's)."""

CHANGED_OUTSIDE: Final = '"{name}" is made outside {transform} and {change} in it; Flax raises TraceContextError'
DRAWN: Final = "a random stream of it drawn"
VARIABLE_SET: Final = 'its Variable "{variable}" set'
SET_IN_METHOD: Final = 'its Variable "{variable}" set (line {line})'
DRAWN_IN_METHOD: Final = 'its "{rngs}" drawn (line {line})'
JAX_DROPS_IT: Final = "Given to {transform} as an argument it runs, but the change is lost when the trace ends"


class Change:
    """A change of NNX state found: where it is written, what it changes, and its line when it is
    in a method the traced function calls."""

    __slots__ = ("at", "attribute", "line", "rngs")

    def __init__(self, at: Context, attribute: str | None, line: int | None, rngs: bool) -> None:
        self.at = at
        self.attribute = attribute
        self.line = line
        self.rngs = rngs

    def described(self) -> str:
        if self.line is None:
            return DRAWN if self.rngs else VARIABLE_SET.format(variable=self.attribute)
        if self.rngs:
            return DRAWN_IN_METHOD.format(rngs=f"self.{self.attribute}", line=self.line)
        return SET_IN_METHOD.format(variable=self.attribute, line=self.line)


def on_rngs(ctx: FunctionContext) -> Type:
    """``nnx.Rngs(...)`` made: where the module's top level holds it, or a module made with it."""
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    if not isinstance(call, CallExpr) or tree is None:
        return ctx.default_return_type
    chain = checked_module.enclosing_statements(ctx.api, call)
    if len(chain) != 1 or not isinstance(chain[0], AssignmentStmt):
        return ctx.default_return_type
    raising = raising_kinds(libraries.INSTALLED.flax)
    held = held_state(tree, chain[0], call) if raising else {}
    if not held:
        return ctx.default_return_type
    for traced in traced_functions(tree):
        if traced.kind not in raising:
            continue
        for name, change in changes(traced.function, held, tree.fullname):
            report(ctx.api, traced, name, change)
    return ctx.default_return_type


def raising_kinds(flax: tuple[int, ...] | None) -> frozenset[str]:
    """The transforms under which the installed Flax raises on the stubs' JAX release (none
    where Flax's release is unknown)."""
    checks = False
    for first, checked in CHECKED_FROM:
        if flax is not None and flax >= first:
            checks = checked
    if not checks:
        return frozenset()
    return MEASURED_KINDS if release.at_least(release.LEAKED_EAGER_TRACERS_RAISE) else MEASURED_KINDS - EAGER_KINDS


def held_state(tree: MypyFile, made: AssignmentStmt, rngs: CallExpr) -> dict[Var, TypeInfo | None]:
    """The module-level variables holding the ``nnx.Rngs`` that ``rngs`` makes (None) or an
    instance of a module class made with it (its class), each the name's one binding."""
    found = bindings.of(tree)
    held: dict[Var, TypeInfo | None] = {}

    def one_binding(statement: AssignmentStmt) -> Var | None:
        [target] = statement.lvalues if len(statement.lvalues) == 1 else [None]
        if isinstance(target, NameExpr) and isinstance(target.node, Var) and found.assigned_once(target.name):
            return target.node
        return None

    holder = one_binding(made)
    if holder is not None and made.rvalue is rngs:
        held[holder] = None
    for statement in tree.defs:
        if not isinstance(statement, AssignmentStmt) or (target := one_binding(statement)) is None:
            continue
        cls = module_class(statement.rvalue)
        if cls is not None and any(arg is rngs or (isinstance(arg, NameExpr) and arg.node in held) for arg in statement.rvalue.args):  # type: ignore[attr-defined]
            held[target] = cls
    return held


def module_class(node: Expression) -> TypeInfo | None:
    """The NNX module class ``node`` makes an instance of (``MLP(rngs=rngs)``)."""
    if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and isinstance(node.callee.node, TypeInfo):
        return node.callee.node if node.callee.node.has_base(NNX_MODULE) else None
    return None


def traced_functions(tree: MypyFile) -> list[TransformedFunction]:
    """Every function of the module that a transform traces: decorated, transformed where it is
    called (``jax.jit(step)``, a lambda), or given to a ``jax.lax`` loop."""
    found: list[TransformedFunction] = []
    for node in nodes.walk(tree.defs):
        if isinstance(node, Decorator):
            found.extend(filter(None, [transforms.decorated(node)]))
        elif isinstance(node, CallExpr):
            found.extend(filter(None, [transforms.transformed_by(node, tree.fullname)]))
            found.extend(transforms.lax_bodies(node, tree.fullname))
    return found


def changes(function: FuncItem, held: dict[Var, TypeInfo | None], module: str) -> list[tuple[str, Change]]:
    """The changes of held state that ``function``'s body makes, each with the global's name."""
    found = []
    for node in nodes.walk(function.body.body):
        for target, member in changed_targets(node):
            if isinstance(target, NameExpr) and target.node in held and (cls := held[target.node]) is not None:
                if is_variable(attribute_class(cls, member, module)):
                    found.append((target.name, Change(node, member, None, rngs=False)))
        if isinstance(node, CallExpr):
            receiver, method = called_on(node)
            if not isinstance(receiver, NameExpr) or receiver.node not in held:
                continue
            cls = held[receiver.node]
            if cls is None:
                if method is None or RNGS_METHODS_KEEP.isdisjoint({method}):
                    found.append((receiver.name, Change(node, None, None, rngs=True)))
            elif (inner := method_change(cls, method or "__call__", DEPTH, set(), module)) is not None:
                found.append((receiver.name, Change(node, inner.attribute, inner.line, inner.rngs)))
    return found


RNGS_METHODS_KEEP: Final = frozenset({"__getitem__"})
"""Calls on an ``nnx.Rngs`` that draw nothing (every other call draws a stream and changes its count)."""


def changed_targets(node: Node) -> list[tuple[Expression, str]]:
    """The ``x.attr`` whose Variable an assignment sets: ``x.attr.value = ...``,
    ``x.attr[...] += 1``; each with the root and the attribute's name."""
    if isinstance(node, AssignmentStmt):
        targets = node.lvalues
    elif isinstance(node, OperatorAssignmentStmt):
        targets = [node.lvalue]
    else:
        return []
    found = []
    for target in targets:
        if isinstance(target, IndexExpr):
            inner = target.base  # x.attr[...] = v
        elif isinstance(target, MemberExpr) and target.name == "value":
            inner = target.expr  # x.attr.value = v
        else:
            continue
        if isinstance(inner, MemberExpr):
            found.append((inner.expr, inner.name))
    return found


def called_on(call: CallExpr) -> tuple[Expression | None, str | None]:
    """The instance a call calls and the method: ``(model, None)`` for ``model(x)``,
    ``(model, "encode")`` for ``model.encode(x)``."""
    if isinstance(call.callee, MemberExpr):
        return call.callee.expr, call.callee.name
    return call.callee, None


def method_change(cls: TypeInfo, method: str, depth: int, seen: set[str], module: str) -> Change | None:
    """The first change of its own state that ``cls.method`` makes (its body read only for a
    class of the checked ``module``: another module's body is missing where mypy's cache holds
    it, and a report must not depend on which modules a run rechecks), following
    ``self.sub(x)`` into the submodules' classes."""
    found = cls.get_method(method)
    if cls.module_name != module or depth == 0 or not isinstance(found, FuncDef) or found.fullname in seen:
        return None
    if found.info.module_name != module:  # inherited from another module's class: its body may be gone
        return None
    parameters = mypy_internals.parameters(found)
    if not parameters:
        return None
    seen.add(found.fullname)
    receiver = parameters[0].variable.name
    for node in nodes.walk(found.body.body):
        for target, member in changed_targets(node):
            if isinstance(target, NameExpr) and target.name == receiver and is_variable(attribute_class(cls, member, module)):
                return Change(node, member, node.line, rngs=False)
        if not isinstance(node, CallExpr):
            continue
        owner, name = called_on(node)
        if isinstance(owner, MemberExpr) and isinstance(owner.expr, NameExpr) and owner.expr.name == receiver:
            attribute, inner_method = owner.name, name  # self.rngs.params(), self.block.encode(x)
        elif isinstance(owner, MemberExpr) and name is None:
            continue
        elif name is not None and isinstance(owner, NameExpr) and owner.name == receiver:
            attribute, inner_method = name, None  # self.rngs(), self.block(x)
        else:
            continue
        held = attribute_class(cls, attribute, module)
        if held is not None and held.fullname == RNGS and (inner_method is None or inner_method not in RNGS_METHODS_KEEP):
            return Change(node, attribute, node.line, rngs=True)
        if held is not None and held.has_base(NNX_MODULE):
            inner = method_change(held, inner_method or "__call__", depth - 1, seen, module)
            if inner is not None:
                return inner
    return None


def attribute_class(cls: TypeInfo, name: str, module: str) -> TypeInfo | None:
    """The class of ``cls``'s attribute ``name``: the type mypy gave it, or, where its methods
    are not checked (no annotations) and the class is of the checked ``module``, the one class
    its methods assign it from (``self.calls = nnx.Variable(...)``)."""
    symbol = cls.get(name)
    if symbol is not None and isinstance(symbol.node, Var) and symbol.node.type is not None:
        typ = get_proper_type(symbol.node.type)
        if isinstance(typ, Instance):
            return typ.type
    made: set[TypeInfo | None] = set()
    for method in cls.defn.defs.body if cls.module_name == module else []:
        if not isinstance(method, FuncDef):
            continue
        parameters = mypy_internals.parameters(method)
        if not parameters:
            continue
        receiver = parameters[0].variable.name
        for node in nodes.walk(method.body.body):
            if isinstance(node, AssignmentStmt) and any(assigned(target, receiver, name) for target in node.lvalues):
                callee = node.rvalue.callee if isinstance(node.rvalue, CallExpr) else None
                made.add(callee.node if isinstance(callee, RefExpr) and isinstance(callee.node, TypeInfo) else None)
    [found] = made if len(made) == 1 else [None]
    return found


def assigned(target: Expression, receiver: str, name: str) -> bool:
    """``self.name`` as an assignment's target."""
    return isinstance(target, MemberExpr) and target.name == name and isinstance(target.expr, NameExpr) and target.expr.name == receiver


def is_variable(cls: TypeInfo | None) -> bool:
    return cls is not None and cls.has_base(VARIABLE)


def report(api: CheckerPluginInterface, traced: TransformedFunction, name: str, change: Change) -> None:
    """``jax-nnx-trace-level``: outside NNX state changed under a transform."""
    message = CHANGED_OUTSIDE.format(name=name, transform=traced.transform, change=change.described())
    function = traced.function.name if isinstance(traced.function, FuncDef) else "f"
    way = NNX_WAY.get(traced.kind, NNX_TRANSFORMS)
    notes = [way.format(function=function, name=name)]
    if traced.kind == transforms.JIT_KIND:
        notes.append(JAX_DROPS_IT.format(transform=traced.transform))
    reporting.error_with_notes(api, change.at, CODE, message, notes)


RULE: Final = Rule(CODE, function_hooks={RNGS: on_rngs})
