"""https://github.com/jax-ml/jax/issues/3613 -- out_axes with more entries than the mapped function has outputs (the thread's colab, reconstructed)."""
import jax
import jax.numpy as jnp


def f(x, y):
    return x + y


batched = jax.vmap(f, in_axes=(0, 0), out_axes=(0, 0))
batched(jnp.ones((4, 3)), jnp.ones((4, 3)))
