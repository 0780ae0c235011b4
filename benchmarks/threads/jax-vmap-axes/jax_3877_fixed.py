"""https://github.com/jax-ml/jax/issues/3877 -- fixed minimally: the two mapped arguments share size 7."""
import jax
import jax.numpy as np


def recursion(depth, seed, xt, xl):
    seed, sample_seed = jax.random.split(seed)
    if depth == 2:
        return xl
    xl = xl + jax.random.normal(sample_seed, [])  # tf.random.stateless_normal in the thread
    return recursion(depth + 1, seed, xt, xl)


jax.vmap(recursion, in_axes=(None, None, 0, 0))(
    0, jax.random.PRNGKey(2), np.linspace(0, 1, 7), np.zeros([7]))
