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
    LambdaExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    TypeInfo,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, FunctionSigContext
from mypy.types import CallableType, FunctionLike, Type, get_proper_type

from mypy_plugin.analyses import applied, later_reads, sites, transforms
from mypy_plugin.analyses.sites import Site
from mypy_plugin.analyses.transforms import JIT_KIND, TransformedFunction
from mypy_plugin.lib import checked_module, errorcodes, fullnames, mypy_internals, release, reporting, types
from mypy_plugin.lib.checked_module import Spelling
from mypy_plugin.lib.fixes import Fix
from mypy_plugin.lib.rule import Rule
from mypy_plugin.rules.traced import leaks, tracing, wording
from mypy_plugin.rules.traced.calls import initializer

CODE: Final = errorcodes.TRACED_VALUE
SHAPE_CODE: Final = errorcodes.TRACED_SHAPE
LEAK_CODE: Final = errorcodes.LEAKED_TRACER


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
        found_sites = sites_walked(traced, tree, daemon=api.options.fine_grained_incremental)
        if not found_sites:
            return  # most walks find nothing: how the module names what a report quotes is not read
        numpy, functools = Spelling(tree.defs, fullnames.JAX_NUMPY), Spelling(tree.defs, "functools")
        for site in found_sites:
            fix = None
            if site.kind == sites.LEAK:
                leaked = leaked_use(api, tree, traced, site, transform, calls())
                if leaked is None:
                    continue
                code, (message, notes) = LEAK_CODE, wording.leak_report(traced, site, *leaked)
            elif site.kind in sites.SHAPE_KINDS:
                code, (message, notes) = SHAPE_CODE, wording.shape_report(traced, site, numpy)
            else:
                code, (message, notes) = CODE, wording.value_report(traced, site, numpy)
                static = static_note(traced, site.value, functools) if not site.trail else None
                if static is not None:
                    notes, fix = [*notes, static[0]], static[1]
            at, where = placed(api, traced, site, transform)
            reporting.error_with_notes(api, at, code, message, [*where, *notes], fix)


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
    notes = wording.helper_note(traced, site)
    if checked(api, functions[-1]):
        return site.node, notes
    at = next((calls[i] for i in reversed(range(len(calls))) if checked(api, functions[i])), transform)
    return at, [reporting.UNCHECKED_BODY.format(line=site.node.line, function=functions[-1].name), *notes]


def checked(api: CheckerPluginInterface, function: FuncItem) -> bool:
    """Whether mypy checks the body of ``function`` (and shows what is reported there)."""
    return isinstance(function, LambdaExpr) or not function.is_dynamic() or api.options.check_untyped_defs


def static_note(traced: TransformedFunction, value: Expression, functools: Spelling) -> tuple[str, Fix | None] | None:
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
        return wording.static_in_a_call(value.name), None
    how, fix = transforms.made_static(functools, traced.decorator, value.name)
    return wording.static(value.name, how), fix


def leaked_use(
    api: CheckerPluginInterface,
    tree: MypyFile,
    traced: TransformedFunction,
    site: Site,
    transform: Context,
    calls: applied.Applied,
) -> tuple[str, Expression] | None:
    """``jax-leaked-tracer``: where a tracer stored where it outlives the trace is kept, and the
    first use after a call of the function that computes with it (``rules/traced/leaks.py``);
    None where no such use runs."""
    target = transform.args[0] if isinstance(transform, CallExpr) and transform.args else None
    instance = target.expr if traced.bound and isinstance(target, MemberExpr) else None
    holder = leaks.holder_of(site, transforms.receiver_of(traced.function) if traced.bound else None, instance)
    # a call of the name before "f = jax.jit(f)" runs the plain function
    lax_body = traced.kind == transforms.LAX_KIND
    ran = [transform] if lax_body and isinstance(transform, CallExpr) else [call for call in calls.calls if call.line >= transform.line]
    if holder is None or (not traced.staged and not release.at_least(release.LEAKED_EAGER_TRACERS_RAISE)):
        return None
    holder.only_appended = holder.appended and leaks.starts_empty(tree, holder.root)
    use = next((found for call in ran if (found := later_reads.first_read(api, call, holder)) is not None), None)
    return (holder.written(), use) if use is not None else None


RULE: Final = Rule(
    CODE,
    other_codes=(SHAPE_CODE, LEAK_CODE),
    function_hooks={**dict.fromkeys(transforms.TRANSFORMS, on_transform), **dict.fromkeys(transforms.LAX_BODIES, on_lax)},
    function_signature_hooks={fullnames.PARTIAL: on_partial},
)
