"""https://github.com/jax-ml/jax/issues/22339 -- @partial(vmap, in_axes=(None, 0)) then partial(f, x=...): x goes by keyword, one positional argument left."""
from functools import partial

import jax.numpy as jnp
from jax import vmap


@partial(vmap, in_axes=(None, 0))
def f(y, x):
    return x + y


x_var = jnp.arange(10)

func_ = partial(f, x=x_var)
func_(1)
