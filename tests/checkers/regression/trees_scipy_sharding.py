"""tree_util, jax.scipy, sharding, .at[] updates and device placement."""

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

tree = {"a": jnp.ones(3), "b": (jnp.zeros(2), jnp.arange(4))}
leaves, treedef = jax.tree_util.tree_flatten(tree)
rebuilt = jax.tree_util.tree_unflatten(treedef, leaves)
doubled = jax.tree.map(lambda v: v * 2, tree)
count = len(jax.tree.leaves(tree))

x = jnp.arange(6.0)
updated = x.at[0].set(10.0).at[1:3].add(1.0).at[-1].multiply(2.0)
gathered = x.at[jnp.array([0, 2])].get()
minimum = x.at[2].min(0.5)

lse = jsp.special.logsumexp(x)
cdf = jsp.stats.norm.cdf(x)
solved = jsp.linalg.solve(jnp.eye(2), jnp.ones(2))

device = jax.devices()[0]
mesh = Mesh(np.array(jax.devices()), ("data",))
named = NamedSharding(mesh, PartitionSpec("data"))
placed = jax.device_put(x, named)
single = jax.device_put(x, SingleDeviceSharding(device))
moved = x.to_device(device)
moved_sharded = x.to_device(named)
sharding = placed.sharding
print(rebuilt, doubled, count, updated, gathered, minimum, lse, cdf, solved, placed, single,
      moved, moved_sharded, sharding)
