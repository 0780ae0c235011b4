"""https://github.com/CORE-GATECH-GROUP/serpent-tools/issues/158, ported: a group count read as a float."""

import jax.numpy as jnp


class Container:
    def __init__(self, num_groups):
        self.numGroups = num_groups

    def clean(self, value):
        ng = self.numGroups
        return value.reshape(ng, ng)


print(Container(float("2")).clean(jnp.arange(4.0)))
