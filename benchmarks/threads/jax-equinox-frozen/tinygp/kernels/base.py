# Trimmed from dfm/tinygp src/tinygp/kernels/base.py (v0.3): Kernel is an eqx.Module.
from __future__ import annotations

from abc import abstractmethod

import equinox as eqx
import jax


class Kernel(eqx.Module):
    @abstractmethod
    def evaluate(self, X1: jax.Array, X2: jax.Array) -> jax.Array:
        del X1, X2
        raise NotImplementedError

    def __call__(self, X1: jax.Array, X2: jax.Array | None = None) -> jax.Array:
        if X2 is None:
            return jax.vmap(lambda x: self.evaluate(x, x))(X1)
        return jax.vmap(jax.vmap(self.evaluate, in_axes=(None, 0)), in_axes=(0, None))(X1, X2)
