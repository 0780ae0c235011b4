"""https://github.com/jax-ml/jax/issues/1534: scan carry starts as None but the body returns 0 as the new carry."""
import jax.numpy as jp
from jax import lax

carry, ys = lax.scan(lambda c, x: (0, (x, 2 * x)), None, jp.arange(5))
print(carry, ys)
