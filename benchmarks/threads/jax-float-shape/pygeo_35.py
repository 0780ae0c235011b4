"""https://github.com/mdolab/pygeo/pull/35, ported: np.zeros(xs.size / 3)."""

import jax.numpy as jnp

xs = jnp.array([1, 2, 3, 4, 5, 6])
print(jnp.zeros(xs.size / 3))
