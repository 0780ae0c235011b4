"""https://github.com/matroid/dlwithtf/pull/15, ported: N / 2 samples of a multivariate normal."""

import jax
import jax.numpy as jnp

N = 100
key = jax.random.key(0)
x_zeros = jax.random.multivariate_normal(key, mean=jnp.array((-1.0, -1.0)), cov=0.1 * jnp.eye(2), shape=(N / 2,))
print(x_zeros.shape)
