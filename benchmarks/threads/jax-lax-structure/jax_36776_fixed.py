"""https://github.com/jax-ml/jax/issues/36776: fixed (no fix in thread) by keeping the VJP object out of the cond and selecting only arrays."""
import jax
import jax.numpy as jnp

f = jax.jit(lambda x: jnp.sin(jnp.sin(x)))
f_residual = f(1.)

def use_residual():
  return f_residual

def use_remat():
  return f(1.)

f_out = jax.lax.cond(f_residual > 0, use_residual, use_remat)
_, f_vjp = jax.vjp(f, 1.)
print(f_out, f_vjp(1.0))
