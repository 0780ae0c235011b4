"""https://github.com/jax-ml/jax/pull/5398: Array.reshape given floats."""

import jax.numpy as jnp

print(jnp.arange(6).reshape(2.5, 3.5))
