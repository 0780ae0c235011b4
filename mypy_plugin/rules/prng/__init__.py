"""PRNG keys and seeds where JAX needs a key, and dtypes ``jax.random`` rejects (``jax-prng-key``,
``jax-random-dtype``)."""
