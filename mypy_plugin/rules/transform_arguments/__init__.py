"""What JAX's transforms are given: ``jax.grad`` of what it cannot differentiate, ``vmap`` axes,
``jax.lax`` loops and branches returning another structure (``jax-grad-output``,
``jax-grad-argument``, ``jax-vmap-axes``, ``jax-lax-structure``)."""
