"""``jax-jit-declaration`` and ``jax-jit-call`` (``docs/rules/``): how the rule finds them.

Declarations are checked at ``jax.jit`` itself; the ``JitWrapped`` it returns keeps the wrapped
function's signature, its static and donated parameters (``rules/jit/jitted.py``), against which
each call's arguments are read. Only what is certain is kept: options given by name as literals
(``transforms.static_names``), a function from a ``def`` or a lambda (a ``Callable[[A], R]``
value may hold a function with other parameters), and a callee read directly (``step(x)``,
``mod.step(x)``, ``jax.jit(f)(x)``; not an attribute such as ``self.step``, whose declared type
is only its first assignment's). With the entry point ``mypy_plugin.typed_jit``
(``TYPED_CALLS``), each call is also checked against that signature and typed with its result,
so that the other rules see the arrays that come out of jitted functions. Methods (``@jax.jit``
on a function of a class body) are left as JAX's stubs type them.

The hooks: ``jax.jit``'s function hook (``@jax.jit``, ``jax.jit(f, ...)``, ``@jax.jit(...)``),
``functools.partial.__call__``'s method hook for ``@partial(jax.jit, ...)`` (after mypy's own,
which ``main.py`` runs first), and ``JitWrapped.__call__``'s method hook (and its signature hook,
for typed calls).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Final

from mypy.nodes import (
    ARG_STAR,
    ARG_STAR2,
    FUNC_NO_INFO,
    CallExpr,
    Context,
    Decorator,
    Expression,
    FuncDef,
    FuncItem,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, MethodContext, MethodSigContext
from mypy.types import CallableType, FunctionLike, Instance, NoneType, TupleType, Type, get_proper_type

from mypy_plugin.analyses import bindings, contract, transforms
from mypy_plugin.analyses.contract import Concrete
from mypy_plugin.lib import arguments, checked_module, errorcodes, fullnames, mypy_internals, nodes, reporting
from mypy_plugin.lib.fixes import Fix
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.lib.types import members
from mypy_plugin.rules.jit import donation, jitted
from mypy_plugin.rules.jit.jitted import JittedSignature

DECLARATION_CODE: Final = errorcodes.JIT_DECLARATION
CALL_CODE: Final = errorcodes.JIT_CALL

PARTIAL_CALL: Final = fullnames.PARTIAL + ".__call__"
NAME_OPTIONS: Final = ("static_argnames", "donate_argnames")
NUMBER_OPTIONS: Final = ("static_argnums", "donate_argnums")

NAMES_NO_PARAMETER: Final = '{option} names {names}, not a parameter of "{function}"; jax.jit raises ValueError'
DID_YOU_MEAN: Final = 'Did you mean "{option}=("{name}",)"?'
TAKES: Final = 'The parameters of "{function}" by name: {parameters}'
BY_NUMBER: Final = 'A positional-only parameter (before "/") is named by its number: {option}'
OUT_OF_RANGE: Final = '{option}={number} is out of range for the {count} of "{function}"; jax.jit raises ValueError'
POSITIONAL: Final = 'The positional parameters of "{function}", from 0: {parameters}'
DECLARED_UNHASHABLE: Final = (
    'Static parameter "{name}" of "{function}" is declared {type}, which JAX cannot hash; each call raises ValueError'
)
HASHABLE_INSTEAD: Final = "Declare it as a tuple or a frozen dataclass, or leave it traced (not in static_argnames/static_argnums)"
GIVEN_UNHASHABLE: Final = 'Static argument "{name}" of jitted "{function}" is {value}, which JAX cannot hash; JAX raises ValueError'
PASS_A_TUPLE: Final = 'Pass a tuple instead: "tuple({value})"'
PASS_ITEMS: Final = 'Pass its items as a tuple instead: "tuple({value}.items())"'
PASS_HASHABLE: Final = 'Pass a hashable value (a tuple of hashable items, a frozen dataclass), or leave "{name}" traced (not static)'
UNTRACEABLE: Final = 'Argument "{name}" of jitted "{function}" is {kind}, which JAX cannot trace; JAX raises TypeError'
MAKE_STATIC: Final = 'Make "{name}" static: static_argnames=("{name}",) in the jax.jit of "{function}"'
ADD_STATIC: Final = 'Make "{name}" static: add it to static_argnames in the jax.jit of "{function}"'
DECORATE_STATIC: Final = 'Make "{name}" static: decorate "{function}" with {how}'
TRACED_SIZE: Final = 'Argument "{name}" of jitted "{function}" is a shape or size, which jax.jit traces unless static; JAX raises {raises}'
TRACED_SETTING: Final = (
    'Argument "{name}" of jitted "{function}" is a setting JAX reads while tracing, which jax.jit traces unless static; JAX raises {raises}'
)
PASS_AN_ARRAY: Final = 'Pass its values as an array instead: "jnp.asarray(list(values))", "jnp.arange(n)"'
TRACED_SELF: Final = 'jax.jit traces "{name}", an instance of "{cls}", which is not a pytree; each call raises TypeError'
JIT_THE_ARRAYS: Final = (
    'Jit a function of the arrays instead (outside the class, or a staticmethod), or register "{cls}" as a pytree '
    '("@jax.tree_util.register_pytree_node_class")'
)
STATIC_BY_IDENTITY: Final = (
    "static_argnums=0 runs too, but JAX then tells instances apart by identity: a changed attribute is not seen by later calls"
)
TRACED_CLASS: Final = 'jax.jit traces "{name}", the class "{cls}", which JAX cannot trace; each call raises TypeError'
STATIC_CLASS: Final = 'Make "{name}" static: static_argnums=0 (a class hashes), or put "@jax.jit" on a staticmethod'
REFER_INSIDE: Final = (
    'Refer to the function inside "{function}" instead of passing it, make "{name}" static, or pass a '
    '"jax.tree_util.Partial", which JAX traces'
)


class Wrapping:
    """One application of ``jax.jit``: the function it wraps (its type), the options written by
    name (None when some are given otherwise: ``**options``, by position), where to report, and
    the method where the function is one in a class body (None for a function)."""

    __slots__ = ("function", "options", "context", "method")

    def __init__(
        self, function: CallableType, options: list[tuple[str, Expression]] | None, context: Context, method: Decorator | None
    ) -> None:
        self.function = function
        self.options = options
        self.context = context
        self.method = method


def on_jit(ctx: FunctionContext) -> Type:
    """``@jax.jit`` (the context is the ``Decorator``), ``jax.jit(f, ...)``, and
    ``@jax.jit(...)``, which returns the decorator: each declaration is checked, and the
    ``JitWrapped`` made keeps what calls are read against."""
    context = ctx.context
    function = single_callable(ctx.arg_types[0]) if ctx.arg_types and ctx.arg_types[0] else None
    if isinstance(context, Decorator):
        if function is None:
            return ctx.default_return_type
        return wrapped(ctx.api, Wrapping(function, [], context, method_of(context)), ctx.default_return_type)
    if not isinstance(context, CallExpr):
        return ctx.default_return_type
    if function is not None:  # jax.jit(f, ...)
        return wrapped(ctx.api, Wrapping(function, transforms.options_of(context, 1), context, None), ctx.default_return_type)
    decorator = checked_module.decorated_by(ctx.api, context)  # @jax.jit(...): the decorator made here
    decorator_type = get_proper_type(ctx.default_return_type)
    if decorator is None or not isinstance(decorator_type, CallableType):
        return ctx.default_return_type
    signature = decorator.func.type
    if decorator.decorators[-1] is not context or not isinstance(signature, CallableType):
        return ctx.default_return_type  # not the innermost decorator, or the function is unannotated
    wrapping = Wrapping(signature, transforms.options_of(context, 0), context, method_of(decorator))
    return decorator_type.copy_modified(ret_type=wrapped(ctx.api, wrapping, decorator_type.ret_type))


def on_partial_call(ctx: MethodContext) -> Type:
    """``@partial(jax.jit, ...)`` applied to a function: mypy's own ``partial`` hook has typed
    it (``JitWrapped``); check the declaration and keep the signature."""
    context = ctx.context
    if not isinstance(context, Decorator) or not jitted.is_wrapper(ctx.default_return_type):
        return ctx.default_return_type
    function = single_callable(ctx.arg_types[0]) if len(ctx.arg_types) == 2 and len(ctx.arg_types[0]) == 1 else None
    applications = [node for node in context.decorators if transforms.partial_transform(node) == transforms.JIT_KIND]
    if function is None or len(applications) != 1:
        return ctx.default_return_type
    [application] = applications
    assert isinstance(application, CallExpr)  # partial_transform says so
    wrapping = Wrapping(function, transforms.options_of(application, 1), application, method_of(context))
    return wrapped(ctx.api, wrapping, ctx.default_return_type)


def on_call_signature(ctx: MethodSigContext) -> FunctionLike:
    """Typed calls (``TYPED_CALLS``): a call of a jitted function is checked against the
    function's own signature, and typed with what the jitted function returns."""
    kept = jitted.jitted_signature_of(ctx.type)
    array = array_type(ctx.api)
    if kept is None or array is None or not read_directly(ctx.context):
        return ctx.default_signature
    return jitted.kept_signature(kept.signature, array)


