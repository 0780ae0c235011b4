"""https://github.com/jax-ml/jax/issues/967: a float size to jnp.zeros."""

import jax.numpy as jnp

print(jnp.zeros(1.5))
