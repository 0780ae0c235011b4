"""What the plugin adds to mypy's report: one helper per error code, owning its text and notes.

Each report has mypy's own shape: one short clause as the error, the help in ``note:`` lines
tied to it (``parent_error``), so that an ignore or a disabled code silences them together and
``mypy -O json`` carries the notes as the error's hint.
"""

from __future__ import annotations

from collections.abc import Sequence

from mypy.errorcodes import ErrorCode
from mypy.errors import ErrorInfo
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

from mypy_plugin import errorcodes
from mypy_plugin.versions import Diagnosis

DROP_THE_STREAM = 'Call "to_device(device)" without "stream="'
SOMETIMES_NONE = (
    "This stream is None only sometimes; JAX raises whenever it is not: narrow it to None before "
    "the call, or drop it"
)
UPDATE_THE_ARRAY_ITSELF = (
    'JAX arrays have no views to write through: update the array itself with ".at[]", '
    'e.g. "x = x.at[<index>].set(<value>)"'
)
PALLAS_REF = (
    'If this is a Pallas ref, annotate it as a ref ("jax.Ref", JAX 0.7.2 and later), '
    'not as "jax.Array": refs are mutable, arrays are not'
)
SYNCHRONISE = (
    'To order work with another library, synchronise explicitly: "x.block_until_ready()" on '
    "the JAX side, the other library's own on its side (e.g. \"torch.cuda.synchronize()\")"
)


def _error_with_notes(
    api: CheckerPluginInterface, context: Context, code: ErrorCode, message: str, notes: Sequence[str]
) -> None:
    error: ErrorInfo | None = api.fail(message, context, code=code)
    for note in notes:
        api.msg.note(note, context, code=code, parent_error=error)


def _to_device_advice(may_be_none: bool) -> list[str]:
    return [DROP_THE_STREAM, *([SOMETIMES_NONE] if may_be_none else []), SYNCHRONISE]


def to_device_stream(
    api: CheckerPluginInterface, context: Context, receiver: str, stream_type: str, may_be_none: bool
) -> None:
    """``<receiver>.to_device(..., stream=<stream_type>)``: the targeted error."""
    _error_with_notes(
        api, context, errorcodes.JAX_TO_DEVICE_STREAM,
        f'"{receiver}.to_device" does not accept a stream (got {stream_type}); '
        "JAX raises NotImplementedError unless stream is None",
        _to_device_advice(may_be_none),
    )


def to_device_stream_advice(api: CheckerPluginInterface, context: Context, receiver: str, may_be_none: bool) -> None:
    """The same help as notes below mypy's own ``arg-type`` error, where the plugin cannot
    replace it (a receiver typed by a TypeVar or ``Self``). mypy's error is not the plugin's to
    attach to; the notes carry the plugin's code, a sub-code of ``arg-type``, so that the
    ignore that silences mypy's error silences them too."""
    reason = f'"{receiver}.to_device" does not accept a stream: JAX raises NotImplementedError unless stream is None'
    for note in [reason, *_to_device_advice(may_be_none)]:
        api.msg.note(note, context, code=errorcodes.JAX_TO_DEVICE_STREAM)


def immutable_array(
    api: CheckerPluginInterface,
    context: Context,
    receiver: str,
    operator: str | None,
    rewrite: str | None,
    masked: str | None,
    *,
    in_pallas_module: bool,
) -> None:
    """``x[i] = v`` or ``x[i] op= v`` on a JAX array, with the ``.at[]`` rewrite when it can be
    printed (else the general form), for a boolean mask the form that works under jit, and in
    a module that imports Pallas what to do about a ref annotated as an array."""
    written = f' ("{operator}=")' if operator else ""
    notes = [PALLAS_REF] if in_pallas_module else []
    notes.append(f'Use ".at[]", which returns an updated copy: "{rewrite}"' if rewrite else UPDATE_THE_ARRAY_ITSELF)
    if masked:
        notes.append(f'Under jax.jit a boolean mask cannot index; for a scalar value write "{masked}"')
    _error_with_notes(
        api, context, errorcodes.JAX_IMMUTABLE_ARRAY,
        f'"{receiver}" does not support item assignment{written}; JAX raises TypeError (JAX arrays are immutable)',
        notes,
    )


def stubs_mismatch(api: CheckerPluginInterface, context: Context, diagnosis: Diagnosis) -> None:
    """The installed JAX is not the release the installed stubs describe."""
    _error_with_notes(
        api, context, errorcodes.JAX_STUBS_MISMATCH, diagnosis.mismatch_error(), diagnosis.mismatch_notes()
    )