def on_call(ctx: MethodContext) -> Type:
    """A call of a jitted function: arguments JAX can neither trace nor hash."""
    kept = jitted.jitted_signature_of(ctx.type)
    if kept is None or not read_directly(ctx.context):
        return ctx.default_return_type
    given = arguments.against(ctx, kept.signature)
    sizes = traced_sizes(kept, {name for name, _, _ in given})
    callee = ctx.context.callee if isinstance(ctx.context, CallExpr) else None

    def known(arg: Expression) -> bool:
        """Whether the callee's and the argument's types are those of what reaches the call
        (asked only where a report would be made: reading the module's bindings costs)."""
        return (callee is None or bindings.holds(ctx.api, callee)) and bindings.holds(ctx.api, arg)

    for name, arg, typ in given:
        raises = sizes[name].raised_by(isinstance(get_proper_type(typ), TupleType)) if name in sizes else ""
        if raises and not leafless(typ):
            if known(arg):
                report_traced_size(ctx.api, arg, name, kept, raises, sizes[name].shape)
            continue
        if name in kept.statics:
            if jitted.unhashable(typ) and not declared_unhashable(kept.signature, name) and known(arg):
                report_unhashable_argument(ctx.api, arg, name, kept, typ)
            continue
        kind = jitted.untraceable(typ)
        if kind == jitted.FUNCTION and not nodes.names_a_function(arg):
            continue  # a Callable value may be a pytree (jax.tree_util.Partial, an equinox method)
        if kind is not None and known(arg):
            report_untraceable(ctx.api, arg, name, kept, kind)
    return ctx.default_return_type


