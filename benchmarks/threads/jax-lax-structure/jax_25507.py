"""https://github.com/jax-ml/jax/issues/25507: fori_loop body returns a dict keyed 'T' while the init dict is keyed 't'."""
import jax
import jax.numpy as jnp

def f(loop_i, x):
  return {'T': jnp.array([0.5])}

init_val = {'t': jnp.array([1.0])}
print(jax.lax.fori_loop(0, 1, f, init_val))
