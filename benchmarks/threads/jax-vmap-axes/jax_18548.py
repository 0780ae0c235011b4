"""https://github.com/jax-ml/jax/issues/18548 -- a dict in_axes for the one dict argument, not a one-entry tuple holding it."""
import jax
import jax.numpy as jnp


def f(x):
    return x['a']


input = {'a': jnp.zeros((3, 3))}
jax.vmap(f, in_axes={'a': 0})(input)
