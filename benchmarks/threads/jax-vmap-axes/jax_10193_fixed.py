"""https://github.com/jax-ml/jax/issues/10193 -- fixed minimally: the keyword argument has the same mapped size."""
import jax
import jax.numpy as jnp


@jax.vmap
def f(x, y):
    return x + y


f(jnp.array([1, 2]), y=jnp.array([1, 2]))
