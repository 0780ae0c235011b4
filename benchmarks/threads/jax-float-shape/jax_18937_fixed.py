from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=0)
def test_this(size):
    return jnp.ones([size])


print(test_this(1))
