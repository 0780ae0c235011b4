"""https://github.com/jax-ml/jax/issues/1534: fixed by returning None as the carry, as the init is None."""
import jax.numpy as jp
from jax import lax

carry, ys = lax.scan(lambda c, x: (None, (x, 2 * x)), None, jp.arange(5))
print(carry, ys)
