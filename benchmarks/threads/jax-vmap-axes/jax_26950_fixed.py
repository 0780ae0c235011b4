"""https://github.com/jax-ml/jax/pull/26950 -- fixed as the thread shows: in_axes=(axes,)."""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import dataclasses

import jax
from jax import numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class A:  # eqx.Module in the thread
    a: jax.Array
    b: jax.Array


def f(x):
    return jnp.mean(x.a) + jnp.mean(x.b)


a = A(jnp.ones((2, 10)), jnp.ones((2, 100)))
axes = A(None, 0)
jax.pmap(f, in_axes=(axes,))(a)  # works
