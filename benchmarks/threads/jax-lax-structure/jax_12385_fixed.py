"""https://github.com/jax-ml/jax/issues/12385: fixed by checkifying the function that calls switch instead of each branch."""
import jax
import jax.numpy as jnp
from jax.experimental import checkify

def make_branch(i):
  def branch():
    result = jnp.full((1,), i)
    checkify.check(jnp.sum(result) > 0, 'Failed!')
    return result
  return branch

index = jnp.full((), 1)
checked = checkify.checkify(lambda idx: jax.lax.switch(idx, [make_branch(i) for i in range(3)]))
err, result = checked(index)
err.throw()
print(result)
