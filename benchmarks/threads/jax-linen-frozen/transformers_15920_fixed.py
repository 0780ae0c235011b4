"""https://github.com/huggingface/transformers/pull/15920 -- fixed as in the merged PR: embed_tokens becomes a required field and the parent passes the shared nn.Embed to both encoder and decoder"""
import math

import flax.linen as nn
import jax
import jax.numpy as jnp


class BartConfig:  # minimal stand-in for transformers.BartConfig
    vocab_size = 32
    d_model = 8
    init_std = 0.02
    scale_embedding = False


class FlaxBartEncoder(nn.Module):
    config: BartConfig
    embed_tokens: nn.Embed
    dtype: jnp.dtype = jnp.float32  # the dtype of the computation

    def setup(self):
        embed_dim = self.config.d_model
        self.embed_scale = math.sqrt(embed_dim) if self.config.scale_embedding else 1.0

    def __call__(self, input_ids):
        return self.embed_tokens(input_ids) * self.embed_scale


class FlaxBartDecoder(nn.Module):
    config: BartConfig
    embed_tokens: nn.Embed
    dtype: jnp.dtype = jnp.float32  # the dtype of the computation

    def setup(self):
        self.embed_scale = math.sqrt(self.config.d_model) if self.config.scale_embedding else 1.0

    def __call__(self, input_ids):
        return self.embed_tokens(input_ids) * self.embed_scale


class FlaxDummyBartModule(nn.Module):
    config: BartConfig
    dtype: jnp.dtype = jnp.float32  # the dtype of the computation

    def setup(self):
        self.shared = nn.Embed(
            self.config.vocab_size,
            self.config.d_model,
            embedding_init=jax.nn.initializers.normal(self.config.init_std),
        )

        self.encoder = FlaxBartEncoder(self.config, dtype=self.dtype, embed_tokens=self.shared)
        self.decoder = FlaxBartDecoder(self.config, dtype=self.dtype, embed_tokens=self.shared)

    def __call__(self, input_ids, decoder_input_ids):
        return self.encoder(input_ids), self.decoder(decoder_input_ids)


ids = jnp.zeros((1, 4), dtype="i4")
FlaxDummyBartModule(BartConfig()).init(jax.random.PRNGKey(0), ids, ids)
print("ok")
