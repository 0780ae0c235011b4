"""https://m.php.cn/faq/671449.html (mirror of the Stack Overflow question "JAX `vmap` unexpected behavior with multiple parameters") -- in_axes (None, 0, 0) maps y (5,) against z (3,)."""
from functools import partial

import jax.numpy as jnp
from jax import vmap


@partial(vmap, in_axes=(None, 0, 0), out_axes=(1, 2))
def f2(x, y, z):
    f = x*z + y
    return f


x = jnp.arange(7)
y = jnp.arange(5)
z = jnp.arange(3)
f2(x, y, z)
