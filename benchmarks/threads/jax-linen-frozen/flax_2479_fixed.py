"""https://github.com/google/flax/issues/2479 -- fixed as in the thread's own working snippet: set the derived attribute BEFORE super().__post_init__()"""
from flax import linen as nn
import jax.numpy as jnp
import jax


class A(nn.Module):
  x: float

  def __post_init__(self):
    self.x_square = self.x ** 2
    super().__post_init__()

  @nn.compact
  def __call__(self, input):
    return input + 3


r = A(x=3)
r.init(jax.random.PRNGKey(2), jnp.ones(3))
print("ok")
