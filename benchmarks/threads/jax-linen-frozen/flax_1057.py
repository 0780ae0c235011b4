"""https://github.com/google/flax/issues/1057 -- setup() assigns a dataclass field (self.dtype2 = self.dtype1) -> SetAttributeInModuleSetupError ("Module construction attributes are frozen")"""
import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
from typing import Any


class Test(nn.Module):
  dtype1: Any = jnp.float32
  dtype2: Any = None

  def setup(self):
    if self.dtype2 is None:
      self.dtype2 = self.dtype1

  @nn.compact
  def __call__(self, x):
    dense = nn.linear.Dense(name="dense", features=3, dtype=self.dtype2)
    return jnp.asarray(dense(x), dtype=self.dtype1) + 1


model = Test()
pars = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
print("no error")
