"""The plugin's own error codes, one per rule, in mypy's category for them.

``jax-to-device-stream`` is a sub-code of ``arg-type``: a ``# type: ignore[arg-type]`` written
against the stubs' generic error keeps silencing the targeted one, and
``disable_error_code = ["arg-type"]`` disables both.
"""

from typing import Final

from mypy.errorcodes import ARG_TYPE, ErrorCode

CATEGORY: Final = "JAX"

JAX_TO_DEVICE_STREAM: Final = ErrorCode(
    "jax-to-device-stream",
    "Check that jax.Array.to_device() gets no stream (JAX raises NotImplementedError)",
    CATEGORY,
    sub_code_of=ARG_TYPE,
)

JAX_IMMUTABLE_ARRAY: Final = ErrorCode(
    "jax-immutable-array",
    "Check that no item of a JAX array is assigned to (JAX raises TypeError; use x.at[i])",
    CATEGORY,
)

JAX_STUBS_MISMATCH: Final = ErrorCode(
    "jax-stubs-mismatch",
    "Check that the installed jax-stubs describe the installed JAX release",
    CATEGORY,
)
