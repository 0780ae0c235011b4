"""https://github.com/google/flax/issues/3637 -- a plain helper _embed makes nn.Dense; the @nn.compact_name_scope method up calls it, and init runs up (method=Foo.up)."""
import jax
from flax import linen as nn
from jax import random
import jax.numpy as jnp

class Foo(nn.Module):
  @nn.compact_name_scope
  def up(self, x):
    return self._embed(x) + nn.Dense(4)(x)

  def _embed(self, x):
    return nn.Dense(4)(x)

params = Foo().init(random.PRNGKey(0), jnp.zeros((3, 4)), method=Foo.up)
print(jax.tree_util.tree_map(jnp.shape, params))
