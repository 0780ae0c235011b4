"""https://github.com/google/flax/issues/2479 -- __post_init__ sets self.x_square AFTER super().__post_init__() -> SetAttributeFrozenModuleError ("Can't set x_square=9 ... frozen outside of setup method")"""
from flax import linen as nn
import jax.numpy as jnp
import jax


class A(nn.Module):
  x: float

  def __post_init__(self):
    super().__post_init__()
    self.x_square = self.x ** 2

  @nn.compact
  def __call__(self, input):
    return input + 3


r = A(x=3)
r.init(jax.random.PRNGKey(2), jnp.ones(3))
print("no error")
