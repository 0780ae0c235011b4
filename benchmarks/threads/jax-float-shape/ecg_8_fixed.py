import jax.numpy as jnp


def split_channels(inputs, n_channels):
    input_depth = inputs.shape[-1]
    return jnp.reshape(inputs, (-1, n_channels, input_depth // n_channels))


print(split_channels(jnp.ones((2, 10)), 2).shape)
