"""https://github.com/chromatix-team/chromatix/issues/115 -- a plain method psf, called from the compact __call__, makes the optical system's elements; apply(..., method=holoscope.psf) runs it outside any compact method. The Holoscope class is the repository's docs/examples/holoscope.ipynb at a9a8fe7; its elements are stand-in Linen modules with the same roles."""
from typing import Callable, Sequence, Tuple, Union
import jax
import jax.numpy as jnp
from jax import random
import flax.linen as nn
import numpy as np

Array = jnp.ndarray

# ---- minimal stand-ins for chromatix.elements / chromatix.systems ----
class ObjectivePointSource(nn.Module):
    shape: Tuple[int, int]
    spacing: float
    spectrum: float
    spectral_density: float
    f: float
    n: float
    NA: float
    @nn.compact
    def __call__(self, z):
        return jnp.ones((z.shape[0], *self.shape)) * z[:, None, None]

class PhaseMask(nn.Module):
    phase: Union[Callable, Array]
    f: float
    n: float
    NA: float
    @nn.compact
    def __call__(self, field):
        phase = self.param("_phase", self.phase, field.shape[1:])
        return field * jnp.exp(1j * phase)

class FFLens(nn.Module):
    f: float
    n: float
    @nn.compact
    def __call__(self, field):
        return jnp.fft.fft2(field)

class OpticalSystem(nn.Module):
    elements: Sequence[nn.Module]
    @nn.compact
    def __call__(self, z):
        x = z
        for el in self.elements:
            x = el(x)
        return x
# -----------------------------------------------------------------------

class Holoscope(nn.Module):
    psf_shape: Tuple[int, int]
    psf_spacing: float
    pad: int
    phase: Union[Callable[[random.PRNGKey], Array], Array]
    f: float
    n: float
    NA: float
    spectrum: float
    spectral_density: float

    @nn.compact
    def __call__(self, sample: Array, z: Array) -> Array:
        psf = jnp.abs(self.psf(z)) ** 2
        image = jnp.sum(psf * sample, axis=0, keepdims=True)
        return image

    def psf(self, z: Array):
        shape = tuple(np.array(self.psf_shape).astype(int) + self.pad)
        spacing = self.f * self.spectrum / (self.n * shape[0] * self.psf_spacing)
        system_psf = OpticalSystem([
            ObjectivePointSource(shape, spacing, self.spectrum, self.spectral_density, self.f, self.n, self.NA),
            PhaseMask(self.phase, self.f, self.n, self.NA),
            FFLens(self.f, self.n)
        ])
        return system_psf(z)

key = random.PRNGKey(4)
z = jnp.linspace(-100, 100, num=4)
sample = jnp.ones((4, 8, 8))
holoscope = Holoscope(psf_shape=(4, 4), psf_spacing=0.325, pad=4,
                      phase=nn.initializers.normal(), f=100.0, n=1.33, NA=0.8,
                      spectrum=0.532, spectral_density=1.0)
variables = holoscope.init({"params": key, "noise": key}, sample, z)
params = variables["params"]
image = holoscope.apply({"params": params}, sample, z, rngs={"noise": key})
print("__call__ ok", image.shape)
# the call from the issue:
psf = holoscope.apply({"params": params}, z, method=holoscope.psf, rngs={"noise": key})
print(psf.shape)
