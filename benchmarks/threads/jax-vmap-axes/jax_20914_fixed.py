"""https://github.com/jax-ml/jax/issues/20914 -- fixed as the thread says works: a lambda passes x positionally."""
import jax


def f(a, x):
    return a + x.sum()


x_all = jax.numpy.ones((3, 10))
a = 3.0

fvmap = jax.vmap(f, in_axes=(None, 0))
pfvmap = lambda a: fvmap(a, x_all)
pfvmap(a)
