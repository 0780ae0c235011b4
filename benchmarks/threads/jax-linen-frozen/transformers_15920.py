"""https://github.com/huggingface/transformers/pull/15920 -- FlaxBartDecoder.setup() does `if self.embed_tokens is None: self.embed_tokens = nn.Embed(...)` on a dataclass field (decoder built without embed_tokens); thread reports SetAttributeFrozenModuleError, current Flax raises SetAttributeInModuleSetupError"""
# Reduced; pre-fix field/setup shape confirmed from a stored copy of the old modeling_flax_bart.py (`embed_tokens: Optional[nn.Embed] = None`).
import math
from typing import Optional

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
    dtype: jnp.dtype = jnp.float32  # the dtype of the computation
    embed_tokens: Optional[nn.Embed] = None

    def setup(self):
        embed_dim = self.config.d_model
        self.embed_scale = math.sqrt(embed_dim) if self.config.scale_embedding else 1.0
        if self.embed_tokens is None:
            self.embed_tokens = nn.Embed(
                self.config.vocab_size,
                embed_dim,
                embedding_init=jax.nn.initializers.normal(self.config.init_std),
                dtype=self.dtype,
            )

    def __call__(self, input_ids):
        return self.embed_tokens(input_ids) * self.embed_scale


class FlaxBartDecoder(nn.Module):
    config: BartConfig
    dtype: jnp.dtype = jnp.float32  # the dtype of the computation
    embed_tokens: Optional[nn.Embed] = None

    def setup(self):
        embed_dim = self.config.d_model
        self.embed_scale = math.sqrt(embed_dim) if self.config.scale_embedding else 1.0
        if self.embed_tokens is None:
            self.embed_tokens = nn.Embed(
                self.config.vocab_size,
                embed_dim,
                embedding_init=jax.nn.initializers.normal(self.config.init_std),
                dtype=self.dtype,
            )

    def __call__(self, input_ids):
        return self.embed_tokens(input_ids) * self.embed_scale


class FlaxDummyBartModule(nn.Module):
    config: BartConfig
    dtype: jnp.dtype = jnp.float32  # the dtype of the computation

    def setup(self):
        self.embedding = nn.Embed(
            self.config.vocab_size,
            self.config.d_model,
            embedding_init=jax.nn.initializers.normal(self.config.init_std),
        )

        self.encoder = FlaxBartEncoder(self.config, dtype=self.dtype, embed_tokens=self.embedding)
        self.decoder = FlaxBartDecoder(self.config, dtype=self.dtype)

    def __call__(self, input_ids, decoder_input_ids):
        return self.encoder(input_ids), self.decoder(decoder_input_ids)


ids = jnp.zeros((1, 4), dtype="i4")
FlaxDummyBartModule(BartConfig()).init(jax.random.PRNGKey(0), ids, ids)
print("no error")