def leafless(typ: Type) -> bool:
    """Whether a value of ``typ`` may have no leaf to trace: ``None``, ``()`` (``jnp.zeros(())``
    jitted runs)."""
    return any(isinstance(member, NoneType) or isinstance(member, TupleType) and not member.items for member in members(typ))


def traced_sizes(kept: JittedSignature, passed: set[str]) -> dict[str, Concrete]:
    """The parameters of a jitted JAX function that must be concrete (shapes, sizes, settings
    such as an axis) and are not static, each with what JAX raises when a call passes one with
    a leaf (``leafless`` says which do not)."""
    if kept.wraps in contract.SIZE_FIXED_BY and contract.SIZE_FIXED_BY[kept.wraps] in passed:
        return {}
    parameters = contract.concrete_parameters(kept.wraps)
    return {parameter.name: parameter for parameter in parameters if parameter.name not in kept.statics}


def wrapped(api: CheckerPluginInterface, wrapping: Wrapping, made: Type) -> Type:
    """Check the declaration, and give ``made`` (the ``JitWrapped``) what calls are read
    against; ``made`` as it is where that is not certain, or where ``jax.jit`` itself raises."""
    if wrapping.function.name is None:
        return made  # a Callable value: its parameters' names and number are not the function's
    with mypy_internals.unwatched(api) as shown:  # an overloaded jax.jit: see traced_values.check
        valid = check_declaration(api, wrapping, report=shown)
    if not valid or wrapping.options is None:
        return made
    positional = [name for name, kind in zip(wrapping.function.arg_names, wrapping.function.arg_kinds) if kind.is_positional()]
    statics = transforms.static_names(wrapping.options, positional, ARG_STAR in wrapping.function.arg_kinds)
    proper = get_proper_type(made)
    if wrapping.method is not None and statics is not None and shown:
        check_receiver(api, wrapping.method, wrapping.function, statics)
    if statics is None or wrapping.method is not None or not isinstance(proper, Instance) or not jitted.is_wrapper(proper):
        return made
    if shown:
        for static in sorted(statics):
            if declared_unhashable(wrapping.function, static):
                report_declared_unhashable(
                    api, wrapping.context, static, function_name(wrapping.function), parameter_type(wrapping.function, static)
                )
    context = wrapping.context
    target = context.args[0] if isinstance(context, CallExpr) and context.args else None
    wraps = target.fullname if isinstance(target, RefExpr) and contract.concrete_parameters(target.fullname) else ""
    donated = transforms.static_names(wrapping.options, positional, ARG_STAR in wrapping.function.arg_kinds, transforms.DONATE_OPTIONS)
    definition = wrapping.function.definition
    deleted: frozenset[str] = (
        donation.deleted_parameters(definition, wrapping.function, frozenset(donated))
        if donated and isinstance(definition, FuncItem)
        else frozenset()
    )
    return jitted.with_jitted_signature(proper, JittedSignature(wrapping.function, frozenset(statics), wraps, deleted))


