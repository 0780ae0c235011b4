"""https://m.php.cn/faq/671449.html (mirror of the Stack Overflow question "JAX `vmap` unexpected behavior with multiple parameters") -- fixed as the answer gives: three stacked vmaps."""
from functools import partial

import jax.numpy as jnp
from jax import vmap


@partial(vmap, in_axes=(0, None, None))
@partial(vmap, in_axes=(None, 0, None))
@partial(vmap, in_axes=(None, None, 0))
def f2(x, y, z):
    f = x*z + y
    return f


x = jnp.arange(7)
y = jnp.arange(5)
z = jnp.arange(3)
f2(x, y, z)
