"""https://github.com/jax-ml/jax/issues/5021 -- in_axes=None maps nothing, so vmap has no axis size."""
from jax import vmap

vmap(lambda x: x, in_axes=None, out_axes=None)(3.14)