def check_receiver(api: CheckerPluginInterface, method: Decorator, function: CallableType, statics: set[str]) -> None:
    """``self`` or ``cls`` of a method whose one decorator left (``classmethod`` aside) is
    ``jax.jit``: a traced argument of every call. A class is never a pytree; an instance is
    one only where the class is registered (``jitted.never_a_pytree`` says where it cannot be)."""
    func = method.func
    tree = mypy_internals.module_tree(api)
    if tree is None or func.is_static or func.is_property or len(method.decorators) != 1 or not function.arg_kinds:
        return
    receiver = function.arg_names[0]
    if receiver is None or receiver in statics or not function.arg_kinds[0].is_positional():
        return
    at = method.decorators[0]
    if func.is_class:
        if not classmethod_outside(method):
            return
        message, notes = TRACED_CLASS.format(name=receiver, cls=func.info.name), [STATIC_CLASS.format(name=receiver)]
    elif jitted.never_a_pytree(func.info, tree):
        message = TRACED_SELF.format(name=receiver, cls=func.info.name)
        notes = [JIT_THE_ARRAYS.format(cls=func.info.name)]
        if jitted.hashed_by_identity(func.info):
            notes.append(STATIC_BY_IDENTITY)
    else:
        return
    reporting.error_with_notes(api, at, DECLARATION_CODE, message, notes)


def classmethod_outside(method: Decorator) -> bool:
    """Whether ``@classmethod`` is written above ``jax.jit`` (so ``jax.jit`` is given the class)."""
    written = [fullnames.called(node) for node in method.original_decorators]
    return "builtins.classmethod" in written and written.index("builtins.classmethod") < method.original_decorators.index(
        method.decorators[0]
    )


def check_declaration(api: CheckerPluginInterface, wrapping: Wrapping, *, report: bool) -> bool:
    """Report the options that name no parameter or count past the positional ones, as
    ``jax.jit`` checks them; whether there was none."""
    function = wrapping.function
    name = function_name(function)
    positional = [arg_name for arg_name, kind in zip(function.arg_names, function.arg_kinds) if kind.is_positional()]
    keywords = [
        arg_name
        for arg_name, kind in zip(function.arg_names, function.arg_kinds)
        if arg_name is not None and kind not in (ARG_STAR, ARG_STAR2)
    ]  # a positional-only one has no name
    valid = True
    for option, value in wrapping.options or []:
        if option in NAME_OPTIONS and ARG_STAR2 not in function.arg_kinds:
            unknown = [n for n in transforms.literal_items(value, str) or [] if n not in keywords]
            if unknown:
                valid = False
                if report:
                    report_names(api, value, option, unknown, name, keywords, None in positional)
        elif option in NUMBER_OPTIONS and ARG_STAR not in function.arg_kinds:
            numbers = transforms.literal_items(value, int) or []
            out = [n for n in numbers if not -len(positional) <= n < len(positional)]
            if out:
                valid = False
                if report:
                    report_numbers(api, value, option, out[0], name, positional)
    return valid


