"""Where the function a transform returns is called: the calls whose arguments decide what runs.

``jax.grad(f)`` and ``jax.vmap(f)`` return a plain ``Callable`` in JAX's stubs, whose calls run
no hook of the plugin; and what a call of a jitted function passes decides what an unannotated
parameter holds. So the calls are found in the module's syntax tree from the transform: called at
once (``jax.grad(f)(3.0)``), through the one name it is assigned to (``grad_fn = jax.grad(f)``,
then ``grad_fn(x)`` anywhere in the module, or in the function that binds it for a local name), or, for a function whose decorators are all
transforms, through its own name (``bindings.Mentions``). A name bound by more than one
assignment, or used otherwise than called (passed on, stored, returned), has calls that are not
all known: they are then not complete (``Applied.complete``).
"""

from __future__ import annotations

from mypy.nodes import (
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    LDEF,
    AssignmentStmt,
    CallExpr,
    Decorator,
    Expression,
    FuncDef,
    ListExpr,
    NameExpr,
    TupleExpr,
)
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.analyses import bindings, transforms
from mypy_plugin.analyses.transforms import TransformedFunction
from mypy_plugin.analyses.values import PYTHON_LIST, TRACED, Env, State, is_number
from mypy_plugin.lib import arguments, checked_module, mypy_internals, nodes


class Applied:
    """The calls found of a transformed function, and whether they are all of its calls."""

    __slots__ = ("calls", "complete")

    def __init__(self, calls: list[CallExpr], complete: bool) -> None:
        self.calls = calls
        self.complete = complete


NOT_FOUND = Applied([], False)


def calls_of_result(api: CheckerPluginInterface, transform: CallExpr) -> Applied:
    """The calls of what ``transform`` (``jax.grad(f, ...)``) returns."""
    chain = checked_module.enclosing_statements(api, transform)
    if not chain:
        return NOT_FOUND
    holding = chain[-1]
    direct = [call for call in nodes.calls_written_by(holding) if call.callee is transform]
    if direct:
        return Applied(direct, True)
    target = name_of_result(holding, transform)
    if target is None:
        return NOT_FOUND
    function = next((statement for statement in reversed(chain) if isinstance(statement, (FuncDef, Decorator))), None)
    if target.kind == LDEF and function is not None:
        return calls_in_body(function.func if isinstance(function, Decorator) else function, target.name, target.node)
    return calls_of_name(api, target.name, target.node)


def name_of_result(holding: object, transform: CallExpr) -> NameExpr | None:
    """The one name ``holding`` assigns what ``transform`` returns to (``grad_fn = jax.grad(f)``)."""
    if not (isinstance(holding, AssignmentStmt) and holding.rvalue is transform and len(holding.lvalues) == 1):
        return None
    target = holding.lvalues[0]
    return target if isinstance(target, NameExpr) and target.node is not None else None


def calls_with_partials(api: CheckerPluginInterface, transform: CallExpr | Decorator) -> list[CallExpr]:
    """The calls found of what ``transform`` returns (``calls_of_result``), or of the function
    it decorates by its name; and, where that name is used otherwise than called, the calls
    through ``functools.partial`` (``calls_through_partial``)."""
    by_name = calls_of_decorated(api, transform) if isinstance(transform, Decorator) else calls_of_result(api, transform)
    return by_name.calls + (calls_through_partial(api, transform) if not by_name.complete else [])


def calls_through_partial(api: CheckerPluginInterface, transform: CallExpr | Decorator) -> list[CallExpr]:
    """The calls of ``functools.partial`` applications of a transformed function by its name
    (``pf = partial(f_vmapped, x=xs)``, then ``pf(a)``), each written as the call it makes: the
    partial's arguments, then the call's, at the call's line. Ask only where the name is used
    otherwise than called (``Applied.complete``)."""
    tree = mypy_internals.module_tree(api)
    node: object
    if isinstance(transform, Decorator):
        name, node = transform.name, transform
    else:
        chain = checked_module.enclosing_statements(api, transform)
        target = name_of_result(chain[-1], transform) if chain else None
        if tree is None or target is None:
            return []
        name, node = target.name, target.node
    if tree is None:
        return []
    found = []
    for partial in bindings.of(tree).mentions_read().partials:
        applied_to = partial.args[0]
        assert isinstance(applied_to, NameExpr)  # Mentions.partials holds those only
        if applied_to.name == name and applied_to.node is node:
            found += [joined(partial, call) for call in calls_of_result(api, partial).calls]
    return found


