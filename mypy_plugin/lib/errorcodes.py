"""Every error code the plugin reports under, in one place that loading the plugin imports.

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
    "Check that jax.Array.to_device() gets no stream (JAX raises NotImplementedError)",
    CATEGORY,
    sub_code_of=ARG_TYPE,
)

IMMUTABLE_ARRAY: Final = ErrorCode(
    "jax-immutable-array",
    "Check that no item of a JAX array is assigned to (JAX raises TypeError; use x.at[i])",
    CATEGORY,
)

TRACED_VALUE: Final = ErrorCode(
    "jax-traced-value",
    "Check that code under jax.jit/jax.vmap needs no Python value of a traced array",
    CATEGORY,
)

TRACED_SHAPE: Final = ErrorCode(
    "jax-traced-shape",
    "Check that code under jax.jit/jax.vmap makes no shape from traced values",
    CATEGORY,
)

JIT_DECLARATION: Final = ErrorCode(
    "jax-jit-declaration",
    "Check that the options of jax.jit name parameters of the function, and static ones can be hashed",
    CATEGORY,
)

JIT_CALL: Final = ErrorCode(
    "jax-jit-call",
    "Check that a jitted function is given arrays to trace and hashable static arguments",
    CATEGORY,
)

DONATED_BUFFER: Final = ErrorCode(
    "jax-donated-buffer",
    "Check that an array donated to a jitted function is not read afterwards (JAX raises RuntimeError)",
    CATEGORY,
)

GRAD_OUTPUT: Final = ErrorCode(
    "jax-grad-output",
    "Check that jax.grad is given a function returning a scalar, or (loss, aux) with has_aux (JAX raises TypeError)",
    CATEGORY,
)

VMAP_AXES: Final = ErrorCode(
    "jax-vmap-axes",
    "Check that jax.vmap's in_axes maps an argument and has no more entries than parameters (JAX raises ValueError)",
    CATEGORY,
)

LAX_STRUCTURE: Final = ErrorCode(
    "jax-lax-structure",
    "Check that jax.lax loop bodies keep the carry's structure and branches return one structure (JAX raises TypeError)",
    CATEGORY,
)

UNSUPPORTED_ARGUMENT: Final = ErrorCode(
    "jax-unsupported-argument",
    "Check for keywords and values that JAX's functions reject although its stubs accept them",
    CATEGORY,
)

INPLACE_DEFAULT: Final = ErrorCode(
    "jax-inplace-default",
    "Check that JAX's in-place NumPy functions are called with inplace=False",
    CATEGORY,
)

UNSUPPORTED_FUNCTION: Final = ErrorCode(
    "jax-unsupported-function",
    "Check for NumPy functions that JAX declares but always rejects",
    CATEGORY,
)

PRNG_KEY: Final = ErrorCode(
    "jax-prng-key",
    "Check that jax.random gets PRNG keys where keys go, and integer seeds",
    CATEGORY,
)

RANDOM_DTYPE: Final = ErrorCode(
    "jax-random-dtype",
    "Check that a jax.random sampler is asked for a dtype of the kind it makes",
    CATEGORY,
)

DISCARDED_UPDATE: Final = ErrorCode(
    "jax-discarded-update",
    "Check that the updated copy of a JAX array is not thrown away (JAX leaves the array unchanged)",
    CATEGORY,
)

STUBS_MISMATCH: Final = ErrorCode(
    "jax-stubs-mismatch",
    "Check that the installed jax-stubs describe the installed JAX release",
    CATEGORY,
)
