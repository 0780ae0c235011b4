"""https://github.com/jax-ml/jax/issues/1822: jnp.zeros(1.0)."""

import jax.numpy as jnp

print(jnp.zeros(1.0))