def report_names(
    api: CheckerPluginInterface,
    at: Context,
    option: str,
    unknown: Sequence[str],
    function: str,
    parameters: Sequence[str],
    positional_only: bool,
) -> None:
    names = ", ".join(f'"{n}"' for n in unknown)
    notes = [TAKES.format(function=function, parameters=", ".join(f'"{p}"' for p in parameters) or "none")]
    if positional_only:
        notes.append(BY_NUMBER.format(option=option.replace("names", "nums")))
    close = [match for name in unknown for match in difflib.get_close_matches(name, parameters, n=1)]
    if len(close) == len(unknown) == 1:
        notes.insert(0, DID_YOU_MEAN.format(option=option, name=close[0]))
    reporting.error_with_notes(
        api,
        at,
        DECLARATION_CODE,
        NAMES_NO_PARAMETER.format(option=option, names=names, function=function),
        notes,
    )


def report_numbers(
    api: CheckerPluginInterface, at: Context, option: str, number: int, function: str, positional: Sequence[str | None]
) -> None:
    listed = ", ".join(f'{i} "{p}"' if p is not None else str(i) for i, p in enumerate(positional)) or "none"
    count = reporting.counted(len(positional), "positional parameter")
    reporting.error_with_notes(
        api,
        at,
        DECLARATION_CODE,
        OUT_OF_RANGE.format(option=option, number=number, count=count, function=function),
        [POSITIONAL.format(function=function, parameters=listed)],
    )


def report_declared_unhashable(api: CheckerPluginInterface, at: Context, name: str, function: str, declared: Type) -> None:
    typ = mypy_internals.format_type(declared, api.options)
    reporting.error_with_notes(
        api,
        at,
        DECLARATION_CODE,
        DECLARED_UNHASHABLE.format(name=name, function=function, type=typ),
        [HASHABLE_INSTEAD],
    )


def report_unhashable_argument(api: CheckerPluginInterface, arg: Expression, name: str, kept: JittedSignature, typ: Type) -> None:
    kind, value = jitted.unhashable_part(typ)
    text = source(arg) or "..."
    note = (
        PASS_A_TUPLE.format(value=text)
        if kind == jitted.UNHASHABLE_CONTAINER
        else PASS_ITEMS.format(value=text)
        if kind == jitted.UNHASHABLE_MAPPING
        else PASS_HASHABLE.format(name=name)
    )
    reporting.error_with_notes(
        api,
        arg,
        CALL_CODE,
        GIVEN_UNHASHABLE.format(name=name, function=function_name(kept.signature), value=value),
        [note],
    )


def report_untraceable(api: CheckerPluginInterface, arg: Expression, name: str, kept: JittedSignature, kind: str) -> None:
    function = function_name(kept.signature)
    fix = None
    if kind == jitted.FUNCTION:
        note = REFER_INSIDE.format(name=name, function=function)
    elif kind in (jitted.GENERATOR, jitted.RANGE):
        note = PASS_AN_ARRAY
    else:
        note, fix = static_advice(api, kept, name)
    reporting.error_with_notes(api, arg, CALL_CODE, UNTRACEABLE.format(name=name, function=function, kind=kind), [note], fix)


def report_traced_size(api: CheckerPluginInterface, arg: Expression, name: str, kept: JittedSignature, raises: str, shape: bool) -> None:
    function = function_name(kept.signature)
    note, fix = static_advice(api, kept, name)
    text = TRACED_SIZE if shape else TRACED_SETTING
    reporting.error_with_notes(api, arg, CALL_CODE, text.format(name=name, function=function, raises=raises), [note], fix)


