"""https://github.com/google/flax/issues/1429: a restored TrainState holds a namedtuple class rebuilt by deserialization, so cond's updated branch (optax class) differs from the not-updated branch."""
import collections
from typing import Any, NamedTuple
import jax
import jax.numpy as jnp

ScaleByAdamState = collections.namedtuple('ScaleByAdamState', ['count', 'mu', 'nu'])  # optax's class

class TrainState(NamedTuple):
  params: Any
  opt_state: Any

def restore_namedtuple(nt):  # like flax.serialization: builds a new class from name and fields
  return collections.namedtuple(type(nt).__name__, nt._fields)(*nt)

state = TrainState(jnp.ones(3), ScaleByAdamState(jnp.zeros([]), jnp.zeros(3), jnp.zeros(3)))
state = state._replace(opt_state=restore_namedtuple(state.opt_state))  # resumed from checkpoint

def apply_gradients(state):
  count, mu, nu = state.opt_state
  return TrainState(state.params - 0.1 * mu, ScaleByAdamState(count + 1, mu, nu))

state = jax.lax.cond(jnp.array(True), apply_gradients, lambda s: s, state)
print(state)
