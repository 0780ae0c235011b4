"""https://github.com/google/flax/issues/1074 -- in a @nn.compact __call__, sets attributes on a freshly built submodule (dense.features = 20; dense.new_attr = 20) -> SetAttributeFrozenModuleError"""
import jax.numpy as jnp
from jax import random
from flax import linen as nn


class SomeModule(nn.Module):
  @nn.compact
  def __call__(self, x):
    dense = nn.Dense(10)
    dense.features = 20
    dense.new_attr = 20  # <--- ERROR! (per the issue)
    return dense(x)


SomeModule().init(random.PRNGKey(0), jnp.ones((5, 5)))
print("no error")
