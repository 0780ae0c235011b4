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
    ARG_NAMED,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    CallExpr,
    Context,
    Decorator,
    DictExpr,
    Expression,
    FuncItem,
    ListExpr,
    NameExpr,
    RefExpr,
    StrExpr,
    TupleExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, FunctionSigContext
from mypy.types import FunctionLike, Instance, Type, get_proper_type

from mypy_plugin.analyses import applied, bindings, structures, transforms, values
from mypy_plugin.analyses.structures import Returns
from mypy_plugin.lib import checked_module, errorcodes, fullnames, mypy_internals, reporting, types
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import int_literal, source
from mypy_plugin.lib.types import members
from mypy_plugin.rules.transform_arguments import shapes

GRAD_CODE: Final = errorcodes.GRAD_OUTPUT
ARGUMENT_CODE: Final = errorcodes.GRAD_ARGUMENT
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
INT_ARGUMENT: Final = "Argument {position} of {called} is {what}, which {transform} cannot differentiate; JAX raises TypeError"
PASS_A_FLOAT: Final = 'Pass a float ("{float}"); to differentiate other arguments only, set "argnums" to their positions'
TOO_FEW_POSITIONAL: Final = (
    "{transform} differentiates argument {position} (argnums), but {called} passes {passed} by position; JAX raises {error}"
)
PASS_BY_POSITION: Final = 'Pass the differentiated arguments by position, or set "argnums" to the positions the calls pass'
ARGNUMS_ERRORS: Final = {"jax.grad": "TypeError", "jax.value_and_grad": "TypeError"}
"""What a call that passes too few positional arguments for ``argnums`` raises (``ValueError``
for the rest: ``jax.jacfwd``, ``jax.jacrev``, ``jax.hessian``; measured on JAX 0.10.2)."""
AXES_FOR_THE_CALL: Final = "in_axes of jax.vmap has {count} entries, but {called} passes {passed} by position; JAX raises ValueError"
NOTHING_TO_MAP: Final = "Argument {position} of {called} is {what}, which has no axis for jax.vmap to map; JAX raises ValueError"
PASS_AN_ARRAY: Final = 'Pass an array ("{jnp}.asarray({value})"), or give it "None" in "in_axes" to pass it unmapped'
OTHER_KEYS: Final = (
    "in_axes of jax.vmap gives argument {position} the keys {axes}, but {called} passes the keys {passed}; JAX raises ValueError"
)
SAME_KEYS: Final = 'Give "in_axes" a dict with the keys of the dict passed, or one int for the whole argument'
KEYWORDS_MAPPED: Final = (
    'Arguments passed by keyword ({names}) have no entry in "in_axes": jax.vmap maps them along axis 0; pass them by position to give'
    " them one"
)
SIZES_DIFFER: Final = (
    "jax.vmap maps an axis of size {a} ({first}) and one of size {b} ({second}) in this call of {called}; JAX raises ValueError"
)
ONE_SIZE: Final = 'Every mapped axis has the batch\'s size: pass arrays of one length there, or leave one unmapped ("None" in "in_axes")'
NO_SUCH_AXIS: Final = "jax.vmap maps axis {axis} of {what} of {called}, which has {rank}; JAX raises ValueError"
MAP_AN_AXIS_IT_HAS: Final = 'Map an axis the argument has (from 0, or -1 for the last), or pass it unmapped ("None" in "in_axes")'
NOT_A_PREFIX: Final = "in_axes of jax.vmap gives argument {position} of {called} {axes}, but it is {passed}; JAX raises ValueError"
AXES_LIKE_THE_ARGUMENT: Final = (
    'Give each argument one int (or "None"), or a tree of its own structure; to map an array along two axes, apply jax.vmap twice'
)
OUT_AXES_AT_THE_CALL: Final = "out_axes of jax.vmap is {spec}, but {function} returns {got} for this call; JAX raises ValueError"
AXES_OF_A_KIND: Final = "in_axes of {transform} is {what}; {raises}"
VMAP_AXES_KINDS: Final = 'Give "in_axes" a tuple with one entry per positional argument: "(axes,)" for a tree of axes of one argument'
PMAP_AXES_KINDS: Final = (
    'Give "in_axes" a tuple with one entry per positional argument ("(0, None)", not "[0, None]"): "(axes,)" for a tree of axes of one'
    " argument"
)
ONE_PER_ARGUMENT: Final = 'Give one entry per positional argument the calls pass ("None" for one that is not mapped)'


