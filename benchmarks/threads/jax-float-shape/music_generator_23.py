"""https://github.com/llSourcell/Music_Generator_Demo/issues/23, ported."""

import jax.numpy as jnp

num_timesteps = 15


def prepare(song):
    song = song[: int(jnp.floor(song.shape[0] / num_timesteps) * num_timesteps)]
    song = jnp.reshape(song, [song.shape[0] / num_timesteps, song.shape[1] * num_timesteps])
    return song


print(prepare(jnp.ones((60, 4))).shape)
