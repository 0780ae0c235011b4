"""https://github.com/jax-ml/jax/issues/12385: switch over separately checkified branches, whose Error outputs carry different pytree metadata."""
import jax
import jax.numpy as jnp
from jax.experimental import checkify

def make_branch(i):
  @checkify.checkify
  def branch():
    result = jnp.full((1,), i)
    checkify.check(jnp.sum(result) > 0, 'Failed!')
    return result
  return branch

index = jnp.full((), 1)
err, result = jax.lax.switch(index, [make_branch(i) for i in range(3)])
checkify.check_error(err)
