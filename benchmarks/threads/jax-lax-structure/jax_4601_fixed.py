"""https://github.com/jax-ml/jax/issues/4601: fixed as the reporter did, by defining the namedtuple once at module level instead of inside the class."""
from collections import namedtuple
import jax
import jax.numpy as jnp

NestedSamplerState = namedtuple('NestedSamplerState', ['i', 'live_points'])
A = namedtuple('A', ['a'])

class NestedSampler(object):
    def __init__(self):
        self.A = A

    def initial_state(self):
        return NestedSamplerState(jnp.array(0), self.A(jnp.zeros(3)))

    def body(self, state):
        return NestedSamplerState(state.i + 1, self.A(state.live_points.a + 1.))

state = NestedSampler().initial_state()
sampler = NestedSampler()
state = jax.lax.while_loop(lambda state: state.i < 5, sampler.body, state)
print(state)