def static_advice(api: CheckerPluginInterface, kept: JittedSignature, name: str) -> tuple[str, Fix | None]:
    """How to make parameter ``name`` of the jitted function static; for a function this module
    defines under a bare ``@jax.jit``, that decorator rewritten, and the rewrite as the fix."""
    function = function_name(kept.signature)
    if kept.statics:
        return ADD_STATIC.format(name=name, function=function), None
    definition = kept.signature.definition
    decorator = None if transforms.positional_only(definition, name) else bare_jit_decorator(api, definition)
    if decorator is None:
        return MAKE_STATIC.format(name=name, function=function), None
    how, fix = transforms.made_static(checked_module.spelling(api, "functools"), decorator, name)
    return DECORATE_STATIC.format(name=name, how=how, function=function), fix


def bare_jit_decorator(api: CheckerPluginInterface, definition: object) -> RefExpr | None:
    """The ``@jax.jit`` written bare as the only decorator of ``definition``, a function at the
    top level of the checked module; None for any other form or place (a nested function, one
    under an ``if``)."""
    tree = mypy_internals.module_tree(api)
    if not isinstance(definition, FuncDef) or tree is None:
        return None
    found = next((node for node in tree.defs if isinstance(node, Decorator) and node.func is definition), None)
    if found is None or len(found.decorators) != 1:
        return None
    [decorator] = found.decorators
    if isinstance(decorator, RefExpr) and transforms.TRANSFORMS.get(decorator.fullname) == transforms.JIT_KIND:
        return decorator
    return None


def read_directly(call: Context) -> bool:
    """Whether the jitted function called is read where it is defined or made, so that its
    type is its own: a name (a function, a variable), a module's attribute, ``jax.jit(f)(x)``;
    not another attribute (``self.step``), declared by its first assignment alone."""
    callee = call.callee if isinstance(call, CallExpr) else None
    if isinstance(callee, (NameExpr, CallExpr)):
        return True
    return isinstance(callee, MemberExpr) and (
        isinstance(callee.node, (Decorator, FuncDef)) or isinstance(callee.expr, RefExpr) and isinstance(callee.expr.node, MypyFile)
    )


def single_callable(types: Sequence[Type]) -> CallableType | None:
    """The one type given, if it is a plain (not overloaded) function type."""
    proper = get_proper_type(types[0]) if len(types) == 1 else None
    return proper if isinstance(proper, CallableType) and not proper.is_type_obj() else None


def function_name(function: CallableType) -> str:
    """The function as messages name it: ``step``, also for mypy's ``step of Model``."""
    return (function.name or "the function").partition(" of ")[0]


def parameter_type(function: CallableType, name: str) -> Type:
    return function.arg_types[function.arg_names.index(name)]


def declared_unhashable(function: CallableType, name: str) -> bool:
    """Whether the parameter is declared with a type no value of which JAX can hash (reported
    at the declaration, so not again at each call)."""
    return name in function.arg_names and jitted.unhashable(parameter_type(function, name))


def method_of(decorator: Decorator) -> Decorator | None:
    """``decorator`` where it decorates a function of a class body."""
    return decorator if decorator.func.info is not FUNC_NO_INFO else None


def array_type(api: CheckerPluginInterface) -> Instance | None:
    """``jax.Array``, as the results of jitted functions are typed; None if it cannot be found."""
    info = mypy_internals.class_named(api, fullnames.ARRAY)
    return Instance(info, []) if info is not None else None


RULE: Final = Rule(
    DECLARATION_CODE,
    other_codes=(CALL_CODE,),
    function_hooks={fullnames.JIT: on_jit},
    method_hooks={jitted.CALL: on_call, PARTIAL_CALL: on_partial_call},
)

TYPED_CALLS: Final = Rule(CALL_CODE, method_signature_hooks={jitted.CALL: on_call_signature})
"""Calls of jitted functions checked against the wrapped signature and typed with its result:
what the entry point ``mypy_plugin.typed_jit`` adds (off by default: on the sweep's libraries it
added diagnostics to correct code only; ``benchmarks/README.md``)."""
