"""https://github.com/patrick-kidger/equinox/issues/1066 -- fixed as the thread is answered: the method returns an updated copy made with eqx.tree_at."""
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
        return eqx.tree_at(lambda m: m.x, self, value, is_leaf=lambda v: v is None)


object = Model(jnp.ones(3))
object = object.function(jnp.arange(3.0))
print(object.x)
