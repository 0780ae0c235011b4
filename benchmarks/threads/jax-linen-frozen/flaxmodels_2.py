"""https://github.com/matthias-wright/flaxmodels/issues/2 -- MappingNetwork.__call__ (compact) reassigns self.w_avg (a setup-defined variable) instead of self.w_avg.value -> SetAttributeFrozenModuleError ("Can't set w_avg=... for Module of type MappingNetwork")"""
# Reduced from flaxmodels/stylegan2/generator.py at commit d59eec8 (the code the issue hit; fixed in 873e0bb).
import jax
import jax.numpy as jnp
from jax import random
import flax.linen as nn


class MappingNetwork(nn.Module):
    z_dim: int = 8
    w_dim: int = 8
    num_ws: int = 2
    num_layers: int = 2
    w_avg_beta: float = 0.995

    def setup(self):
        self.training = True
        self.w_avg = self.variable('moving_stats', 'w_avg', jnp.zeros, [self.w_dim])

    @nn.compact
    def __call__(self, z, c=None, truncation_psi=1, truncation_cutoff=None, skip_w_avg_update=False):
        x = z * jax.lax.rsqrt(jnp.mean(jnp.square(z), axis=1, keepdims=True) + 1e-8)

        # Main layers.
        for i in range(self.num_layers):
            layer_name = f'fc{i}'
            x = nn.Dense(features=self.w_dim, name=layer_name)(x)
            x = nn.leaky_relu(x, 0.2)

        # Update moving average of W.
        if self.w_avg_beta is not None and self.training and not skip_w_avg_update:
            self.w_avg = self.w_avg_beta * self.w_avg.value + (1 - self.w_avg_beta) * jnp.mean(x, axis=0)

        # Broadcast.
        if self.num_ws is not None:
            x = jnp.repeat(jnp.expand_dims(x, axis=-2), repeats=self.num_ws, axis=-2)

        # Apply truncation.
        if truncation_psi != 1:
            x = truncation_psi * x + (1 - truncation_psi) * self.w_avg.value

        return x


key = random.PRNGKey(0)
dummy_z = random.normal(key, (1, 8))
mapping = MappingNetwork()
params = mapping.init(key, dummy_z)['params']
print("no error")
