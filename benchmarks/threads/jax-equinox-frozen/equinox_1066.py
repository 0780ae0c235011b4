"""https://github.com/patrick-kidger/equinox/issues/1066 -- a method sets self.x on a module already made; the class body and the method, left out of the thread, written minimally."""
import jax
import jax.numpy as jnp
import equinox as eqx


class Model(eqx.Module):
    a: jax.Array
    x: jax.Array | None

    def __init__(self, a):
        self.a = a
        self.x = None  # this initialises and sets x = None

    def function(self, value):
        self.x = value  # should set x = some value of type jax.Array


object = Model(jnp.ones(3))
object.function(jnp.arange(3.0))
print(object.x)
