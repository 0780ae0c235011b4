"""https://github.com/Zulko/moviepy/issues/969, NumPy code ported: n / 2 as a size."""

import jax
import jax.numpy as jnp

n = 100
key = jax.random.key(0)
x_zeros = jax.random.multivariate_normal(key, mean=jnp.array((1.0, 1.0)), cov=0.1 * jnp.eye(2), shape=(n / 2,))
y_zeros = jnp.zeros((n / 2,))
print(x_zeros.shape, y_zeros.shape)
