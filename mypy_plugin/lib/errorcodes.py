"""Every error code the plugin reports under, each with its one description, in one place that
loading the plugin imports.

The description says what the code reports in one line: it is the title of the code's page
(``docs/rules/<code>.md``), which ``jax-stubs rule`` lists, and the README's table (both held to
it by ``tests/test_docs.py``). What JAX raises, what is reported and left alone, and the fix are
on the page; how a rule finds it, in its module.

mypy checks the codes a configuration names (``disable_error_code``, ``enable_error_code``)
right after it loads the plugins, against the codes created so far: a code made in a rule's
module, which is imported only when mypy first asks for a name it hooks (``main.py``), would be
"invalid" there. Each rule module takes its codes from here.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ARG_TYPE, ErrorCode

from mypy_plugin.lib.reporting import CATEGORY

TO_DEVICE_STREAM: Final = ErrorCode(
    "jax-to-device-stream",
    "a stream passed to `Array.to_device`",
    CATEGORY,
    sub_code_of=ARG_TYPE,
)

IMMUTABLE_ARRAY: Final = ErrorCode(
    "jax-immutable-array",
    "item assignment on a JAX array: `x[i] = v`, `x[i] += v`",
    CATEGORY,
)

TRACED_VALUE: Final = ErrorCode(
    "jax-traced-value",
    "the Python value of a traced array under `jax.jit` or `jax.vmap`: `if`, `int()`, `.item()`, NumPy",
    CATEGORY,
)

TRACED_SHAPE: Final = ErrorCode(
    "jax-traced-shape",
    "a shape, size or slice made from traced values under `jax.jit` or `jax.vmap`",
    CATEGORY,
)

JIT_DECLARATION: Final = ErrorCode(
    "jax-jit-declaration",
    "options of `jax.jit` that no call can satisfy",
    CATEGORY,
)

JIT_CALL: Final = ErrorCode(
    "jax-jit-call",
    "a jitted function given what JAX cannot trace or hash",
    CATEGORY,
)

DONATED_BUFFER: Final = ErrorCode(
    "jax-donated-buffer",
    "an array read after a jitted function took its buffer",
    CATEGORY,
)

GRAD_OUTPUT: Final = ErrorCode(
    "jax-grad-output",
    "`jax.grad` of a function that does not return a scalar loss",
    CATEGORY,
)

LEAKED_TRACER: Final = ErrorCode(
    "jax-leaked-tracer",
    "a traced value kept where it outlives the trace, then computed with",
    CATEGORY,
)
LINEN_FROZEN: Final = ErrorCode(
    "jax-linen-frozen",
    "an attribute of a Flax Linen module set where the module is frozen",
    CATEGORY,
)
LINEN_UNBOUND: Final = ErrorCode(
    "jax-linen-unbound",
    "a compact method or `setup` of a Flax Linen module called on an instance no `init` or `apply` binds",
    CATEGORY,
)
EQUINOX_MODULE: Final = ErrorCode(
    "jax-equinox-module",
    "an Equinox module that holds a function or a string, given to `jax.jit` or `jax.grad`",
    CATEGORY,
)
LINEN_SUBMODULE: Final = ErrorCode(
    "jax-linen-submodule",
    "a Flax Linen submodule made in a method that is neither `setup` nor compact",
    CATEGORY,
)
EQUINOX_FROZEN: Final = ErrorCode(
    "jax-equinox-frozen",
    "an attribute of an Equinox module set after the module is made, or not declared as a field",
    CATEGORY,
)
LINEN_MUTABLE: Final = ErrorCode(
    "jax-linen-mutable",
    "a Flax Linen module applied with `batch_stats` immutable where its own code updates them",
    CATEGORY,
)
NNX_TRACE_LEVEL: Final = ErrorCode(
    "jax-nnx-trace-level",
    "Flax NNX state made outside a transform and changed inside it",
    CATEGORY,
)
GRAD_ARGUMENT: Final = ErrorCode(
    "jax-grad-argument",
    "`jax.grad` and its kin called with what they cannot differentiate: an int, too few arguments",
    CATEGORY,
)

VMAP_AXES: Final = ErrorCode(
    "jax-vmap-axes",
    "`in_axes` or `out_axes` of `jax.vmap` or `jax.pmap` that no call satisfies, or that a call does not",
    CATEGORY,
)

LAX_STRUCTURE: Final = ErrorCode(
    "jax-lax-structure",
    "loop bodies and branches of `jax.lax` that return another structure",
    CATEGORY,
)

UNSUPPORTED_ARGUMENT: Final = ErrorCode(
    "jax-unsupported-argument",
    "NumPy's keywords and values that JAX's functions reject",
    CATEGORY,
)

INPLACE_DEFAULT: Final = ErrorCode(
    "jax-inplace-default",
    "JAX's versions of NumPy's in-place functions, called in place",
    CATEGORY,
)

UNSUPPORTED_FUNCTION: Final = ErrorCode(
    "jax-unsupported-function",
    "NumPy functions that JAX declares but always rejects",
    CATEGORY,
)

FLOAT_SHAPE: Final = ErrorCode(
    "jax-float-shape",
    "a float where JAX takes a shape or a size: `jnp.zeros((n / 2, d))`",
    CATEGORY,
)

DTYPE_ARGUMENT: Final = ErrorCode(
    "jax-dtype-argument",
    "a number where JAX reads a dtype: `jnp.zeros(3, 4)`, `x.view(-1)`",
    CATEGORY,
)

PRNG_KEY: Final = ErrorCode(
    "jax-prng-key",
    "a seed where a PRNG key goes, a float seed, or the keys of `split` where one key goes",
    CATEGORY,
)

RANDOM_DTYPE: Final = ErrorCode(
    "jax-random-dtype",
    "a `jax.random` sampler asked for a dtype of another kind",
    CATEGORY,
)

RANDOM_SHAPE: Final = ErrorCode(
    "jax-random-shape",
    "a number where `jax.random.choice` takes a shape: `choice(key, a, 3)`",
    CATEGORY,
)

DISCARDED_UPDATE: Final = ErrorCode(
    "jax-discarded-update",
    "an updated copy of a JAX array thrown away: `x.at[i].set(v)`, `x.sort()` as a statement",
    CATEGORY,
)

REMOVED_NAME: Final = ErrorCode(
    "jax-removed-name",
    "a name JAX removed (`jax.tree_map`, `jnp.DeviceArray`), with what replaced it; shown by `jax-stubs lint`",
    CATEGORY,
)

CALL_SIGNATURE: Final = ErrorCode(
    "jax-call-signature",
    "a keyword JAX's function does not take, or NumPy's `out=`; shown by `jax-stubs lint`",
    CATEGORY,
)

STUBS_MISMATCH: Final = ErrorCode(
    "jax-stubs-mismatch",
    "the installed stubs describe another JAX release than the one installed, or are not this package's alone",
    CATEGORY,
)
