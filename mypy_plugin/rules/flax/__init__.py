"""Flax's contracts: Linen's lifecycle (``jax-linen-frozen``, ``jax-linen-unbound``,
``jax-linen-mutable``) and NNX state across transforms (``jax-nnx-trace-level``)."""
