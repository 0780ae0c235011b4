"""https://github.com/google/trax/issues/1061: the optimizer's tree_init gives slots as a list but tree_update returns a tuple, so a cond between old and updated slots fails."""
import jax
import jax.numpy as jnp

class Momentum:
  def tree_init(self, weight_tree):
    return [jnp.zeros_like(w) for w in weight_tree]  # slots list

  def tree_update(self, step, grad_tree, weight_tree, slots):
    updated = [(w - 0.01 * (0.9 * s + g), 0.9 * s + g)
               for w, g, s in zip(weight_tree, grad_tree, slots)]
    new_weights, new_slots = zip(*updated)  # slots tuple
    return list(new_weights), new_slots

opt = Momentum()
weight_tree = [jnp.ones(3), jnp.ones(2)]
old_slots = opt.tree_init(weight_tree)
grad_tree = [jnp.zeros_like(w) for w in weight_tree]
new_slots = jax.lax.cond(jnp.array(True),
                         lambda: opt.tree_update(1, grad_tree, weight_tree, old_slots)[1],
                         lambda: old_slots)
print(new_slots)
