"""A data-loading step ported from PyTorch, where passing a stream, writing into a tensor,
updating it in place, branching on a flag or a mask, handing a compiled function a string,
seeding by number, NumPy's sizes and its keywords were normal.

``mypy examples/`` (with the package installed) reports each misuse below under its rule's
code; at run time each raises on the line mypy reports, except the discarded update, which
runs and changes nothing.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

# JAX's own stubs type a device as Any; pyright rejects "jax.Device" in annotations.
Device = Any


def to_accelerator(batch: jax.Array, device: Device, stream: int | None = None) -> jax.Array:
    # torch: batch.to(device, non_blocking=True) on a side stream
    return batch.to_device(device, stream=stream)


def from_cupy(batch: jax.Array, device: Device, cupy_stream: Any) -> jax.Array:
    # A CuPy stream is Any to every checker: only the mypy plugin sees this one.
    return batch.to_device(device, stream=cupy_stream)


def mask_padding(batch: jax.Array, length: int) -> jax.Array:
    # torch: batch[length:] = 0 writes into the tensor; JAX arrays are immutable.
    batch[length:] = 0.0
    return batch


def zero_padding(batch: jax.Array, length: int) -> jax.Array:
    # torch: batch[length:].zero_() updates in place; JAX's .at[] returns the updated copy.
    batch.at[length:].set(0.0)
    return batch


@jax.jit
def normalise(batch: jax.Array, training: bool) -> jax.Array:
    # torch: "if training:" tests a Python flag; under jax.jit every argument is traced.
    if training:
        batch = batch * 0.5
    return batch


@jax.jit
def drop_padding(batch: jax.Array) -> jax.Array:
    # torch: batch[batch != 0] keeps the nonzero entries; under jax.jit shapes must be fixed.
    return batch[batch != 0]


@jax.jit
def activate(batch: jax.Array, kind: str = "relu") -> jax.Array:
    # torch: an activation chosen by name; under jax.jit a string must be a static argument.
    return jnp.tanh(batch) if kind == "tanh" else jnp.maximum(batch, 0.0)


def activate_tanh(batch: jax.Array) -> jax.Array:
    activated: jax.Array = activate(batch, kind="tanh")
    return activated


def pad_to(batch: jax.Array, width: int) -> jax.Array:
    return jnp.pad(batch, (0, width))


def compile_padding() -> Any:
    # torch.compile(pad_to): jax.jit names static parameters, and pad_to has no "widths".
    return jax.jit(pad_to, static_argnames=("widths",))


def noise(seed: int, n: int) -> jax.Array:
    # torch.manual_seed(seed); torch.randn(n): JAX takes a key, not a number.
    return jax.random.normal(seed, (n,))


def sample_indices(key: jax.Array, n: int) -> jax.Array:
    # torch.randint(0, n, (n,), dtype=torch.float32) gives floats; JAX's randint makes integers.
    return jax.random.randint(key, (n,), 0, n, dtype=jnp.float32)


def draw_batch(key: jax.Array, n: int, batch_size: int) -> jax.Array:
    # torch.randint(n, (batch_size,)), ported through NumPy's np.random.choice(n, batch_size).
    return jax.random.choice(key, n, batch_size)


def init_hidden(batch_size: int, width: int) -> jax.Array:
    # torch.zeros(batch_size, width): JAX takes the shape as one tuple, then the dtype.
    return jnp.zeros(batch_size, width)


def clamp(batch: jax.Array) -> jax.Array:
    # torch: batch.clamp(min=0), ported through NumPy's np.clip(batch, a_min=0).
    return jnp.clip(batch, a_min=0.0)


def count_tokens(tokens: jax.Array, vocabulary: int) -> jax.Array:
    # torch: counts.index_add_(0, tokens, ones), ported through NumPy's np.add.at.
    counts = jnp.zeros(vocabulary)
    jnp.add.at(counts, tokens, 1.0)
    return counts


def uninitialised(n: int) -> jax.Array:
    # torch.Tensor(n, n) makes an uninitialised tensor; jnp.ndarray is jax.Array, not a constructor.
    return jnp.ndarray((n, n))


def pool_pairs(batch: jax.Array) -> jax.Array:
    # torch: batch.view(batch.size(0) // 2, -1), ported with "/", which makes a float in Python 3.
    return batch.reshape(batch.shape[0] / 2, -1)


def momentum(params: jax.Array, velocity: jax.Array, steps: int) -> jax.Array:
    # torch: a loop updating two tensors in place, ported to lax.fori_loop; the body returns one of them.
    def step(i: int, state: tuple[jax.Array, jax.Array]) -> jax.Array:
        p, v = state
        v = 0.9 * v + p
        return p - 0.1 * v

    params, velocity = jax.lax.fori_loop(0, steps, step, (params, velocity))
    return params


@partial(jax.jit, donate_argnums=0)
def sgd_step(params: jax.Array, grads: jax.Array) -> jax.Array:
    return params.at[:].add(-0.1 * grads)


def train_step(params: jax.Array, grads: jax.Array) -> jax.Array:
    # torch: optimizer.step() updates params in place; here the old params are donated, then read.
    new_params: jax.Array = sgd_step(params, grads)
    print("moved by", new_params - params)
    return new_params


def fit(w: jax.Array, x: jax.Array) -> jax.Array:
    # torch: loss.backward() of a forward that returns (loss, predictions); jax.grad needs the loss alone.
    def loss(w: jax.Array) -> tuple[jax.Array, jax.Array]:
        predictions = x @ w
        return jnp.mean(predictions**2), predictions

    grad_fn = jax.grad(loss)
    grads: jax.Array = grad_fn(w)
    return grads


def row_norms(rows: jax.Array, scale: float) -> jax.Array:
    # torch: a loop over rows, ported to jax.vmap; in_axes maps neither argument.
    def norm(row: jax.Array, s: float) -> jax.Array:
        return jnp.sqrt(jnp.sum(row**2)) * s

    batched = jax.vmap(norm, in_axes=(None, None))
    return batched(rows, scale)


def slope_at_three() -> jax.Array:
    # torch: torch.autograd.grad at a tensor made from 3; jax.grad differentiates floats only.
    def curve(t: float) -> float:
        return t**2

    slope = jax.grad(curve)
    gradient: jax.Array = slope(3)
    return gradient


def logged_losses(weights: jax.Array) -> jax.Array:
    # torch: losses.append(loss) inside the training step; under jax.jit the loss is a tracer.
    losses: list[jax.Array] = []

    @jax.jit
    def step(w: jax.Array) -> jax.Array:
        loss = jnp.sum(w**2)
        losses.append(loss)
        return w - 0.1 * w

    step(weights)
    return jnp.stack(losses).mean()


@partial(jax.jit, static_argnames=("training",))
def normalise_fixed(batch: jax.Array, training: bool) -> jax.Array:
    # What to write instead: the flag static, the padding kept as zeros with jnp.where.
    if training:
        batch = batch * 0.5
    return jnp.where(batch != 0, batch, 0.0)


def fixed(batch: jax.Array, device: Device, length: int) -> jax.Array:
    # What to write instead: no stream, and an updated copy from .at[]; order work with
    # another library by synchronising.
    moved = batch.to_device(device)
    moved = moved.at[length:].set(0.0)
    return moved.block_until_ready()


def fixed_sampling(seed: int, tokens: jax.Array, vocabulary: int) -> jax.Array:
    # What to write instead: one key, split for each use; an integer dtype for randint; a
    # tuple for choice's shape and for zeros'; NumPy 2's names for clip; the updated copy that
    # .at[] returns; jnp.zeros for a buffer.
    key, noise_key, index_key = jax.random.split(jax.random.key(seed), 3)
    noisy = jnp.clip(jax.random.normal(noise_key, (vocabulary,)), min=0.0)
    indices = jax.random.randint(index_key, (vocabulary,), 0, vocabulary, dtype=jnp.int32)
    drawn = jax.random.choice(key, vocabulary, (vocabulary,))
    counts = jnp.zeros(vocabulary).at[tokens].add(1.0)
    hidden = jnp.zeros((1, vocabulary))
    return noisy + counts + indices + drawn + jnp.zeros((vocabulary,)) + hidden


if __name__ == "__main__":
    device = jax.devices()[0]
    print(fixed(jnp.arange(4.0), device, 2))
    to_accelerator(jnp.arange(4.0), device, stream=1)
