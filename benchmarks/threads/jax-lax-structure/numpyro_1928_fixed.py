"""https://github.com/pyro-ppl/numpyro/issues/1928: fixed as the report notes, by not touching the lazy property before the scan."""
from functools import cached_property
import jax
from jax import numpy as jnp

@jax.tree_util.register_pytree_node_class
class MultivariateNormal:
    def __init__(self, precision_matrix):
        self.precision_matrix = precision_matrix

    @cached_property  # stands in for numpyro's lazy_property
    def covariance_matrix(self):
        return jnp.linalg.inv(self.precision_matrix)

    def tree_flatten(self):  # cached attributes not yet in __dict__ flatten as None
        return (self.precision_matrix, self.__dict__.get("covariance_matrix")), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        d = cls(children[0])
        if children[1] is not None:
            d.__dict__["covariance_matrix"] = children[1]
        return d

def make_dist():
    return MultivariateNormal(precision_matrix=jnp.eye(2))

init = make_dist()
# init.covariance_matrix  # No error if this line is commented.
jax.lax.scan(lambda carry, _: (make_dist(), None), init, jnp.arange(7))
