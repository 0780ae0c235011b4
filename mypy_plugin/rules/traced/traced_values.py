"""``jax-traced-value`` and ``jax-traced-shape`` (``docs/rules/``): how the rule finds them.

The rule walks each transformed function once, with the helpers it calls
(``analyses/transforms.py`` says which are traced, and which parameters;
``rules/traced/tracing.py`` finds the sites), from the hook mypy runs for the transform itself: the
function hooks of ``transforms.TRANSFORMS`` (a decorator, ``jax.jit(f)``, ``@jax.jit(...)``)
and of ``transforms.LAX_BODIES``, and the ``functools.partial`` signature hook
(``@partial(jax.jit, ...)``). mypy checks decorators before function bodies, so the walk reads
declared types, and of a global or a field only the type mypy has given it so far (an
unannotated one assigned below is undecided). Sites that make a shape are reported under
``jax-traced-shape``, the rest under ``jax-traced-value``, each with what JAX raises there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from mypy.nodes import (
    CallExpr,
    Context,
    Decorator,
    Expression,
    FuncDef,
    FuncItem,
    IndexExpr,
    LambdaExpr,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    TupleExpr,
    TypeInfo,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, FunctionSigContext
from mypy.types import CallableType, FunctionLike, Type, get_proper_type

from mypy_plugin.analyses import applied, later_reads, sites, transforms
from mypy_plugin.analyses.sites import Site
from mypy_plugin.analyses.transforms import JIT_KIND, TransformedFunction
from mypy_plugin.lib import checked_module, errorcodes, fullnames, mypy_internals, release, reporting, types
from mypy_plugin.lib.fixes import Fix
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.rules.traced import leaks, tracing
from mypy_plugin.rules.traced.calls import initializer

CODE: Final = errorcodes.TRACED_VALUE
SHAPE_CODE: Final = errorcodes.TRACED_SHAPE
LEAK_CODE: Final = errorcodes.LEAKED_TRACER

RAISES: Final = {
    sites.BOOL: "TracerBoolConversionError",
    sites.CONVERT: "ConcretizationTypeError",
    sites.INDEX: "TracerIntegerConversionError",
    sites.NUMPY_CONVERSION: "TracerArrayConversionError",
    sites.BOOLEAN_MASK: "NonConcreteBooleanIndexError",
    sites.NO_SIZE: "ConcretizationTypeError",
    sites.SLICE: "IndexError",
    sites.FORMAT: "TypeError",
}
"""What JAX raises at each kind of site."""

BRANCH: Final = (
    'Choose between values with "{jnp}.where({condition}, a, b)", or between computations with '
    '"jax.lax.cond({condition}, true_fun, false_fun, *operands)"'
)
LOOP: Final = 'Loop on a traced condition with "jax.lax.while_loop(cond_fun, body_fun, init_val)"'
ASSERT: Final = (
    'Assert only on shapes and dtypes here; check values with "jax.experimental.checkify.check" (the '
    'function run under "checkify.checkify")'
)
COMBINE: Final = 'Combine traced conditions with "&", "|" and "~" (or "{jnp}.logical_and", "{jnp}.logical_or", "{jnp}.logical_not")'
CHAINED: Final = 'Compare one pair at a time and combine with "&": "(a < b) & (b < c)"'
KEEP_AN_ARRAY: Final = 'A tracer has no Python value while JAX traces: keep it an array (e.g. "x.astype({jnp}.int32)" instead of "int(x)")'
AUX: Final = (
    'Keep it an array here; for its Python value (to log it), return it beside the result with "has_aux=True" and convert it outside'
)
PRINT: Final = 'To print it as the function runs, use "jax.debug.print("{{{spec}}}", {value})"'
FORI_LOOP: Final = 'Loop a traced number of times with "jax.lax.fori_loop(0, n, body_fun, init_val)"'
INDEX_THE_VALUES: Final = (
    'Keep the values in a JAX array and index it (e.g. "{jnp}.asarray(list({values}.values()))[{index}]" for keys 0, 1, ...)'
)
ITEMS_OF_A_SHAPE: Final = "Iterating a 0-d array raises TypeError there instead, a 2-d one ValueError"
INDEX_AN_ARRAY: Final = 'Index a JAX array instead (e.g. "{jnp}.asarray({values})[{index}]")'
USE_JAX_NUMPY: Final = 'Use the jax.numpy function, which traces: "{name}"'
STATIC: Final = 'If "{name}" is a Python setting, make it static: {how}'
PASS_TO_JIT: Final = 'pass "static_argnames=("{name}",)" to jax.jit'

NEEDS_THE_VALUE: Final = "{construct} needs the Python value of {value} under {transform}; JAX raises {error}"
CONVERTS_TO_NUMPY: Final = "{construct} converts {value} to NumPy under {transform}; JAX raises {error}"
GIVEN_AS_A_SHAPE: Final = "{construct} is given {value} as a shape or size under {transform}; JAX raises {error}"
TRACED_SLICE_BOUND: Final = "A slice bound is {value} under {transform}; JAX raises {error}"
MASK_TRACED: Final = "{mask} is traced under {transform}; JAX raises {error}"
WITHOUT_SIZE: Final = '{construct} of {value} without "size=" under {transform}; JAX raises {error}'
NAMED_VALUE: Final = 'traced "{text}"'
UNNAMED_VALUE: Final = "a traced value"
NAMED_MASK: Final = 'Boolean mask "{text}"'
UNNAMED_MASK: Final = "A boolean mask"
LONGEST_QUOTED: Final = 60
"""The longest expression an error quotes; a longer one is named by what it is."""
WHERE_FOR_A_MASK: Final = (
    'A boolean mask makes a shape from values; keep the shape with "{jnp}.where({mask}, {array}, 0)", or use "size=" of "{jnp}.nonzero"'
)
WHERE_FOR_A_MASKED_UPDATE: Final = (
    'A boolean mask makes a shape from values; choose the new values with "{jnp}.where({mask}, new_values, {array})" instead'
)
HELPER: Final = 'In "{function}"{steps}, which {transform} traces'
CALLED_FROM: Final = ', called from "{function}" at line {line}'
SHAPE_FROM_SHAPES: Final = (
    'A shape must be known while JAX traces: make "{value}" static, or compute it from shapes ("x.shape[0]"); to keep the shape '
    'and drop entries, mask instead ("{jnp}.where({jnp}.arange(x.shape[0]) < n, x, 0)")'
)
STATIC_SLICE: Final = (
    'Slice with a traced start and a static size: "jax.lax.dynamic_slice_in_dim(x, start, size)"; or make "{value}" static'
)
SLICED_LIST: Final = 'Where "{name}" is a list, Python raises TracerIntegerConversionError there instead'
SETTING_FROM_PYTHON: Final = (
    "JAX reads it while tracing, to decide what to compute: pass a Python value, computed from shapes "
    '("x.ndim - 1") and Python settings, not from array values'
)
OUTLIVES_THE_TRACE: Final = (
    '{value} kept in "{holder}" outlives the trace of {transform}; its use at line {line} raises UnexpectedTracerError'
)
COLLECT_IT: Final = (
    'Collect it as a result: "jax.lax.scan" stacks the second item its body returns at each step; '
    'to see it while tracing, use "jax.debug.print"'
)
RETURN_IT: Final = 'Return it from "{function}" and keep what the call returns; to see it while tracing, use "jax.debug.print"'
FIX_THE_SIZE: Final = 'Give the result a fixed shape with "size=" (the most entries expected); "fill_value=" sets the padding'


def on_transform(ctx: FunctionContext) -> Type:
    """A transform of ``transforms.TRANSFORMS`` called: as a decorator (the context is the
    ``Decorator``), as ``jax.jit(f, ...)``, or as ``jax.jit(...)`` that decorates."""
    context = ctx.context
    if isinstance(context, Decorator):
        check(ctx.api, lambda: transforms.decorated(context), context)
    elif isinstance(context, CallExpr):
        check(ctx.api, lambda: transformed_at(ctx.api, context), context)
    return ctx.default_return_type


def on_lax(ctx: FunctionContext) -> Type:
    """``jax.lax.fori_loop(0, n, body, x)`` and the rest of ``transforms.LAX_BODIES``: the
    functions of the module and the lambdas it is given are walked, under ``jax.jit`` or not."""
    context = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    if isinstance(context, CallExpr) and tree is not None:
        for body in transforms.lax_bodies(context, tree.fullname):
            check(ctx.api, lambda body=body: body, context)  # type: ignore[misc]
    return ctx.default_return_type


def on_partial(ctx: FunctionSigContext) -> FunctionLike:
    """``partial(jax.jit, ...)`` (mypy's own plugin keeps its hooks for ``partial``: this one
    only reads)."""
    context = ctx.context
    if isinstance(context, CallExpr) and transforms.partial_transform(context) is not None:
        check(ctx.api, lambda: transformed_decorated_by(ctx.api, context), context)
    return ctx.default_signature


def transformed_at(api: CheckerPluginInterface, call: CallExpr) -> TransformedFunction | None:
    """``jax.jit(f, ...)`` for a function of the module, ``jax.jit(model.step)`` for a method of
    one of its classes bound to an instance (the type mypy gave ``model.step`` says which),
    ``jax.jit(Model)`` for one of its classes (the ``__init__`` written there runs traced), or
    ``@jax.jit(...)``."""
    tree = mypy_internals.module_tree(api)
    found = transforms.transformed_by(call, tree.fullname) if tree is not None else None
    target = call.args[0] if call.args and call.arg_names[0] is None else None
    if found is None and tree is not None and isinstance(target, MemberExpr):
        method = get_proper_type(mypy_internals.type_map_type(api, target))
        definition = method.definition if isinstance(method, CallableType) else None
        if isinstance(definition, FuncDef) and names_a_value(target.expr):
            found = transforms.bound_method(call, definition, tree.fullname)
    if found is None and tree is not None and isinstance(target, NameExpr) and isinstance(target.node, TypeInfo):
        init = initializer(target.node, tree.fullname)  # jax.jit(Model): its __init__ runs traced
        found = transforms.bound_method(call, init, tree.fullname) if init is not None else None
    return found if found is not None else transformed_decorated_by(api, call)


def names_a_value(node: Expression) -> bool:
    """Whether ``node`` names a value (``model``), not a class or a module (``Model.step`` is
    the plain function, its ``self`` an argument)."""
    return not (isinstance(node, RefExpr) and isinstance(node.node, (TypeInfo, MypyFile)))


def transformed_decorated_by(api: CheckerPluginInterface, call: CallExpr) -> TransformedFunction | None:
    """The transformed function ``call`` decorates (``@jax.jit(...)``, ``@partial(jax.jit, ...)``)."""
    decorator = checked_module.decorated_by(api, call)
    return transforms.decorated(decorator) if decorator is not None else None


def check(api: CheckerPluginInterface, find: Callable[[], TransformedFunction | None], transform: Context) -> None:
    """Find the transformed function (``find``, only where mypy shows the module's errors: not
    in JAX's own modules, which call ``jax.jit`` too), walk it and report its sites, each time
    mypy checks the transform: mypy removes the same error reported twice on a line, and the
    daemon, which drops the errors of what it checks again, gets them afresh. mypy runs the
    hooks of an overloaded ``jax.jit`` only while it tries its items, discarding what they
    report, so the reports are made past those watchers (``mypy_internals.unwatched``): they
    are about the function's body, not about the call being tried. In a body mypy does not
    check (an unannotated function, without ``check_untyped_defs``), mypy drops what is reported
    there: each such site is reported at the innermost checked call on the way to it, or at the
    transform, with a note naming its line (``placed``)."""
    with mypy_internals.unwatched(api) as shown:
        traced = find() if shown else None
        tree = mypy_internals.module_tree(api)
        if traced is None or tree is None:
            return
        found: list[applied.Applied] = []

        def calls() -> applied.Applied:
            """The calls of the transformed function, searched for once, where asked."""
            if not found:
                found.append(calls_of_transform(api, transform))
            return found[0]

        if traced.leaf_parameters and traced.kind in transforms.TRACING_EVERY_ARGUMENT:
            traced.given = applied.given_states(traced, calls())
        for site in sites_walked(traced, tree, daemon=api.options.fine_grained_incremental):
            at, where = placed(api, traced, site, transform)
            if site.kind == sites.LEAK:
                report_leak(api, traced, site, at, where, transform, calls())
            elif site.kind in sites.SHAPE_KINDS:
                report_shape(api, traced, site, at, where)
            else:
                report_value(api, traced, site, at, where)


_walks: tuple[MypyFile, dict[object, list[Site]]] | None = None


def sites_walked(traced: TransformedFunction, tree: MypyFile, daemon: bool) -> list[Site]:
    """The sites of one walk of ``traced``: walked once per module check for each function and
    what the walk starts from, though mypy runs a transform's hook again (a deferred function,
    each item of an overload it tries). The daemon checks a tree again in place, after other
    modules changed what the walk reads of them: there every check walks afresh."""
    global _walks
    if daemon:
        return tracing.Walk(traced, tree).run()
    if _walks is None or _walks[0] is not tree:
        _walks = (tree, {})
    given = tuple(sorted(traced.given.items(), key=lambda item: item[0]))
    key: tuple[object, ...] = (id(traced.function), traced.kind, traced.name, traced.traced_parameters, traced.leaf_parameters)
    key = (*key, traced.bound, given, traced.flattened)
    if key not in _walks[1]:
        _walks[1][key] = tracing.Walk(traced, tree).run()
    return _walks[1][key]


def calls_of_transform(api: CheckerPluginInterface, transform: Context) -> applied.Applied:
    """The calls of the function ``transform`` makes: a decorator (``@jax.jit``, or the
    ``@jax.jit(...)`` call among its decorators), or ``jax.jit(f, ...)``."""
    decorator = transform if isinstance(transform, Decorator) else checked_module.decorated_by(api, transform)
    if decorator is not None:
        return applied.calls_of_transformed(api, decorator)
    return applied.calls_of_transformed(api, transform) if isinstance(transform, CallExpr) else applied.NOT_FOUND


def placed(api: CheckerPluginInterface, traced: TransformedFunction, site: Site, transform: Context) -> tuple[Context, list[str]]:
    """Where to report ``site`` so that mypy shows it, and the notes that say where it is. In a
    helper, a note names the calls that lead there. In a body mypy does not check (an unannotated
    function, without ``check_untyped_defs``), mypy drops what is reported: the report goes to the
    innermost checked call on the way there, or to the transform, with a note naming the line."""
    functions = [traced.function, *(function for _, function in site.trail)]
    calls = [call for call, _ in site.trail]
    notes = []
    if calls:
        steps = "".join(CALLED_FROM.format(function=functions[i].name, line=calls[i].line) for i in reversed(range(len(calls))))
        notes.append(HELPER.format(function=functions[-1].name, steps=steps, transform=traced.transform))
    if checked(api, functions[-1]):
        return site.node, notes
    at = next((calls[i] for i in reversed(range(len(calls))) if checked(api, functions[i])), transform)
    return at, [reporting.UNCHECKED_BODY.format(line=site.node.line, function=functions[-1].name), *notes]


def checked(api: CheckerPluginInterface, function: FuncItem) -> bool:
    """Whether mypy checks the body of ``function`` (and shows what is reported there)."""
    return isinstance(function, LambdaExpr) or not function.is_dynamic() or api.options.check_untyped_defs


def written(node: Expression) -> str:
    """The traced value as the error names it: ``traced "x.sum()"``, or for one too long to
    print, ``a traced value``."""
    text = source(node)
    return NAMED_VALUE.format(text=text) if text is not None and len(text) <= LONGEST_QUOTED else UNNAMED_VALUE


def describe_mask(node: Expression) -> str:
    text = source(node)
    return NAMED_MASK.format(text=text) if text is not None and len(text) <= LONGEST_QUOTED else UNNAMED_MASK


def report_value(api: CheckerPluginInterface, traced: TransformedFunction, site: Site, at: Context, where: list[str]) -> None:
    """``jax-traced-value``: a Python value of a tracer is needed."""
    error = site.raises or RAISES[site.kind]
    text = CONVERTS_TO_NUMPY if site.kind == sites.NUMPY_CONVERSION else NEEDS_THE_VALUE
    message = text.format(construct=site.construct, value=written(site.value), transform=traced.transform, error=error)
    static = static_note(api, traced, site.value) if not site.trail else None
    notes = [*where, *value_notes(api, traced, site), *([static[0]] if static is not None else [])]
    reporting.error_with_notes(api, at, CODE, message, notes, static[1] if static is not None else None)


def numpy_name(api: CheckerPluginInterface) -> str:
    """How the checked module names ``jax.numpy`` (``jnp``, ``np``, ``jax.numpy``), for the
    code a note quotes; ``jnp`` where it does not import it as a module."""
    written, imports = checked_module.reference(api, fullnames.JAX_NUMPY, "where")
    prefix = written.rpartition(".")[0]
    return prefix if prefix and not imports else "jnp"


def value_notes(api: CheckerPluginInterface, traced: TransformedFunction, site: Site) -> list[str]:
    condition = source(site.value) or "pred"
    jnp = numpy_name(api)
    found: list[str] = []
    if site.kind == sites.BOOL and site.callee in sites.COMPARING_BUILTINS:
        found.extend(compare_with_jax_numpy(api, site))
    elif site.kind == sites.BOOL:
        found.append(
            {
                '"while"': LOOP,
                '"assert"': ASSERT,
                '"and"': COMBINE,
                '"or"': COMBINE,
                '"not"': COMBINE,
                "a chained comparison": CHAINED,
            }.get(site.construct, BRANCH).format(condition=condition, jnp=jnp)
        )
    elif site.kind == sites.CONVERT and site.callee.startswith("math."):
        name = sites.MATH_FUNCTIONS[site.callee.rpartition(".")[2]]
        reference, _ = checked_module.reference(api, fullnames.JAX_NUMPY, name)
        found.append(USE_JAX_NUMPY.format(name=f"{reference}({source(site.value) or 'x'})"))
    elif site.kind == sites.CONVERT:
        if site.printing:
            found.append(PRINT.format(spec="", value=source(site.value) or "x"))
        else:
            found.append(AUX if traced.differentiated else KEEP_AN_ARRAY.format(jnp=jnp))
    elif site.kind == sites.INDEX:
        found.append(FORI_LOOP if site.construct == '"range()"' else index_an_array(site, jnp, site.construct == sites.DICT_INDEX))
    elif site.kind == sites.NUMPY_CONVERSION and site.construct == sites.NUMPY_INDEX:
        found.append(index_an_array(site, jnp))
    elif site.kind == sites.NUMPY_CONVERSION:
        name = site.callee.rpartition(".")[2] if site.callee else "asarray"
        reference, _ = checked_module.reference(api, fullnames.JAX_NUMPY, name)
        found.append(USE_JAX_NUMPY.format(name=f"{reference}({source(site.value) or 'x'})"))
    elif site.kind == sites.FORMAT:
        found.append(PRINT.format(spec=site.construct.partition('"')[2].rstrip('"'), value=source(site.value) or "x"))
    elif site.kind == sites.SETTING_ARGUMENT:
        found.append(SETTING_FROM_PYTHON)
    return found


def index_an_array(site: Site, jnp: str, mapping: bool = False) -> str:
    """The container indexed by a tracer, made a JAX array (``jnp.asarray(TABLE)[i]``; a dict's
    values, for keys that count from 0)."""
    base = site.node.base if isinstance(site.node, IndexExpr) else None
    values = (source(base) if base is not None else None) or "values"
    values = values if len(values) <= LONGEST_QUOTED else "values"
    index = source(site.value) or "i"
    if mapping:
        return INDEX_THE_VALUES.format(jnp=jnp, values=values, index=index)
    return INDEX_AN_ARRAY.format(jnp=jnp, values=values, index=index)


def compare_with_jax_numpy(api: CheckerPluginInterface, site: Site) -> list[str]:
    """``max(x, 0.0)`` as ``jnp.maximum(x, 0.0)``, ``any(x > 0)`` as ``jnp.any(x > 0)``; where one
    array's items are compared, what other shapes raise."""
    assert isinstance(site.node, CallExpr)  # a comparing builtin's call
    one, two = sites.COMPARING_BUILTINS[site.callee]
    arguments = [source(arg) or "x" for arg in site.node.args]
    reference, _ = checked_module.reference(api, fullnames.JAX_NUMPY, two if len(arguments) > 1 else one)
    if len(arguments) > 1:
        return [USE_JAX_NUMPY.format(name=f"{reference}({', '.join(arguments)})")]
    if isinstance(site.node.args[0], (ListExpr, TupleExpr)):  # the items as one array
        stack, _ = checked_module.reference(api, fullnames.JAX_NUMPY, "stack")
        return [USE_JAX_NUMPY.format(name=f"{reference}({stack}({arguments[0]}))")]
    return [USE_JAX_NUMPY.format(name=f"{reference}({arguments[0]})"), ITEMS_OF_A_SHAPE]


