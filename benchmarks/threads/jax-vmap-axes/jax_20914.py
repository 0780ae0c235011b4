"""https://github.com/jax-ml/jax/issues/20914 -- a stored vmap with in_axes (None, 0) called through partial(..., x=...), leaving one positional argument."""
from functools import partial

import jax


def f(a, x):
    return a + x.sum()


x_all = jax.numpy.ones((3, 10))
a = 3.0

fvmap = jax.vmap(f, in_axes=(None, 0))
pfvmap = partial(fvmap, x=x_all)
pfvmap(a)