def joined(partial: CallExpr, call: CallExpr) -> CallExpr:
    """The call ``call`` of ``partial(f, *given)`` makes of ``f``: the partial's arguments, but
    a keyword the call passes again, then the call's."""
    repeated = {name for name in call.arg_names if name is not None}
    given = [
        (arg, kind, name) for arg, kind, name in zip(partial.args[1:], partial.arg_kinds[1:], partial.arg_names[1:]) if name not in repeated
    ]
    made = CallExpr(
        call.callee,
        [arg for arg, _, _ in given] + call.args,
        [kind for _, kind, _ in given] + call.arg_kinds,
        [name for _, _, name in given] + call.arg_names,
    )
    made.set_line(call)
    return made


def calls_in_body(function: FuncDef, name: str, node: object) -> Applied:
    """The calls of a local variable (``node``) in the body of the function that binds it, where
    every mention of it is (those of the functions defined there too): read from that body alone,
    not from the whole module, as most names bound to a transform's result are a function's
    locals."""
    return calls_mentioned(bindings.Mentions(function), name, node)


def calls_of_decorated(api: CheckerPluginInterface, decorator: Decorator) -> Applied:
    """The calls of a decorated function by its name."""
    return calls_of_name(api, decorator.name, decorator)


def calls_of_name(api: CheckerPluginInterface, name: str, node: object) -> Applied:
    tree = mypy_internals.module_tree(api)
    if tree is None:
        return NOT_FOUND
    return calls_mentioned(bindings.of(tree).mentions_read(), name, node)


def calls_mentioned(mentions: bindings.Mentions, name: str, node: object) -> Applied:
    """The calls of ``name`` referring to ``node`` among ``mentions``; complete where it is
    used only so."""
    return Applied(mentions.calls(name, node), not mentions.escapes(name, node))


def calls_of_transformed(api: CheckerPluginInterface, transform: CallExpr | Decorator) -> Applied:
    """The calls of a transformed function: ``@jax.jit`` (every decorator a transform) or
    ``jax.jit(f, ...)``."""
    if isinstance(transform, Decorator):
        if not all(transforms.transform_of(node) is not None for node in transform.decorators):
            return NOT_FOUND
        return calls_of_decorated(api, transform)
    return calls_of_result(api, transform)


def given_states(transformed: TransformedFunction, applied: Applied) -> Env:
    """What the calls written in the module pass to each unannotated parameter, where every call
    passes the same kind of value and no call escapes the search: a number (traced, under the
    transforms that trace every argument) or a list or tuple of numbers (a Python list of
    tracers, ``PYTHON_LIST``). A call with ``*args`` or ``**kwargs`` leaves every parameter as
    it is."""
    if not applied.complete or not applied.calls or transformed.kind not in transforms.TRACING_EVERY_ARGUMENT:
        return {}
    if any(kind in (ARG_STAR, ARG_STAR2) for call in applied.calls for kind in call.arg_kinds):
        return {}
    named = mypy_internals.named_parameters(transformed.function)
    positional = [name for name, kind in (named[1:] if transformed.bound else named) if kind in (ARG_POS, ARG_OPT)]
    found: dict[str, list[State]] = {name: [] for name in transformed.leaf_parameters}
    for call in applied.calls:
        written = dict(zip(arguments.parameters_written(call, positional), call.args))
        for name, states in found.items():
            states.append(state_of_argument(written[name]) if name in written else None)
    return {name: states[0] for name, states in found.items() if states[0] is not None and all(s == states[0] for s in states)}


def state_of_argument(arg: Expression) -> State:
    """What a jitted function's parameter holds for ``arg`` as written: a tracer for a number, a
    Python list of tracers for a list or tuple of numbers; undecided for anything else."""
    if is_number(arg):
        return TRACED
    if isinstance(arg, (ListExpr, TupleExpr)) and arg.items and all(is_number(item) for item in arg.items):
        return PYTHON_LIST
    return None
