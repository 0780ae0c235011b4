"""Ordinary jax.numpy code and methods of jax.Array."""

import jax
import jax.numpy as jnp
import numpy as np

x = jnp.arange(12.0).reshape(3, 4)
y = jnp.ones((4, 2), dtype=jnp.float32)
z = x @ y
w = jnp.where(x > 3, x, 0.0)
m = jnp.mean(x, axis=0) + jnp.std(x) - jnp.max(x, keepdims=True)
c = jnp.concatenate([x, x], axis=1)
s = jnp.stack([x[0], x[1]])
e = jnp.einsum("ij,jk->ik", x, y)
idx = jnp.argmax(x, axis=-1)
clipped = jnp.clip(x, 0.0, 5.0)
as_np = np.asarray(x)
back = jnp.asarray(as_np)
cast = x.astype(jnp.int32)
t = x.T
r = x.reshape(-1)
total = x.sum() + x.mean() + x.max() + x.min()
flat = x.ravel()
shape: tuple[int, ...] = x.shape
ndim: int = x.ndim
size: int = x.size
dtype = x.dtype
item = x[0, 0].item()
listed = x.tolist()
copied = x.copy()
sq = x.squeeze()
tr = x.transpose((1, 0))
cumulative = jnp.cumsum(x, axis=1)
sorted_x = jnp.sort(x, axis=-1)
lin = jnp.linspace(0.0, 1.0, 5)
zeros = jnp.zeros_like(x)
full = jnp.full((2, 2), 7.0)
eye = jnp.eye(3)
norm = jnp.linalg.norm(x)
inv = jnp.linalg.inv(eye)
devices = x.devices()
on_device = x.to_device(jax.devices()[0])
ready = x.block_until_ready()
print(z, w, m, c, s, e, idx, clipped, back, cast, t, r, total, flat, shape, ndim, size, dtype,
      item, listed, copied, sq, tr, cumulative, sorted_x, lin, zeros, full, inv, norm, devices,
      on_device, ready)
