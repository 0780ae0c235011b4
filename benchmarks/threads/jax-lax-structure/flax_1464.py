"""https://github.com/google/flax/issues/1464: optax FactoredState and the flax.serialization-made FactoredState are different classes, so the conditional gradient step's cond fails after loading the optimizer state."""
import collections
import jax
import jax.numpy as jnp

FactoredState = collections.namedtuple('FactoredState', ['count', 'v_row', 'v_col'])  # optax.factorized

def from_state_dict(target, state_dict):  # flax.serialization of that time
  cls = collections.namedtuple(state_dict['name'], state_dict['fields'])
  return cls(*state_dict['values'])

opt_state = FactoredState(jnp.zeros([]), jnp.zeros(4), jnp.zeros(4))
opt_state = from_state_dict(opt_state, {'name': 'FactoredState', 'fields': opt_state._fields, 'values': list(opt_state)})

def train_step(opt_state, grads, apply):
  def update(s):
    return FactoredState(s.count + 1, s.v_row + grads, s.v_col + grads)
  new_state = jax.lax.cond(apply, update, lambda s: s, opt_state)
  return new_state

print(train_step(opt_state, jnp.ones(4), jnp.array(True)))
