"""https://github.com/google/flax/pull/1083 -- fixed (obvious fix, not from the thread): pass the copied attributes as constructor arguments"""
import jax
import jax.numpy as jnp
import flax.linen as nn


class Sub(nn.Module):
  attr1: float = 0.0
  attr2: float = 0.0
  attr3: float = 0.0

  @nn.compact
  def __call__(self, x):
    return nn.Dense(2)(x) * self.attr1 + self.attr2 + self.attr3


class Foo(nn.Module):
  attr1: float = 1.0
  attr2: float = 2.0
  attr3: float = 3.0

  def setup(self):
    attrs = ['attr1', 'attr2', 'attr3']
    kwargs = {attr: getattr(self, attr) for attr in attrs}
    self.submodule1 = Sub(**kwargs)
    self.submodule2 = Sub(**kwargs)

  def __call__(self, x):
    return self.submodule1(x) + self.submodule2(x)


Foo().init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
print("ok")
