"""https://boohere.com/kr/detail/123872.html (mirror of a Stack Overflow question on vmap in_axes/out_axes) -- in_axes ((0, 1), (0, 1)) gives each array argument a tuple of two axes."""
import jax.numpy as np
from jax import vmap

X = np.arange(9).reshape(3, 3)
Y = np.arange(0, -9, -1).reshape(3, 3)


def sum2(x, y):
    return x + y


vmap(sum2, in_axes=((0, 1), (0, 1)))(X, Y)
