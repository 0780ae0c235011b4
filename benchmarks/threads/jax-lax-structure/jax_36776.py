"""https://github.com/jax-ml/jax/issues/36776: cond branches both return a jax.vjp pullback, whose pytree metadata differs per branch."""
import jax
import jax.numpy as jnp

f = jax.jit(lambda x: jnp.sin(jnp.sin(x)))
f_residual = f(1.)

def use_residual():
  _, f_vjp = jax.vjp(f, 1.)
  return f_residual, f_vjp

def use_remat():
  return jax.vjp(f, 1.)

f_out, f_vjp = jax.lax.cond(f_residual > 0, use_residual, use_remat)
print(f_vjp(1.0))
