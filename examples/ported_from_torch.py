"""A data-loading step ported from PyTorch, where passing a stream was normal.

``mypy examples/`` (with the package installed) reports both calls below with
``jax-to-device-stream``; at run time each raises NotImplementedError.
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


def fixed(batch: jax.Array, device: Device) -> jax.Array:
    # What to write instead: no stream; order with the other library by synchronising.
    moved = batch.to_device(device)
    return moved.block_until_ready()


if __name__ == "__main__":
    device = jax.devices()[0]
    print(fixed(jnp.arange(4.0), device))
    to_accelerator(jnp.arange(4.0), device, stream=1)
