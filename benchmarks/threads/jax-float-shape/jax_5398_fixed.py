import jax.numpy as jnp

print(jnp.arange(6).reshape(2, 3))