def on_transform(ctx: FunctionContext) -> Type:
    """``@jax.grad`` (the context is the ``Decorator``) or ``jax.grad(f, ...)``; the same for
    ``jax.value_and_grad``, ``jax.vmap`` and ``jax.pmap``: the transform's own options, then
    the calls found of what it returns (through ``functools.partial`` too)."""
    context = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    if tree is None:
        return ctx.default_return_type
    if isinstance(context, Decorator):
        check_decorator(ctx.api, context)
    elif isinstance(context, CallExpr) and context.args and context.arg_names[0] is None:
        function = transforms.function_of(context.args[0], tree.fullname)
        fullname = fullnames.called(context.callee)
        options = transforms.options_of(context, 1, transforms.TRANSFORMS.get(fullname))
        if options is not None and not check_axes_kind(ctx.api, context, fullname, dict(options)):
            if function is not None:
                check(ctx.api, context, fullname, function, options)
            check_calls(ctx.api, applied.calls_with_partials(ctx.api, context), fullname, function, options)
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
    """The innermost decorator, where it is ``jax.grad``, ``jax.value_and_grad``, ``jax.vmap``
    or ``jax.pmap`` (bare, or bound with ``partial``)."""
    node = decorator.decorators[-1]
    found = transforms.transform_of(node)
    if found is None:
        return
    _, options = found
    callee = node.args[0] if isinstance(node, CallExpr) and transforms.partial_transform(node) is not None else node
    if isinstance(callee, CallExpr):
        callee = callee.callee
    if check_axes_kind(api, node, fullnames.called(callee), dict(options)):
        return
    check(api, node, fullnames.called(callee), decorator.func, options)
    if len(decorator.decorators) == 1:
        check_calls(api, applied.calls_with_partials(api, decorator), fullnames.called(callee), decorator.func, options)


def check(api: CheckerPluginInterface, at: Context, fullname: str, function: FuncItem, options: list[tuple[str, Expression]]) -> None:
    """What the transform's own options and the function's returns decide, for every call."""
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
    positional = [kind for kind in function.arg_kinds if kind in (ARG_POS, ARG_OPT)]  # set where mypy's cache holds it too
    if isinstance(in_axes, (TupleExpr, ListExpr)) and ARG_STAR not in function.arg_kinds:
        if len(axes) > len(positional):
            parameters = reporting.counted(len(positional), "positional parameter")
            message = TOO_MANY_AXES.format(count=len(axes), parameters=parameters, function=structures.named(function))
            reporting.error_with_notes(api, at, VMAP_CODE, message, [ONE_PER_ARGUMENT])


def check_calls(
    api: CheckerPluginInterface, calls: list[CallExpr], fullname: str, function: FuncItem | None, options: list[tuple[str, Expression]]
) -> None:
    """The calls of what ``jax.grad`` (or its kin) or ``jax.vmap`` returned, each against the
    options it was given (``analyses/applied.py`` finds them); a call with ``*args`` or
    ``**kwargs`` is not read. The reports are about other lines than the transform that mypy
    may be trying (an overloaded ``jax.value_and_grad``): made past its watchers, as
    ``traced_values.check`` makes them."""
    with mypy_internals.unwatched(api) as shown:
        for call in calls if shown else []:
            if any(kind in (ARG_STAR, ARG_STAR2) for kind in call.arg_kinds):
                continue
            if fullname in fullnames.GRADS:
                check_grad_call(api, call, fullnames.GRADS[fullname], dict(options))
            elif fullname == fullnames.VMAP:
                check_vmap_call(api, call, function, dict(options))
            elif fullname in fullnames.PMAPS:
                check_pmap_call(api, call, dict(options))


def check_grad_call(api: CheckerPluginInterface, call: CallExpr, transform: str, options: dict[str, Expression]) -> None:
    """``argnums`` past the arguments the call passes by position, or an int (a bool) passed
    at a differentiated position (unless ``allow_int`` is given)."""
    numbers = transforms.literal_items(options["argnums"], int) if "argnums" in options else [0]
    if numbers is None or any(number < 0 for number in numbers):
        return
    positional = [arg for arg, kind in zip(call.args, call.arg_kinds) if kind == ARG_POS]
    called = f'"{source(call.callee) or "the function"}"'
    beyond = [number for number in numbers if number >= len(positional)]
    if beyond:
        passed = reporting.counted(len(positional), "argument")
        message = TOO_FEW_POSITIONAL.format(
            transform=transform, position=beyond[0] + 1, called=called, passed=passed, error=ARGNUMS_ERRORS.get(transform, "ValueError")
        )
        reporting.error_with_notes(api, call, ARGUMENT_CODE, message, [PASS_BY_POSITION])
        return
    if "allow_int" in options:
        return
    for number in numbers:
        arg = positional[number]
        what = integer(arg)
        if what is not None and bindings.holds(api, arg):
            message = INT_ARGUMENT.format(position=number + 1, called=called, what=what, transform=transform)
            written = as_float(arg)
            reporting.error_with_notes(api, arg, ARGUMENT_CODE, message, [PASS_A_FLOAT.format(float=written)])
            return


