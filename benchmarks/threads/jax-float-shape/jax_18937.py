"""https://github.com/jax-ml/jax/issues/18937: a float size passed into a jitted function."""

import jax
import jax.numpy as jnp


@jax.jit
def test_this(size):
    return jnp.ones([size])


print(test_this(1.0))
