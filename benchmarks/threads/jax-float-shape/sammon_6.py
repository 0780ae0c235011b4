"""https://github.com/tompollard/sammon/issues/6, ported: reshape of a parameter by len(s) / 2."""

import jax.numpy as jnp


def step_halving(s):
    s_reshape = s.reshape(2, len(s) / 2).T
    return s_reshape


print(step_halving(jnp.arange(8.0)))
