"""The two hooks that turn ``to_device(..., stream=...)`` into one targeted error.

mypy checks a method call in two steps, and the plugin takes part in both:

1. ``widen_stream`` (method *signature* hook, before the arguments are checked) types an
   explicitly passed ``stream=`` as ``object``, so mypy's generic ``arg-type`` error from the
   stubs' ``stream: None`` does not fire;
2. ``check_stream`` (method hook, after the arguments are checked) reports the targeted error
   when the stream's type can be anything but ``None``, including ``Any``.

mypy asks for the signature hook only when the receiver's type names a class. For a receiver
typed by a TypeVar (``T``, ``Self``) only step 2 runs: where mypy has already rejected the
argument there, the plugin adds its help as notes, so a misuse is never reported twice.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import ARG_NAMED, CallExpr, FuncDef
from mypy.plugin import MethodContext, MethodSigContext
from mypy.subtypes import is_subtype
from mypy.types import CallableType, FunctionLike, Type, TypeVarType

from mypy_plugin import fullnames, reports
from mypy_plugin.receivers import array_method, display_name
from mypy_plugin.streams import can_be_a_stream, may_be_none

METHOD: Final = "to_device"
"""The method whose ``stream`` argument JAX rejects at run time."""
STREAM: Final = "stream"
"""The keyword-only parameter of ``to_device`` that must stay ``None``."""


def widen_stream(ctx: MethodSigContext) -> FunctionLike:
    """Accept any ``stream=`` at the argument check; ``check_stream`` decides afterwards."""
    signature = ctx.default_signature
    if array_method(ctx.type, METHOD) is None or not passes_stream_keyword(ctx.context):
        return signature
    index = stream_index(signature.arg_names)
    if index is None:
        return signature
    arg_types = list(signature.arg_types)
    arg_types[index] = ctx.api.named_generic_type(fullnames.OBJECT, [])
    return signature.copy_modified(arg_types=arg_types)


def check_stream(ctx: MethodContext) -> Type:
    """Report each ``stream=`` argument that can be something other than ``None``."""
    method = array_method(ctx.type, METHOD)
    index = stream_index(ctx.callee_arg_names)
    if method is None or index is None:
        return ctx.default_return_type
    signature_was_widened = not isinstance(ctx.type, TypeVarType)
    for name, kind, arg_type, expr in zip(
        ctx.arg_names[index], ctx.arg_kinds[index], ctx.arg_types[index], ctx.args[index]
    ):
        if kind != ARG_NAMED or name != STREAM or not can_be_a_stream(arg_type):
            continue
        receiver = display_name(ctx.type)
        if signature_was_widened or not mypy_rejects(method, arg_type):
            reports.to_device_stream(ctx.api, expr, receiver, format_type(arg_type, ctx), may_be_none(arg_type))
        else:
            reports.to_device_stream_advice(ctx.api, expr, receiver, may_be_none(arg_type))
    return ctx.default_return_type


def passes_stream_keyword(call: object) -> bool:
    """Whether the call spells out ``stream=`` (a ``**kwargs`` is left to mypy)."""
    if not isinstance(call, CallExpr):
        return False
    return any(
        kind == ARG_NAMED and name == STREAM
        for kind, name in zip(call.arg_kinds, call.arg_names)
    )


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


def format_type(arg_type: Type, ctx: MethodContext) -> str:
    """The argument's type as mypy prints it in its own messages."""
    from mypy.messages import format_type as mypy_format_type

    options = getattr(ctx.api, "options", None)
    if options is None:
        return '"stream"'
    return mypy_format_type(arg_type, options)
