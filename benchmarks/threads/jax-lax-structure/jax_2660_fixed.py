"""https://github.com/jax-ml/jax/issues/2660: fixed by mimicking the aux tree structure in the dummy branch."""
import jax
import jax.numpy as jnp

counter = jnp.array(5)
result = jax.lax.cond(
    counter >= 10,
    lambda x: x,
    lambda x: (0., dict(a=0, b=0)),  # Dummy with the same keys.
    (1., dict(a=3, b=4)))
print(result)
