"""https://github.com/jax-ml/jax/issues/705 -- in_axes (0, 1) maps an axis of size 10 against one of size 2."""
import jax.numpy as np
from jax import vmap
import numpy as onp


def h(a, b):
    return np.sum(a) + np.sum(b)


X = onp.random.randn(10, 4)
U = onp.random.randn(10, 2)
vmap(h, in_axes=(0, 1))(X, U)
