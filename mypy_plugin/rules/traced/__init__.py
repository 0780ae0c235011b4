"""Values traced by ``jax.jit`` and ``jax.vmap`` where Python needs them (``jax-traced-value``,
``jax-traced-shape``) or where they outlive the trace (``jax-leaked-tracer``). Its engine: the walk
of a transformed function's statements (``tracing``), handed to the readers of its expressions
(``expressions``) and calls (``calls``); the texts and message building in ``traced_values``."""
