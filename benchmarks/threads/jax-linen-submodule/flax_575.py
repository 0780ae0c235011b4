"""https://github.com/google/flax/issues/575 -- setup keeps functools.partial(ConvBlock, ...) and the plain __call__ calls it, making a ConvBlock there."""
import functools
from typing import Any, Optional, Sequence, Tuple, Union
import jax, jax.numpy as jnp
from flax import linen as nn

class ConvBlock(nn.Module):
  out_channels: int = 32
  kernel_size: Sequence[int] = (3,3)
  strides: Optional[Sequence[int]] = None
  padding: Union[str, Sequence[Tuple[int, int]]] = 'VALID'
  train: bool = False
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x):
    x = nn.Conv(self.out_channels, kernel_size=self.kernel_size, strides=self.strides,
                padding=self.padding, use_bias=False, name='conv', dtype=self.dtype)(x)
    x = nn.BatchNorm(use_running_average=not self.train, name='bn', dtype=self.dtype)(x)
    return nn.relu(x)


class Model(nn.Module):
  train: bool = False
  dtype: Any = jnp.float32

  def setup(self):
    self.conv_block = functools.partial(ConvBlock, train=self.train, dtype=self.dtype)

  def __call__(self, x):
    x = self.conv_block(32, kernel_size=(3, 3), strides=(2, 2))(x)
    return x

variables = Model().init(jax.random.PRNGKey(0), jnp.ones((1, 32, 32, 3)))
print(jax.tree_util.tree_map(jnp.shape, variables))