def static_note(api: CheckerPluginInterface, traced: TransformedFunction, value: Expression) -> tuple[str, Fix | None] | None:
    """For a parameter declared as a Python scalar, or written without a type, under
    ``jax.jit``: how to make it static, in the form of the decorator written, with the fix
    ``transforms.made_static`` makes of it."""
    parameters = traced.traced_parameters | traced.leaf_parameters
    if traced.kind != JIT_KIND or not isinstance(value, NameExpr) or value.name not in parameters:
        return None
    declared = transforms.declared_type(traced.function, value.name)
    unannotated = value.name in traced.leaf_parameters and declared is None  # used as a number: may be a Python setting
    if not unannotated and (declared is None or not types.python_scalar(declared)):
        return None
    if transforms.positional_only(traced.function, value.name):
        return None
    if traced.decorator is None:
        if isinstance(traced.function, FuncDef) and traced.function.is_decorated:
            return None  # a stack of transforms ("@jax.jit @jax.vmap"): making it static takes more than an option
        return STATIC.format(name=value.name, how=PASS_TO_JIT.format(name=value.name)), None
    how, fix = transforms.made_static(api, traced.decorator, value.name)
    return STATIC.format(name=value.name, how=how), fix


def report_shape(api: CheckerPluginInterface, traced: TransformedFunction, site: Site, at: Context, where: list[str]) -> None:
    """``jax-traced-shape``: a shape would be made from traced values."""
    error = site.raises or RAISES[site.kind]
    value = source(site.value) or "n"
    said = {"construct": site.construct, "value": written(site.value), "transform": traced.transform, "error": error}
    if site.kind == sites.SHAPE_ARGUMENT:
        message = GIVEN_AS_A_SHAPE.format(**said)
        note = SHAPE_FROM_SHAPES.format(value=value, jnp=numpy_name(api))
    elif site.kind == sites.SLICE:
        message = TRACED_SLICE_BOUND.format(**said)
        note = STATIC_SLICE.format(value=value)
        if site.construct == sites.SLICED_PARAMETER:
            base = site.node.base if isinstance(site.node, IndexExpr) else None
            note = f"{note}. {SLICED_LIST.format(name=(source(base) if base is not None else None) or 'it')}"
    elif site.kind == sites.BOOLEAN_MASK:
        message = MASK_TRACED.format(mask=describe_mask(site.value), **said)
        base = site.node.base if isinstance(site.node, IndexExpr) else None
        if isinstance(base, MemberExpr) and base.name == "at":  # x.at[mask].set(v)
            note = WHERE_FOR_A_MASKED_UPDATE.format(mask=source(site.value) or "mask", array=source(base.expr) or "x", jnp=numpy_name(api))
        else:
            array = (source(base) if base is not None else None) or "x"
            note = WHERE_FOR_A_MASK.format(mask=source(site.value) or "mask", array=array, jnp=numpy_name(api))
    else:
        message = WITHOUT_SIZE.format(**said)
        note = FIX_THE_SIZE
    reporting.error_with_notes(api, at, SHAPE_CODE, message, [*where, note])


