"""``jax-grad-output`` and ``jax-vmap-axes`` (``docs/rules/``): how the rule finds them.

Read at the transform (``@jax.grad``, ``jax.grad(f, ...)``, ``@partial(jax.vmap, in_axes=...)``)
for a function of the module, one defined in the enclosing function, or a lambda, applied
directly (the innermost decorator); the options through ``transforms.options_of``, a function's
returns as ``jax-lax-structure`` reads them (``analyses/structures.py``): reported only where
every ``return`` certainly gives such a structure. An array may not be a scalar either, but its
shape is not known: left alone.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    CallExpr,
    Context,
    Decorator,
    Expression,
    FuncItem,
    ListExpr,
    NameExpr,
    TupleExpr,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, FunctionSigContext
from mypy.types import FunctionLike, Type

from mypy_plugin.analyses import structures, transforms
from mypy_plugin.analyses.structures import Returns
from mypy_plugin.lib import checked_module, errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.rule import Rule

GRAD_CODE: Final = errorcodes.GRAD_OUTPUT
VMAP_CODE: Final = errorcodes.VMAP_AXES

SCALAR_GRADS: Final = {name: printed for name, printed in fullnames.GRADS.items() if printed in ("jax.grad", "jax.value_and_grad")}
"""The transforms that need a scalar output (``jacfwd`` and ``jacrev`` take any pytree)."""

NOT_A_SCALAR: Final = "{function} returns {got}, but {transform} needs a scalar loss; each call raises TypeError"
RETURN_THE_LOSS: Final = 'Return the loss alone, or "(loss, aux)" with "has_aux=True" to carry the rest out'
NOT_A_PAIR: Final = '{function} returns {got}, but {transform} with has_aux=True needs a pair "(loss, aux)"; each call raises TypeError'
RETURN_A_PAIR: Final = 'Return "(loss, aux)", or drop "has_aux=True"'
NO_AXIS: Final = "in_axes of jax.vmap maps no argument of {function}; each call raises ValueError"
MAP_ONE: Final = 'Map at least one argument (an int in "in_axes"), or give "axis_size=" for a batch made inside the function'
TOO_MANY_AXES: Final = "in_axes of jax.vmap has {count} entries for the {parameters} of {function}; each call raises ValueError"
OUT_AXES: Final = "out_axes of jax.vmap is {spec}, but {function} returns {got}; each call raises ValueError"
OUT_AXES_LIKE_THE_OUTPUT: Final = (
    'Give "out_axes" the structure of what the function returns (one axis per output), or one int for every output'
)
ONE_PER_ARGUMENT: Final = 'Give one entry per positional argument the calls pass ("None" for one that is not mapped)'


def on_transform(ctx: FunctionContext) -> Type:
    """``@jax.grad`` (the context is the ``Decorator``) or ``jax.grad(f, ...)``; the same for
    ``jax.value_and_grad`` and ``jax.vmap``."""
    context = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    if tree is None:
        return ctx.default_return_type
    if isinstance(context, Decorator):
        check_decorator(ctx.api, context)
    elif isinstance(context, CallExpr) and context.args and context.arg_names[0] is None:
        function = transforms.function_of(context.args[0], tree.fullname)
        options = transforms.options_of(context, 1, transforms.TRANSFORMS.get(fullnames.called(context.callee)))
        if function is not None and options is not None:
            check(ctx.api, context, fullnames.called(context.callee), function, options)
    return ctx.default_return_type


def on_partial(ctx: FunctionSigContext) -> FunctionLike:
    """``@partial(jax.vmap, in_axes=...)`` (``functools.partial``; this hook only reads)."""
    context = ctx.context
    if isinstance(context, CallExpr) and transforms.partial_transform(context) is not None:
        decorator = checked_module.decorated_by(ctx.api, context)
        if decorator is not None:
            check_decorator(ctx.api, decorator)
    return ctx.default_signature


def check_decorator(api: CheckerPluginInterface, decorator: Decorator) -> None:
    """The innermost decorator, where it is ``jax.grad``, ``jax.value_and_grad`` or
    ``jax.vmap`` (bare, or bound with ``partial``)."""
    node = decorator.decorators[-1]
    found = transforms.transform_of(node)
    if found is None:
        return
    _, options = found
    callee = node.args[0] if isinstance(node, CallExpr) and transforms.partial_transform(node) is not None else node
    if isinstance(callee, CallExpr):
        callee = callee.callee
    check(api, node, fullnames.called(callee), decorator.func, options)


def check(api: CheckerPluginInterface, at: Context, fullname: str, function: FuncItem, options: list[tuple[str, Expression]]) -> None:
    if fullname in SCALAR_GRADS:
        check_grad(api, at, SCALAR_GRADS[fullname], function, dict(options))
    elif fullname == fullnames.VMAP:
        check_vmap(api, at, function, dict(options))


def check_grad(api: CheckerPluginInterface, at: Context, transform: str, function: FuncItem, options: dict[str, Expression]) -> None:
    has_aux = options.get("has_aux")
    aux = has_aux is not None and isinstance(has_aux, NameExpr) and has_aux.fullname == "builtins.True"
    if has_aux is not None and not (isinstance(has_aux, NameExpr) and has_aux.fullname in ("builtins.True", "builtins.False")):
        return  # has_aux=flag: not read
    returns = [found for _, found in Returns(function, {}).read()]
    if not returns or any(found is None for found in returns):
        return
    got = structures.describe_each(returns)
    name = structures.named(function)
    if aux and all(structures.pair(found) is False for found in returns):
        reporting.error_with_notes(api, at, GRAD_CODE, NOT_A_PAIR.format(function=name, got=got, transform=transform), [RETURN_A_PAIR])
    elif not aux and all(found != structures.LEAF for found in returns):
        reporting.error_with_notes(api, at, GRAD_CODE, NOT_A_SCALAR.format(function=name, got=got, transform=transform), [RETURN_THE_LOSS])


def check_vmap(api: CheckerPluginInterface, at: Context, function: FuncItem, options: dict[str, Expression]) -> None:
    out_axes = options.get("out_axes")
    if out_axes is not None:
        check_out_axes(api, at, function, out_axes)
    in_axes = options.get("in_axes")
    if in_axes is None:
        return
    axes = in_axes.items if isinstance(in_axes, (TupleExpr, ListExpr)) else [in_axes]
    if "axis_size" not in options and axes and all(is_none(axis) for axis in axes):
        reporting.error_with_notes(api, at, VMAP_CODE, NO_AXIS.format(function=structures.named(function)), [MAP_ONE])
        return
    positional = [arg for arg in function.arguments if arg.kind in (ARG_POS, ARG_OPT)]
    if isinstance(in_axes, (TupleExpr, ListExpr)) and not any(arg.kind == ARG_STAR for arg in function.arguments):
        if len(axes) > len(positional):
            parameters = reporting.counted(len(positional), "positional parameter")
            message = TOO_MANY_AXES.format(count=len(axes), parameters=parameters, function=structures.named(function))
            reporting.error_with_notes(api, at, VMAP_CODE, message, [ONE_PER_ARGUMENT])


def check_out_axes(api: CheckerPluginInterface, at: Context, function: FuncItem, out_axes: Expression) -> None:
    """``out_axes`` written as a tuple, a list or a dict that no return of the function fits."""
    spec = structures.of_expression(out_axes)
    returns = [found for _, found in Returns(function, {}).read()]
    if isinstance(spec, structures.Node) and returns and all(structures.not_a_prefix(spec, found) for found in returns):
        message = OUT_AXES.format(
            spec=structures.describe(spec), function=structures.named(function), got=structures.describe_each(returns)
        )
        reporting.error_with_notes(api, at, VMAP_CODE, message, [OUT_AXES_LIKE_THE_OUTPUT])


def is_none(node: Expression) -> bool:
    return isinstance(node, NameExpr) and node.fullname == "builtins.None"


RULE: Final = Rule(
    GRAD_CODE,
    other_codes=(VMAP_CODE,),
    function_hooks={**dict.fromkeys(SCALAR_GRADS, on_transform), fullnames.VMAP: on_transform},
    function_signature_hooks={fullnames.PARTIAL: on_partial},
)