def check_vmap_call(api: CheckerPluginInterface, call: CallExpr, function: FuncItem | None, options: dict[str, Expression]) -> None:
    """``in_axes`` written as a tuple or list with another count of entries than the call's
    positional arguments; a Python number, or a list or tuple of them, at a mapped position (it
    has no axis); a dict of ``in_axes`` whose keys are not those of the dict passed there, or
    any tree of axes that is not a prefix of the argument's structure; mapped axes of other
    sizes, or past an array's rank (``check_mapped_sizes``); ``out_axes`` against what the
    function returns for these arguments. Each is reported at the call, which JAX raises from
    (the call's line also where an argument came from a ``functools.partial``)."""
    in_axes = options.get("in_axes")
    positional = [arg for arg, kind in zip(call.args, call.arg_kinds) if kind == ARG_POS]
    called = f'"{source(call.callee) or "the function"}"'
    if in_axes is None or int_literal(in_axes) is not None:
        axes: list[Expression | None] = [None] * len(positional)  # every argument mapped
    elif isinstance(in_axes, (TupleExpr, ListExpr)):
        axes = list(in_axes.items)
        parameters = [kind for kind in function.arg_kinds if kind in (ARG_POS, ARG_OPT)] if function is not None else None
        if parameters is not None and len(axes) > len(parameters):
            return  # the transform is reported (TOO_MANY_AXES)
        if len(axes) != len(positional):
            passed = reporting.counted(len(positional), "argument")
            message = AXES_FOR_THE_CALL.format(count=len(axes), called=called, passed=passed)
            keywords = [f'"{name}"' for name, kind in zip(call.arg_names, call.arg_kinds) if kind == ARG_NAMED and name is not None]
            notes = [ONE_PER_ARGUMENT, *([KEYWORDS_MAPPED.format(names=", ".join(keywords))] if keywords else [])]
            reporting.error_with_notes(api, call, VMAP_CODE, message, notes)
            return
    else:
        return
    for index, (arg, axis) in enumerate(zip(positional, axes)):
        if axis is None or int_literal(axis) is not None:
            what = unmappable(arg)
            if what is not None:
                message = NOTHING_TO_MAP.format(position=index + 1, called=called, what=what)
                written, _ = checked_module.reference(api, fullnames.JAX_NUMPY, "asarray")
                note = PASS_AN_ARRAY.format(jnp=written.rpartition(".")[0] or "jnp", value=source(arg) or "values")
                reporting.error_with_notes(api, call, VMAP_CODE, message, [note])  # where JAX raises
                return
        elif isinstance(axis, DictExpr) and isinstance(arg, DictExpr):
            wanted, given = string_keys(axis), string_keys(arg)
            if wanted is not None and given is not None and wanted != given:
                message = OTHER_KEYS.format(position=index + 1, axes=listed(wanted), called=called, passed=listed(given))
                reporting.error_with_notes(api, call, VMAP_CODE, message, [SAME_KEYS])
                return
        else:
            spec, structure = structures.of_expression(axis), structures.of_argument(api, arg)
            if structures.not_a_prefix(spec, structure) and not structures.registered_apart(api, structure):
                described = structures.describe(spec), structures.describe(structure)
                message = NOT_A_PREFIX.format(position=index + 1, called=called, axes=described[0], passed=described[1])
                reporting.error_with_notes(api, call, VMAP_CODE, message, [AXES_LIKE_THE_ARGUMENT])
                return
    default = int_literal(in_axes) if in_axes is not None else 0
    mapped = [
        (f"argument {index + 1}", arg, default if axis is None else int_literal(axis))
        for index, (arg, axis) in enumerate(zip(positional, axes))
    ]
    mapped += [(f'"{name}"', arg, 0) for arg, kind, name in zip(call.args, call.arg_kinds, call.arg_names) if kind == ARG_NAMED]
    if not check_mapped_sizes(api, call, called, [(what, arg, axis) for what, arg, axis in mapped if axis is not None]):
        check_out_axes_of_call(api, call, function, options.get("out_axes"), positional)


