"""https://github.com/jax-ml/jax/issues/5021 -- fixed as the answer gives: pass axis_size when nothing is mapped."""
from jax import vmap

vmap(lambda x: x, in_axes=None, out_axes=None, axis_size=0)(3.14)
