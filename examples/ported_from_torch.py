"""A data-loading step ported from PyTorch, where passing a stream and writing into a tensor
were normal.

``mypy examples/`` (with the package installed) reports each misuse below under its rule's
code; at run time each raises on the line mypy reports.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

# JAX's own stubs type a device as Any; pyright rejects "jax.Device" in annotations.
Device = Any


def to_accelerator(batch: jax.Array, device: Device, stream: int | None = None) -> jax.Array:
    # torch: batch.to(device, non_blocking=True) on a side stream
    return batch.to_device(device, stream=stream)


def from_cupy(batch: jax.Array, device: Device, cupy_stream: Any) -> jax.Array:
    # A CuPy stream is Any to every checker: only the mypy plugin sees this one.
    return batch.to_device(device, stream=cupy_stream)


def mask_padding(batch: jax.Array, length: int) -> jax.Array:
    # torch: batch[length:] = 0 writes into the tensor; JAX arrays are immutable.
    batch[length:] = 0.0
    return batch


def fixed(batch: jax.Array, device: Device, length: int) -> jax.Array:
    # What to write instead: no stream, and an updated copy from .at[]; order work with
    # another library by synchronising.
    moved = batch.to_device(device)
    moved = moved.at[length:].set(0.0)
    return moved.block_until_ready()


if __name__ == "__main__":
    device = jax.devices()[0]
    print(fixed(jnp.arange(4.0), device, 2))
    to_accelerator(jnp.arange(4.0), device, stream=1)
