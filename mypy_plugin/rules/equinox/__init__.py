"""Equinox's contracts: a module holding a function or a string given to JAX's own transforms
(``jax-equinox-module``)."""
