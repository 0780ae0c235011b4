"""jit, grad, vmap, lax control flow, jax.nn and jax.random."""

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def loss(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    pred = jax.nn.relu(x @ params["w"] + params["b"])
    return jnp.mean((jax.nn.softmax(pred) - y) ** 2)


@jax.jit
def step(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> dict[str, jax.Array]:
    grads = jax.grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


@partial(jax.jit, static_argnums=1)
def power(x: jax.Array, n: int) -> jax.Array:
    return lax.fori_loop(0, n, lambda i, acc: acc * x, jnp.ones_like(x))


def scan_sum(xs: jax.Array) -> jax.Array:
    def body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        return carry + x, carry

    total, _ = lax.scan(body, jnp.zeros(xs.shape[1:]), xs)
    return total


key = jax.random.key(0)
k1, k2 = jax.random.split(key)
params = {"w": jax.random.normal(k1, (3, 2)), "b": jnp.zeros(2)}
x = jax.random.uniform(k2, (5, 3))
y = jax.nn.one_hot(jnp.array([0, 1, 0, 1, 1]), 2)
params = step(params, x, y)
batched = jax.vmap(lambda row: row * 2.0)(x)
value, grad = jax.value_and_grad(loss)(params, x, y)
cond = lax.cond(value > 0, lambda v: v, lambda v: -v, value)
clamped = lax.clamp(0.0, x, 1.0)
sig = jax.nn.sigmoid(x) + jax.nn.gelu(x) + jax.nn.log_softmax(x)
perm = jax.random.permutation(k1, 5)
bern = jax.random.bernoulli(k2, 0.5, (3,))
print(power(x, 3), scan_sum(x), batched, value, grad, cond, clamped, sig, perm, bern)
