"""https://github.com/jax-ml/jax/issues/10193 -- a @jax.vmap function called with a keyword argument whose axis 0 has another size."""
import jax
import jax.numpy as jnp


@jax.vmap
def f(x, y):
    return x + y


f(jnp.array([1]), y=jnp.array([1, 2]))
