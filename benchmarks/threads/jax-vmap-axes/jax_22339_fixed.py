"""https://github.com/jax-ml/jax/issues/22339 -- fixed per the answer: pass x positionally so in_axes covers it."""
from functools import partial

import jax.numpy as jnp
from jax import vmap


@partial(vmap, in_axes=(None, 0))
def f(y, x):
    return x + y


x_var = jnp.arange(10)

f(1, x_var)
