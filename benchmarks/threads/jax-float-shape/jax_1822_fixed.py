import jax.numpy as jnp

print(jnp.zeros(1))
