"""https://github.com/Drenderer/klax/issues/19 -- fixed as the thread says: wrap in_axes into a single tuple."""
import jax
import jax.numpy as jnp


def model(x):
    x1, x2 = x
    return x1 * x2


def loss_fn(model, x, y, in_axes=0):
    y_pred = jax.vmap(model, in_axes=(in_axes,))(x)
    return jnp.mean((y_pred - y) ** 2)


x = (jnp.ones((8, 3)), jnp.ones((8, 3)))
y = jnp.zeros((8, 3))
in_axes = jax.tree.map(lambda _: 0, x)  # (0, 0): one entry per leaf of x
loss_fn(model, x, y, in_axes)
