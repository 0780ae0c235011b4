"""Arrays as NumPy users write them: a stream given to ``to_device``, item assignment, updates
thrown away, NumPy keywords, values and functions JAX rejects, floats in shapes
(``jax-to-device-stream``, ``jax-immutable-array``, ``jax-discarded-update``,
``jax-unsupported-argument``, ``jax-inplace-default``, ``jax-unsupported-function``,
``jax-float-shape``). Its own engine: which receivers are
JAX arrays (``receivers``), where an updated array goes back (``places``), JAX's in-place
functions (``inplace``)."""
