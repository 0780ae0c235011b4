"""https://github.com/google-deepmind/ferminet/pull/105: fixed by converting the restored opt_state to a tuple."""
import jax
import jax.numpy as jnp
import numpy as np

def opt_update(params, state):  # optax-style update: state is a tuple
  count, mu = state
  mu = 0.9 * mu + params
  return params - 0.01 * mu, (count + 1, mu)

ckpt = {'opt_state': np.array([jnp.zeros([]), jnp.zeros(3)], dtype=object)}
opt_state_ckpt = tuple(ckpt['opt_state'])

def step(params, state, loss):
  new_params, new_state = opt_update(params, state)
  new_params = jax.lax.cond(jnp.isnan(loss), lambda: params, lambda: new_params)
  new_state = jax.lax.cond(jnp.isnan(loss), lambda: state, lambda: new_state)
  return new_params, new_state

print(step(jnp.ones(3), opt_state_ckpt, jnp.array(1.0)))
