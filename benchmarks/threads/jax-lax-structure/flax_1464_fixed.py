"""https://github.com/google/flax/issues/1464: fixed (flax PR #1432) by restoring into the target's own namedtuple class."""
import collections
import jax
import jax.numpy as jnp

FactoredState = collections.namedtuple('FactoredState', ['count', 'v_row', 'v_col'])  # optax.factorized

def from_state_dict(target, state_dict):  # restore into the target's class
  return type(target)(*state_dict['values'])

opt_state = FactoredState(jnp.zeros([]), jnp.zeros(4), jnp.zeros(4))
opt_state = from_state_dict(opt_state, {'name': 'FactoredState', 'fields': opt_state._fields, 'values': list(opt_state)})

def train_step(opt_state, grads, apply):
  def update(s):
    return FactoredState(s.count + 1, s.v_row + grads, s.v_col + grads)
  new_state = jax.lax.cond(apply, update, lambda s: s, opt_state)
  return new_state

print(train_step(opt_state, jnp.ones(4), jnp.array(True)))