def check_mapped_sizes(api: CheckerPluginInterface, call: CallExpr, called: str, mapped: list[tuple[str, Expression, int]]) -> bool:
    """The mapped axes of the arrays a call passes, where the code spells their shapes out
    (``shapes.py``; an argument passed by keyword is mapped along axis 0): an axis the array
    does not have, or two sizes. Whether it is reported."""
    if len(mapped) < 2 and all(axis in (0, -1) for _, _, axis in mapped):
        return False  # one mapped axis, which every array made here has: nothing to compare
    sizes: list[tuple[str, int]] = []
    for what, arg, axis in mapped:
        shape = shapes.shape_of(api, arg)
        has_axis, size = shapes.axis_size(shape, axis)
        if not has_axis:
            rank = len(shape or ())
            message = NO_SUCH_AXIS.format(axis=axis, what=what, called=called, rank=f"{rank} axis" if rank == 1 else f"{rank} axes")
            reporting.error_with_notes(api, call, VMAP_CODE, message, [MAP_AN_AXIS_IT_HAS])
            return True
        if size is not None:
            sizes.append((what, size))
    other = next((found for found in sizes if found[1] != sizes[0][1]), None)
    if other is not None:
        (first, a), (second, b) = sizes[0], other
        message = SIZES_DIFFER.format(a=a, first=first, b=b, second=second, called=called)
        reporting.error_with_notes(api, call, VMAP_CODE, message, [ONE_SIZE])
    return other is not None


def check_out_axes_of_call(
    api: CheckerPluginInterface, call: CallExpr, function: FuncItem | None, out_axes: Expression | None, positional: list[Expression]
) -> None:
    """``out_axes`` that no return fits once the parameters hold what the call passes (``x + y``
    of two arrays is an array), where the returns read alone did not decide it."""
    spec = structures.of_expression(out_axes) if out_axes is not None else None
    if function is None or not isinstance(spec, structures.Node) or misfits(spec, function, {}) is not None:
        return  # the transform is reported (OUT_AXES), or nothing is to be read
    parameters = structures.positional_parameters(function)
    given = {name: structures.of_argument(api, arg) for name, arg in zip(parameters, positional)}
    returns = misfits(spec, function, given)
    if returns is not None and not structures.registered_apart(api, *returns):
        called = f'"{source(call.callee) or "the function"}"'
        message = OUT_AXES_AT_THE_CALL.format(spec=structures.describe(spec), function=called, got=structures.describe_each(returns))
        reporting.error_with_notes(api, call, VMAP_CODE, message, [OUT_AXES_LIKE_THE_OUTPUT])


def misfits(spec: structures.Node, function: FuncItem, given: dict[str, structures.Structure]) -> list[structures.Structure] | None:
    """What each return of ``function`` gives, with its parameters holding ``given``, where
    ``spec`` is certainly a tree prefix of none of them; None otherwise."""
    returns = [found for _, found in Returns(function, given).read()]
    return returns if returns and all(structures.not_a_prefix(spec, found) for found in returns) else None


def check_pmap_call(api: CheckerPluginInterface, call: CallExpr, options: dict[str, Expression]) -> None:
    """``in_axes`` of ``jax.pmap`` that is a list or a dict: JAX compares it with the tuple of
    positional arguments, at each call."""
    in_axes = options.get("in_axes")
    what = axes_kind(api, in_axes, lists=True) if in_axes is not None else None
    if what is not None:
        message = AXES_OF_A_KIND.format(transform="jax.pmap", what=what, raises="JAX raises ValueError")
        reporting.error_with_notes(api, call, VMAP_CODE, message, [PMAP_AXES_KINDS])


def check_axes_kind(api: CheckerPluginInterface, at: Context, fullname: str, options: dict[str, Expression]) -> bool:
    """``in_axes`` of ``jax.vmap`` that is no tuple, list, int or None (a dict, a dataclass):
    ``jax.vmap`` itself raises. Whether it is reported."""
    in_axes = options.get("in_axes")
    what = axes_kind(api, in_axes, lists=False) if fullname == fullnames.VMAP and in_axes is not None else None
    if what is not None:
        message = AXES_OF_A_KIND.format(transform="jax.vmap", what=what, raises="JAX raises TypeError")
        reporting.error_with_notes(api, at, VMAP_CODE, message, [VMAP_AXES_KINDS])
    return what is not None


