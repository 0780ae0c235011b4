"""``jax-equinox-module`` (``docs/rules/``): an Equinox module that holds a function, given to
JAX's own transforms.

``jax.jit`` and ``jax.grad`` flatten every argument they trace into arrays; an Equinox module is a
pytree whose fields are its leaves, and a function there (``eqx.nn.MLP``'s activation, a pool's
operation) is no JAX type: ``TypeError`` at each call (measured on Equinox 0.13.8: the classes of
``FUNCTION_FIELDS``, which ``tests/test_equinox_modules.py`` constructs and jits). Equinox's own
transforms (``eqx.filter_jit``, ``eqx.filter_grad``) trace only the arrays.

Read from the hooks of those classes' constructors, so a project without Equinox imports nothing
of the rule: the instance made (``model = eqx.nn.MLP(...)``, the module's one binding of that
name, or the construction itself passed on) and the calls in the module that pass it where a
transformed function of the module traces it (``@jax.jit``, ``jax.jit(f)(model)``,
``jax.grad(loss)(model, x)``).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    ARG_OPT,
    ARG_POS,
    AssignmentStmt,
    CallExpr,
    Decorator,
    Expression,
    MypyFile,
    NameExpr,
    RefExpr,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext
from mypy.types import Type

from mypy_plugin.analyses import transforms
from mypy_plugin.analyses.transforms import TransformedFunction
from mypy_plugin.lib import arguments, errorcodes, mypy_internals, nodes, reporting
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source

CODE: Final = errorcodes.EQUINOX_MODULE

ALWAYS: Final = ()
FUNCTION_FIELDS: Final[dict[str, tuple[tuple[int, str], ...]]] = {
    "equinox.nn._mlp.MLP": ((-1, "activation"), (-1, "final_activation")),
    "equinox.nn._sequential.Lambda": ((0, "fn"),),
    **{
        f"equinox.nn._pool.{name}": ALWAYS
        for name in (
            "MaxPool1d",
            "MaxPool2d",
            "MaxPool3d",
            "AvgPool1d",
            "AvgPool2d",
            "AvgPool3d",
            "AdaptiveMaxPool1d",
            "AdaptiveMaxPool2d",
            "AdaptiveMaxPool3d",
            "AdaptiveAvgPool1d",
            "AdaptiveAvgPool2d",
            "AdaptiveAvgPool3d",
        )
    },  # fmt: skip
    "equinox.nn._weight_norm.WeightNorm": ALWAYS,
}
"""Equinox's classes whose instances hold a function as a traced field: always (a pool's
``operation``, ``WeightNorm``'s norm), or unless the constructor is given something else at the
parameters named (by position, ``-1`` for keyword only): ``MLP``'s activations default to
functions, ``Lambda`` wraps what it is given."""
HOLDS_A_FUNCTION: Final = "{module} holds a function, which {transform} cannot trace; JAX raises TypeError"
USE_FILTERED: Final = 'Use Equinox\'s transform, which traces only its arrays: "{filtered}"'


def on_construct(ctx: FunctionContext) -> Type:
    """One of ``FUNCTION_FIELDS`` made: where the module passes it to a transformed function."""
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    if not isinstance(call, CallExpr) or not isinstance(call.callee, RefExpr) or tree is None:
        return ctx.default_return_type
    fields = FUNCTION_FIELDS.get(call.callee.fullname)
    if fields is None or not holds_a_function(call, fields):
        return ctx.default_return_type
    cls = "eqx.nn." + call.callee.fullname.rsplit(".", 1)[-1]
    for use, arg in passed_on(tree, call):
        traced = transformed_callee(use, tree.fullname)
        if traced is None or not (traced.kind in transforms.TRACING_EVERY_ARGUMENT or traced.differentiated):
            continue
        function = traced.function
        parameters = function.arguments[1:] if traced.bound else function.arguments
        positional = [a.variable.name for a in parameters if a.kind in (ARG_POS, ARG_OPT)]
        written = dict(zip(map(id, use.args), arguments.parameters_written(use, positional)))
        if written.get(id(arg)) in traced.flattened:
            report(ctx.api, arg, cls, traced)
    return ctx.default_return_type


def holds_a_function(call: CallExpr, fields: tuple[tuple[int, str], ...]) -> bool:
    """Whether the instance ``call`` makes holds a function: a field that always does, or one the
    call leaves at its default (a function) or gives a function."""
    if not fields:
        return True
    for position, name in fields:
        given = next((arg for arg, arg_name in zip(call.args, call.arg_names) if arg_name == name), None)
        if given is None and 0 <= position < len(call.args) and call.arg_names[position] is None:
            given = call.args[position]
        if given is None or nodes.names_a_function(given):
            return True
    return False


def passed_on(tree: MypyFile, made: CallExpr) -> list[tuple[CallExpr, Expression]]:
    """The calls of the module given the instance ``made``, each with the argument: the
    construction itself, or the name it is assigned to where that is the name's one binding in
    the module."""
    target: NameExpr | None = None
    calls: list[CallExpr] = []
    for node in nodes.walk(tree.defs):
        if isinstance(node, AssignmentStmt) and node.rvalue is made and len(node.lvalues) == 1 and isinstance(node.lvalues[0], NameExpr):
            target = node.lvalues[0]
        elif isinstance(node, CallExpr):
            calls.append(node)
    once = target is not None and nodes.references(tree).bindings.get(target.name, 0) == 1
    return [
        (call, arg)
        for call in calls
        for arg in call.args
        if arg is made or (once and target is not None and isinstance(arg, NameExpr) and arg.node is target.node)
    ]


def transformed_callee(call: CallExpr, module: str) -> TransformedFunction | None:
    """The function of the module that ``call`` calls through a transform: decorated
    (``@jax.jit``) or transformed where it is called (``jax.jit(step)(model, x)``)."""
    callee = call.callee
    if isinstance(callee, NameExpr) and isinstance(callee.node, Decorator):
        return transforms.decorated(callee.node)
    if isinstance(callee, CallExpr):
        return transforms.called(callee, module)
    return None


def report(api: CheckerPluginInterface, arg: Expression, cls: str, traced: TransformedFunction) -> None:
    """``jax-equinox-module``: a module holding a function, traced by JAX's own transform."""
    name = source(arg) if isinstance(arg, NameExpr) else None
    module = f'"{name}" ({cls})' if name is not None else f"An {cls}"
    message = HOLDS_A_FUNCTION.format(module=module, transform=traced.transform)
    filtered = "eqx.filter_grad" if traced.differentiated else "eqx.filter_jit"
    reporting.error_with_notes(api, arg, CODE, message, [USE_FILTERED.format(filtered=filtered)])


RULE: Final = Rule(CODE, function_hooks=dict.fromkeys(FUNCTION_FIELDS, on_construct))
