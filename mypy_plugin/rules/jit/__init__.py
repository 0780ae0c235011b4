"""The jit boundary: options of ``jax.jit`` no call satisfies, arguments it cannot trace or hash
(``jax-jit-declaration``, ``jax-jit-call``), and buffers read after donation
(``jax-donated-buffer``). Its engine: what a jitted function keeps of what it wraps
(``jitted``), which donated parameters lose their buffer (``donation``)."""
