"""``jax-to-device-stream`` (``docs/rules/jax-to-device-stream.md``): how the rule finds it.

The refined stubs type ``stream`` as ``None``; the rule replaces the generic error that gives
with its own, and also reports a stream typed ``Any``. mypy checks a method call in two steps,
and the rule takes part in both:

1. ``widen_stream`` (method *signature* hook, before the arguments are checked) types an
   explicitly passed ``stream=`` as ``object``, so mypy's generic ``arg-type`` error from the
   stubs' ``stream: None`` does not fire;
2. ``check_stream`` (method hook, after the arguments are checked) reports the targeted error
   when the stream's type can be anything but ``None``, including ``Any``.

mypy asks for the signature hook only when the receiver's type names a class. For a receiver
typed by a TypeVar (``T``, ``Self``) only step 2 runs: where mypy has already rejected the
argument there, the rule adds its help as notes, so a misuse is never reported twice.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import ARG_NAMED, CallExpr, Context, FuncDef
from mypy.plugin import CheckerPluginInterface, MethodContext, MethodSigContext
from mypy.subtypes import is_subtype
from mypy.types import AnyType, CallableType, FunctionLike, NoneType, Type, TypeOfAny, TypeVarType, UninhabitedType

from mypy_plugin.lib import errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.types import members
from mypy_plugin.rules.arrays.receivers import array_receiver

CODE: Final = errorcodes.TO_DEVICE_STREAM
"""A sub-code of ``arg-type``: a ``# type: ignore[arg-type]`` written against the stubs'
generic error keeps silencing the targeted one, and ``disable_error_code = ["arg-type"]``
disables both."""

METHOD: Final = "to_device"
"""The method whose ``stream`` argument JAX rejects at run time."""
STREAM: Final = "stream"
"""The keyword-only parameter of ``to_device`` that must stay ``None``."""

STREAM_GIVEN: Final = '"{receiver}.to_device" does not accept a stream (got {stream}); JAX raises NotImplementedError unless stream is None'
NO_STREAM: Final = '"{receiver}.to_device" does not accept a stream: JAX raises NotImplementedError unless stream is None'
DROP_THE_STREAM: Final = 'Call "to_device(device)" without "stream="'
SOMETIMES_NONE: Final = "This stream is None only sometimes; JAX raises whenever it is not: narrow it to None before the call, or drop it"
SYNCHRONISE: Final = (
    'To order work with another library, synchronise explicitly: "x.block_until_ready()" on '
    'the JAX side, the other library\'s own on its side (e.g. "torch.cuda.synchronize()")'
)


def widen_stream(ctx: MethodSigContext) -> FunctionLike:
    """Accept any ``stream=`` at the argument check; ``check_stream`` decides afterwards."""
    signature = ctx.default_signature
    if not passes_stream_keyword(ctx.context) or array_receiver(ctx.type, METHOD) is None:
        return signature
    index = stream_index(signature.arg_names)
    if index is None:
        return signature
    arg_types = list(signature.arg_types)
    arg_types[index] = ctx.api.named_generic_type(fullnames.OBJECT, [])
    return signature.copy_modified(arg_types=arg_types)


def check_stream(ctx: MethodContext) -> Type:
    """Report each ``stream=`` argument that can be something other than ``None``."""
    index = stream_index(ctx.callee_arg_names)
    receiver = array_receiver(ctx.type, METHOD) if index is not None else None
    if receiver is None or index is None:
        return ctx.default_return_type
    signature_was_widened = not isinstance(ctx.type, TypeVarType)
    for name, kind, arg_type, expr in zip(ctx.arg_names[index], ctx.arg_kinds[index], ctx.arg_types[index], ctx.args[index]):
        if kind != ARG_NAMED or name != STREAM or not can_be_a_stream(arg_type):
            continue
        if signature_was_widened or not mypy_rejects(receiver.method, arg_type):
            stream = mypy_internals.format_type(arg_type, ctx.api.options)
            report_stream(ctx.api, expr, receiver.name, stream, may_be_none(arg_type))
        else:
            report_advice(ctx.api, expr, receiver.name, may_be_none(arg_type))
    return ctx.default_return_type


def can_be_a_stream(arg_type: Type) -> bool:
    """Whether a value of ``arg_type`` may be a non-None stream at run time, decided member by
    member: ``Any | None`` can be one, although mypy counts it a subtype of ``None``.

    ``Any`` counts (an untyped library's stream), except the ``Any`` that stands for an
    expression mypy has already reported; ``NoReturn`` does not (the call is never reached).
    """
    for member in members(arg_type):
        if isinstance(member, AnyType):
            if member.type_of_any != TypeOfAny.from_error:
                return True
        elif not isinstance(member, (NoneType, UninhabitedType)) and not is_subtype(member, NoneType()):
            return True
    return False


def may_be_none(arg_type: Type) -> bool:
    """Whether ``None`` is one of the values the type spells out (``Optional[int]``)."""
    return any(isinstance(member, NoneType) for member in members(arg_type))


def passes_stream_keyword(call: object) -> bool:
    """Whether the call spells out ``stream=`` (a ``**kwargs`` is left to mypy)."""
    if not isinstance(call, CallExpr):
        return False
    return any(kind == ARG_NAMED and name == STREAM for kind, name in zip(call.arg_kinds, call.arg_names))


def stream_index(arg_names: list[str | None]) -> int | None:
    """Position of the ``stream`` parameter, or None if this ``to_device`` has none."""
    try:
        return arg_names.index(STREAM)
    except ValueError:
        return None


def mypy_rejects(method: FuncDef, arg_type: Type) -> bool:
    """Whether mypy's own check of ``stream`` against ``method``'s signature failed.

    When the declared type cannot be read, assume it did: staying silent is the safe side.
    """
    declared = method.type
    if not isinstance(declared, CallableType):
        return True
    index = stream_index(declared.arg_names)
    if index is None:
        return True
    return not is_subtype(arg_type, declared.arg_types[index])


def advice(may_be_none: bool) -> list[str]:
    return [DROP_THE_STREAM, *([SOMETIMES_NONE] if may_be_none else []), SYNCHRONISE]


def report_stream(api: CheckerPluginInterface, context: Context, receiver: str, stream_type: str, may_be_none: bool) -> None:
    """``<receiver>.to_device(..., stream=<stream_type>)``: the targeted error."""
    reporting.error_with_notes(
        api,
        context,
        CODE,
        STREAM_GIVEN.format(receiver=receiver, stream=stream_type),
        advice(may_be_none),
    )


def report_advice(api: CheckerPluginInterface, context: Context, receiver: str, may_be_none: bool) -> None:
    """The same help as notes below mypy's own ``arg-type`` error, where the rule cannot
    replace it (a receiver typed by a TypeVar or ``Self``). mypy's error is not the rule's to
    attach to; the notes carry the rule's code, a sub-code of ``arg-type``, so that the ignore
    that silences mypy's error silences them too."""
    reporting.notes(api, context, CODE, [NO_STREAM.format(receiver=receiver), *advice(may_be_none)])


RULE: Final = Rule(
    CODE,
    method_signature_hooks={METHOD: widen_stream},
    method_hooks={METHOD: check_stream},
)
