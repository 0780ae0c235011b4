"""https://github.com/huggingface/diffusers/pull/595 -- fixed as in diffusers' vae_flax.py after the PR: keep the `dropout` rate field, name the layer `self.dropout_layer`"""
import flax.linen as nn
import jax
import jax.numpy as jnp


class FlaxResnetBlock2D(nn.Module):
    in_channels: int
    out_channels: int = None
    dropout: float = 0.0
    groups: int = 4
    dtype: jnp.dtype = jnp.float32

    def setup(self):
        out_channels = self.in_channels if self.out_channels is None else self.out_channels

        self.norm1 = nn.GroupNorm(num_groups=self.groups, epsilon=1e-6)
        self.conv1 = nn.Conv(out_channels, kernel_size=(3, 3), strides=(1, 1), padding=((1, 1), (1, 1)), dtype=self.dtype)
        self.norm2 = nn.GroupNorm(num_groups=self.groups, epsilon=1e-6)
        self.dropout_layer = nn.Dropout(self.dropout)
        self.conv2 = nn.Conv(out_channels, kernel_size=(3, 3), strides=(1, 1), padding=((1, 1), (1, 1)), dtype=self.dtype)

    def __call__(self, hidden_states, deterministic=True):
        residual = hidden_states
        hidden_states = self.norm1(hidden_states)
        hidden_states = nn.swish(hidden_states)
        hidden_states = self.conv1(hidden_states)
        hidden_states = self.norm2(hidden_states)
        hidden_states = nn.swish(hidden_states)
        hidden_states = self.dropout_layer(hidden_states, deterministic)
        hidden_states = self.conv2(hidden_states)
        return hidden_states + residual


x = jnp.ones((1, 8, 8, 8))
FlaxResnetBlock2D(in_channels=8, dropout=0.1).init(jax.random.PRNGKey(0), x)
print("ok")
