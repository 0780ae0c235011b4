"""PRNG keys and seeds where JAX needs a key, and the dtypes and shapes ``jax.random`` rejects
(``jax-prng-key``, ``jax-random-dtype``, ``jax-random-shape``)."""
