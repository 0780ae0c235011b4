"""https://github.com/jax-ml/jax/issues/12557 -- fixed as the thread shows working: in_axes as a tuple."""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Batch:  # @chex.dataclass in the thread
    x: jnp.ndarray
    y: jnp.ndarray


def f(key, b: Batch):
    return b.x + b.y + jax.random.uniform(key)


fp = jax.pmap(f, axis_name="superbatch", in_axes=(0, Batch(x=0, y=0)))

NUM_DEVICES = jax.local_device_count()
TEST_ARRAY_SIZE = 8
k = jax.random.PRNGKey(42)
k, *keys = jax.random.split(k, NUM_DEVICES + 1)
super_batch = Batch(x=jnp.ones((NUM_DEVICES, TEST_ARRAY_SIZE)), y=jnp.ones((NUM_DEVICES, TEST_ARRAY_SIZE)))
fp(jnp.stack(keys), super_batch)