def report_leak(
    api: CheckerPluginInterface,
    traced: TransformedFunction,
    site: Site,
    at: Context,
    where: list[str],
    transform: Context,
    calls: applied.Applied,
) -> None:
    """``jax-leaked-tracer``: a tracer stored where it outlives the trace, where the module
    computes with it after a call of the function (``rules/traced/leaks.py``)."""
    target = transform.args[0] if isinstance(transform, CallExpr) and transform.args else None
    instance = target.expr if traced.bound and isinstance(target, MemberExpr) else None
    holder = leaks.holder_of(site, transforms.receiver_of(traced.function) if traced.bound else None, instance)
    # a call of the name before "f = jax.jit(f)" runs the plain function
    lax_body = traced.kind == transforms.LAX_KIND
    ran = [transform] if lax_body and isinstance(transform, CallExpr) else [call for call in calls.calls if call.line >= transform.line]
    tree = mypy_internals.module_tree(api)
    if holder is None or tree is None:
        return
    if not traced.staged and not release.at_least(release.LEAKED_EAGER_TRACERS_RAISE):
        return
    holder.only_appended = holder.appended and leaks.starts_empty(tree, holder.root)
    use = next((found for call in ran if (found := later_reads.first_read(api, call, holder)) is not None), None)
    if use is None:
        return
    message = OUTLIVES_THE_TRACE.format(value=written(site.value), holder=holder.written(), transform=traced.transform, line=use.line)
    function = traced.function.name if isinstance(traced.function, FuncDef) else "the function"
    notes = [*where, COLLECT_IT if traced.kind == transforms.LAX_KIND else RETURN_IT.format(function=function)]
    reporting.error_with_notes(api, at, LEAK_CODE, message, notes)


RULE: Final = Rule(
    CODE,
    other_codes=(SHAPE_CODE, LEAK_CODE),
    function_hooks={**dict.fromkeys(transforms.TRANSFORMS, on_transform), **dict.fromkeys(transforms.LAX_BODIES, on_lax)},
    function_signature_hooks={fullnames.PARTIAL: on_partial},
)
