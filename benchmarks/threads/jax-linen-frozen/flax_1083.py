"""https://github.com/google/flax/pull/1083 -- client code quoted in the revert PR: setup() copies attrs onto already-assigned submodules via setattr(submodule, attr, ...) -> SetAttributeFrozenModuleError"""
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
    self.submodule1 = Sub()
    self.submodule2 = Sub()

    submodules = [self.submodule1, self.submodule2]
    attrs = ['attr1', 'attr2', 'attr3']
    for submodule in submodules:
      for attr in attrs:
        if hasattr(submodule, attr):
          setattr(submodule, attr, getattr(self, attr))

  def __call__(self, x):
    return self.submodule1(x) + self.submodule2(x)


Foo().init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
print("no error")
