"""https://github.com/jax-ml/jax/issues/3613 -- fixed minimally: one out_axes for the one output."""
import jax
import jax.numpy as jnp


def f(x, y):
    return x + y


batched = jax.vmap(f, in_axes=(0, 0), out_axes=0)
batched(jnp.ones((4, 3)), jnp.ones((4, 3)))
