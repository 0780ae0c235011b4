"""https://github.com/jax-ml/jax/issues/13214 -- pmap given in_axes as a list, which vmap accepts and pmap rejects."""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import jax
import jax.numpy as jnp


def foo(a, b, c, d):
    return b


in_axis_specification = [None, 0, None, 0]
pmap_test = jax.pmap(foo, in_axes=in_axis_specification)

d = jnp.zeros((2, 100000))
c = jnp.asarray([4, 5])
b = jnp.asarray([4, 5])
a = jnp.asarray([4, 5])
pmap_test(a, b, c, d)
