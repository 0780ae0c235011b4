"""https://github.com/jax-ml/jax/issues/4601: a namedtuple class created in __init__ is a new class per instance, so the while_loop state built by one sampler and the state returned by another's body differ in type (reconstructed from the reporter's diagnosis)."""
from collections import namedtuple
import jax
import jax.numpy as jnp

NestedSamplerState = namedtuple('NestedSamplerState', ['i', 'live_points'])

class NestedSampler(object):
    def __init__(self):
        self.A = namedtuple('A', ['a'])

    def initial_state(self):
        return NestedSamplerState(jnp.array(0), self.A(jnp.zeros(3)))

    def body(self, state):
        return NestedSamplerState(state.i + 1, self.A(state.live_points.a + 1.))

state = NestedSampler().initial_state()
sampler = NestedSampler()
state = jax.lax.while_loop(lambda state: state.i < 5, sampler.body, state)
print(state)
