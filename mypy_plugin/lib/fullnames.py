"""Full names of the JAX objects the plugin knows about (never imported, only compared)."""

from typing import Final

ARRAY: Final = "jax._src.basearray.Array"
"""Where ``jax.Array`` (and ``jax.numpy.ndarray``) is defined in JAX's stubs."""

INDEX_UPDATE_REF: Final = "jax._src.basearray._IndexUpdateRef"
"""The class of ``x.at[i]``, whose methods (``set``, ``add``, ...) return the updated copy."""

OBJECT: Final = "builtins.object"

JAX: Final = "jax"
JAX_PACKAGE: Final = "jax."
"""Prefix of every module, function and method of JAX (``jax.numpy.zeros``, ``jax._src...``)."""

PALLAS: Final = "jax.experimental.pallas"
"""JAX's kernel language, whose kernels write to refs: ``o_ref[...] = x`` is right there."""

JAX_NUMPY: Final = "jax.numpy"
JNP: Final = JAX_NUMPY + "."
"""Prefix of ``jax.numpy``'s functions (``jax.numpy.clip``), as ``jnp.`` prefixes them in code."""
JAX_NUMPY_PREFIXES: Final = (JNP, "jax._src.numpy.")
"""Where ``jax.numpy``'s functions are defined: its stub, or for its submodules without one
(``jnp.linalg.norm``), JAX's sources."""

TREE_MAPS: Final = frozenset({"jax._src.tree_util.tree_map", "jax._src.tree.map"})
"""``jax.tree_util.tree_map`` and ``jax.tree.map``, where they are defined."""

JIT: Final = "jax._src.api.jit"
EVAL_SHAPE: Final = "jax._src.api.eval_shape"
GRADS: Final = {f"jax._src.api.{name}": f"jax.{name}" for name in ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian")}
"""JAX's differentiating transforms, each with the name messages print."""
CHECKPOINTS: Final = {"jax._src.ad_checkpoint.checkpoint": "jax.checkpoint", "jax._src.ad_checkpoint.remat": "jax.remat"}
"""``jax.checkpoint`` and its older name, each with the name messages print. Before JAX 0.8.2,
``jax/__init__.py`` imports both as ``checkpoint_wrapper``, which ``functools.wraps`` makes a
``functools._Wrapped`` object for mypy: no function hook runs there (as for ``lax.cond``)."""
PMAPS: Final = {"jax._src.api.pmap": "jax.pmap", "jax._src.pmap.pmap": "jax.pmap"}
"""``jax.pmap``: in ``jax._src.api`` up to JAX 0.7, in ``jax._src.pmap`` since."""
SHARD_MAPS: Final = {"jax._src.shard_map.shard_map": "jax.shard_map", "jax.experimental.shard_map.shard_map": "jax.shard_map"}
"""``jax.shard_map`` (from JAX 0.7.0) and the experimental one before it."""
EQUINOX_FILTER_JIT: Final = "equinox._jit.filter_jit"
EQUINOX_FILTER_VMAP: Final = "equinox._vmap_pmap.filter_vmap"
NNX_JIT: Final = "flax.nnx.transforms.compilation.jit"
"""``eqx.filter_jit``, ``eqx.filter_vmap`` (equinox 0.13) and ``nnx.jit`` (flax 0.12), where
they are defined."""
VMAP: Final = "jax._src.api.vmap"
"""Where ``jax.jit`` and ``jax.vmap`` are defined (``jax/__init__.py`` re-exports them)."""
JIT_WRAPPED: Final = "jax._src.pjit.JitWrapped"
"""The class of what ``jax.jit`` returns."""
RANDOM_MODULES: Final = ("jax._src.random.", "jax._src.random.core.")
"""Where ``jax.random``'s functions are defined: the first up to JAX 0.7.x, the second since."""
JAX_NUMPY_WHERE: Final = "jax.numpy.where"
LAX_LOOPS: Final = "jax._src.lax.control_flow.loops."
LAX_CONDITIONALS: Final = "jax._src.lax.control_flow.conditionals."
"""Where ``jax.lax``'s control flow is defined (JAX 0.4.31 to 0.12)."""
DEFAULT_DEVICE: Final = "jax._src.config.default_device"
"""``jax.default_device``, whose ``with`` block places a jitted call's uncommitted arguments on
the device it names: a copy of the argument, not the argument, is then what may be donated."""
ENSURE_COMPILE_TIME_EVAL: Final = "jax._src.core.ensure_compile_time_eval"
PARTIAL: Final = "functools.partial"
NUMPY_UFUNC: Final = "numpy.ufunc"


def called(node: object) -> str:
    """The full name ``node`` refers to, or for a call the name of its callee (``@dataclass``
    and ``@dataclass(frozen=True)`` both give ``dataclasses.dataclass``); empty for anything
    else. Reads mypy's nodes without importing them, as the rest of this module does not."""
    callee = getattr(node, "callee", None)
    if callee is not None:
        node = callee
    return getattr(node, "fullname", "") or ""
