"""Texts of the plugin's diagnostics, kept in one place so tests and docs can quote them."""

from __future__ import annotations


def to_device_stream(receiver: str, stream_type: str) -> str:
    """The targeted error for ``<receiver>.to_device(..., stream=<stream_type>)``."""
    return (
        f'"{receiver}.to_device" does not accept a stream (got {stream_type}): '
        "JAX raises NotImplementedError for any stream that is not None. "
        'Call "to_device(device)" without "stream=" and order the work with the other '
        'library by explicit synchronisation: "jax.block_until_ready(...)" on the JAX side, '
        'the other library\'s own on its side (e.g. "torch.cuda.synchronize()", '
        'a CuPy stream\'s "synchronize()")'
    )
