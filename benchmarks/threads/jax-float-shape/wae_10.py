"""https://github.com/tolstikhin/wae/issues/10, ported: height and width made by division."""

import jax.numpy as jnp

opts = {"img_size": 64}
num_units = 8


def decoder(h0):
    height = opts["img_size"] / 4
    width = opts["img_size"] / 4
    return jnp.reshape(h0, (-1, height, width, num_units))


print(decoder(jnp.ones((2, 16 * 16 * 8))).shape)
