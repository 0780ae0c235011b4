import jax.numpy as jnp

data = jnp.arange(1000)
window_size = 100
number_of_windows = 10
sliced = jnp.reshape(data[: window_size * number_of_windows], (window_size, number_of_windows))
print(sliced.shape)
