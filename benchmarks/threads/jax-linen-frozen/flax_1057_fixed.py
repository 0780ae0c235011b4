"""https://github.com/google/flax/issues/1057 -- fixed (obvious fix, not taken from the thread): resolve the default into a local instead of reassigning the dataclass field in setup()"""
import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
from typing import Any


class Test(nn.Module):
  dtype1: Any = jnp.float32
  dtype2: Any = None

  @nn.compact
  def __call__(self, x):
    dtype2 = self.dtype1 if self.dtype2 is None else self.dtype2
    dense = nn.linear.Dense(name="dense", features=3, dtype=dtype2)
    return jnp.asarray(dense(x), dtype=self.dtype1) + 1


model = Test()
pars = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
print("ok")
