"""https://github.com/dask/dask/issues/871, ported: a float window size in reshape."""

import jax.numpy as jnp

data = jnp.arange(1000)
window_size = float(100)
number_of_windows = 10
sliced = jnp.reshape(data[: int(window_size * number_of_windows)], (window_size, number_of_windows))
print(sliced.shape)
