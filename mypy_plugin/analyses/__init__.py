"""The JAX analyses the rules share: what JAX's transforms trace (``transforms``), the walk of a
traced function for Python values of tracers (``tracing``: its value model ``values``, its
reading of expressions and calls ``expressions`` and ``calls``, its tables of JAX's API
``sites``), the pytree structures code writes (``structures``), what a jitted function keeps
(``jitted``) and deletes (``donation``), where an updated array can go back (``places``), which
receivers use JAX's own ``Array`` methods (``receivers``), JAX's in-place NumPy functions
(``inplace``). They read mypy's tree and types through ``lib/``, never a rule."""
