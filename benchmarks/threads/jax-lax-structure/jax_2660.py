"""https://github.com/jax-ml/jax/issues/2660: cond's false branch returns a dummy aux dict with no keys while the true branch's dict has keys a, b."""
import jax
import jax.numpy as jnp

counter = jnp.array(5)
result = jax.lax.cond(
    counter >= 10,
    lambda x: x,
    lambda x: (0., dict()),  # Dummy.
    (1., dict(a=3, b=4)))  # Extra can be unknown apriori.
print(result)
