"""A signal-processing module ported from NumPy, never type-checked: no annotations, one misuse
of each rule of the plugin and of each of mypy's errors lint shows under a code of its own
(marked "# jax-..."), and the JAX way beside it. Checked by
tests/test_lint.py with "jax-stubs lint"; mypy's own errors here (the last function) must not
show."""

import jax
import jax.numpy as jnp
import numpy as np


def to_accelerator(signal, device):
    samples = jnp.asarray(signal)
    moved = samples.to_device(device)
    return samples.to_device(device, stream=1)  # jax-to-device-stream


def zero_start(n):
    window = jnp.ones(n)
    window[0] = 0.0  # jax-immutable-array
    return window, jnp.ones(n).at[0].set(0.0)


def ranked(n):
    values = jnp.arange(n)[::-1]
    values.sort()  # jax-discarded-update
    return values.sort()


@jax.jit
def normalise(signal):
    total = jnp.ones(3).sum()
    if total > 0:  # jax-traced-value
        signal = signal / total
    return jnp.where(total > 0, signal / total, signal)


@jax.jit
def positive(signal):
    window = jnp.arange(5.0) - 2.0
    return window[window > 0], jnp.where(window > 0, window, 0.0)  # jax-traced-shape


def resample(signal, rate):
    return signal[::rate]


def compile_resample():
    fixed = jax.jit(resample, static_argnames=("rate",))
    return jax.jit(resample, static_argnames=("step",))  # jax-jit-declaration


@jax.jit
def activate(signal, kind="relu"):
    return jnp.maximum(signal, 0.0)


def activated(signal):
    return activate(signal, "tanh"), activate(signal)  # jax-jit-call


def ordered(signal):
    by_value = jnp.sort(jnp.asarray(signal), stable=True)
    return jnp.sort(jnp.asarray(signal), kind="mergesort")  # jax-unsupported-argument


def place_peaks(n):
    peaks = jnp.zeros(n)
    peaks = jnp.put(peaks, jnp.array([0]), 1.0, inplace=False)
    jnp.put(peaks, jnp.array([1]), 1.0)  # jax-inplace-default
    return peaks


def from_generator(n):
    return jnp.fromiter(range(n), dtype=float)  # jax-unsupported-function


def noise(n):
    key = jax.random.key(0)
    clean = jax.random.normal(key, (n,))
    return jax.random.normal(0, (n,))  # jax-prng-key


def jitter(n):
    key = jax.random.key(1)
    offsets = jax.random.randint(key, (n,), 0, 4, dtype=jnp.int32)
    return jax.random.randint(key, (n,), 0, 4, dtype=jnp.float32)  # jax-random-dtype


def pick_frames(n_frames):
    key = jax.random.key(2)
    chosen = jax.random.choice(key, n_frames, (4,))
    return jax.random.choice(key, n_frames, 4)  # jax-random-shape


def window_weights():
    key = jax.random.key(3)
    scaled = jax.random.uniform(key, (8,), minval=0.5, maxval=1.5)
    return jax.random.uniform(key, (8,), 0.5, 1.5)  # jax-dtype-argument


def frames(signal):
    pairs = jnp.reshape(signal, (signal.shape[0] // 2, 2))
    return jnp.reshape(signal, (signal.shape[0] / 2, 2))  # jax-float-shape


def running_peak(signal):
    def step(peak, x):
        return jnp.maximum(peak, x)

    kept, _ = jax.lax.scan(lambda peak, x: (jnp.maximum(peak, x), x), 0.0, signal)
    return jax.lax.scan(step, 0.0, signal)  # jax-lax-structure


def halve(samples):
    return samples // 2


halve_in_place = jax.jit(halve, donate_argnums=0)


def halved_and_offset(signal):
    samples = jnp.asarray(signal)
    halved = halve_in_place(samples)
    return halved, samples + 1  # jax-donated-buffer


def peak_gradient(signal):
    def peak_and_index(s):
        return jnp.max(s), jnp.argmax(s)

    slope = jax.grad(peak_and_index)  # jax-grad-output
    return slope(signal)


def cube_slope():
    def cube(t):
        return t**3

    slope = jax.grad(cube)
    return slope(2)  # jax-grad-argument


def peaks_by_step(signal):
    peaks = []

    @jax.jit
    def step(window):
        peak = window.max()
        peaks.append(peak)  # jax-leaked-tracer
        return window / peak

    step(jnp.asarray(signal))
    return jnp.stack(peaks)


def pairwise_gaps(signal):
    def gap(a, b):
        return jnp.abs(a - b)

    batched = jax.vmap(gap, in_axes=(None, None))  # jax-vmap-axes
    return batched(signal, signal)


def flattened(signal):
    samples = jnp.asarray(signal)
    return jnp.reshape(samples, newshape=(-1,))  # jax-call-signature


def halved_tree(params):
    return jax.tree_map(lambda p: 0.5 * p, params)  # jax-removed-name


def not_about_jax(values):
    label: int = "not an int"
    return np.zeros(3) + values
