"""https://github.com/google/flax/issues/1074 -- fixed (obvious fix): pass the value to the submodule constructor instead of mutating it afterwards"""
import jax.numpy as jnp
from jax import random
from flax import linen as nn


class SomeModule(nn.Module):
  @nn.compact
  def __call__(self, x):
    dense = nn.Dense(20)
    return dense(x)


SomeModule().init(random.PRNGKey(0), jnp.ones((5, 5)))
print("ok")
