"""Full names of the JAX objects the plugin knows about (never imported, only compared)."""

ARRAY = "jax._src.basearray.Array"
"""Where ``jax.Array`` (and ``jax.numpy.ndarray``) is defined in JAX's stubs."""

TO_DEVICE = "to_device"
"""The method whose ``stream`` argument JAX rejects at run time."""

STREAM = "stream"
"""The keyword-only parameter of ``to_device`` that must stay ``None``."""

OBJECT = "builtins.object"

JAX_PACKAGE = "jax."
"""Prefix of every function and method JAX defines (``jax.numpy.zeros``, ``jax._src...``)."""