def axes_kind(api: CheckerPluginInterface, node: Expression, lists: bool) -> str | None:
    """What ``in_axes`` is where JAX rejects its kind, as written or as typed where the type
    holds: ``a dict``; for ``jax.vmap``, ``an instance of "Axes"`` (a dataclass: ``TypeError``
    whether or not it is a pytree); for ``jax.pmap`` (``lists``), ``a list`` (a dataclass
    raises ``ValueError`` there where it is a pytree, ``TypeError`` where not: left alone);
    None for an int, None, a tuple, and what is not known."""
    if isinstance(node, DictExpr):
        return "a dict"
    if isinstance(node, ListExpr):
        return "a list" if lists else None
    if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and isinstance(node.callee.node, TypeInfo):
        info: TypeInfo | None = node.callee.node
    elif isinstance(node, NameExpr) and isinstance(node.node, Var) and node.node.type is not None and bindings.holds(api, node):
        proper = get_proper_type(node.node.type)
        info = proper.type if isinstance(proper, Instance) else None
    else:
        return None
    if info is None:
        return None
    if info.fullname == "builtins.dict" or info.fullname == "builtins.list" and lists:
        return "a dict" if info.fullname == "builtins.dict" else "a list"
    return f'an instance of "{info.name}"' if "dataclass" in info.metadata and not lists else None


def unmappable(arg: Expression) -> str | None:
    """``a Python number`` for ``3.0``, ``a list of Python numbers`` for ``[1.0, 2.0]``: leaves
    of rank 0, which ``jax.vmap`` cannot map over."""
    if values.is_number(arg):
        return "a Python number"
    if isinstance(arg, (ListExpr, TupleExpr)) and arg.items and all(values.is_number(item) for item in arg.items):
        return f"a {'list' if isinstance(arg, ListExpr) else 'tuple'} of Python numbers"
    return None


def string_keys(node: DictExpr) -> frozenset[str] | None:
    keys = [key.value if isinstance(key, StrExpr) else None for key, _ in node.items]
    return frozenset(key for key in keys if key is not None) if all(key is not None for key in keys) else None


def listed(keys: frozenset[str]) -> str:
    return ", ".join(f'"{key}"' for key in sorted(keys))


def as_float(node: Expression) -> str:
    """An int written as a float: ``3.0`` for ``3``, ``1.0`` for ``True``, ``float(n)`` for a name."""
    number = int_literal(node)
    if number is not None:
        return f"{number}.0"
    if isinstance(node, NameExpr) and node.fullname in ("builtins.True", "builtins.False"):
        return "1.0" if node.fullname == "builtins.True" else "0.0"
    return f"float({source(node) or 'x'})"


def integer(node: Expression) -> str | None:
    """``an int`` or ``a bool`` for such a literal, or a variable mypy has typed as one
    (``val = 3`` above the call: the call's line is checked after it); None for anything else."""
    if int_literal(node) is not None:
        return "an int"
    if isinstance(node, NameExpr) and node.fullname in ("builtins.True", "builtins.False"):
        return "a bool"
    typ = node.node.type if isinstance(node, NameExpr) and isinstance(node.node, Var) else None
    found = members(typ) if typ is not None else []
    kinds = {types.member_class(member) for member in found}
    if found and kinds <= {"builtins.int", "builtins.bool"}:
        return "an int" if "builtins.int" in kinds else "a bool"
    return None


def check_out_axes(api: CheckerPluginInterface, at: Context, function: FuncItem, out_axes: Expression) -> None:
    """``out_axes`` written as a tuple, a list or a dict that no return of the function fits."""
    spec = structures.of_expression(out_axes)
    returns = misfits(spec, function, {}) if isinstance(spec, structures.Node) else None
    if returns is not None and not structures.registered_apart(api, *returns):
        message = OUT_AXES.format(
            spec=structures.describe(spec), function=structures.named(function), got=structures.describe_each(returns)
        )
        reporting.error_with_notes(api, at, VMAP_CODE, message, [OUT_AXES_LIKE_THE_OUTPUT])


def is_none(node: Expression) -> bool:
    return isinstance(node, NameExpr) and node.fullname == "builtins.None"


RULE: Final = Rule(
    GRAD_CODE,
    other_codes=(ARGUMENT_CODE, VMAP_CODE),
    function_hooks={
        **dict.fromkeys(fullnames.GRADS, on_transform),
        fullnames.VMAP: on_transform,
        **dict.fromkeys(fullnames.PMAPS, on_transform),
    },
    function_signature_hooks={fullnames.PARTIAL: on_partial},
)
