"""https://github.com/Neural-Mechanics-Lab/folax/pull/33: GridEmbeddingND caches its grid as new module state on first call, so the module carried through scan comes back with an extra leaf."""
import jax
import jax.numpy as jnp

@jax.tree_util.register_pytree_node_class
class GridEmbeddingND:
    def __init__(self, res):
        self.res = res

    def grid(self):
        if not hasattr(self, "_grid"):  # lazy grid caching
            self._grid = jnp.linspace(0.0, 1.0, self.res)
        return self._grid

    def __call__(self, x):
        return jnp.stack([x, x + self.grid()])

    def tree_flatten(self):  # like nnx: every array attribute is a state leaf
        keys = tuple(k for k in ("_grid",) if k in self.__dict__)
        return tuple(self.__dict__[k] for k in keys), (self.res, keys)

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = cls(aux[0])
        obj.__dict__.update(zip(aux[1], children))
        return obj

def step(model, x):
    return model, model(x)

model = GridEmbeddingND(4)
model, ys = jax.lax.scan(step, model, jnp.ones((3, 4)))
