"""The plugin's own error codes.

``jax-to-device-stream`` is a sub-code of ``arg-type``: a ``# type: ignore[arg-type]`` written
against the stubs' generic error keeps silencing the targeted one, and
``disable_error_code = ["arg-type"]`` disables both.
"""

from mypy.errorcodes import ARG_TYPE, ErrorCode

JAX_TO_DEVICE_STREAM = ErrorCode(
    "jax-to-device-stream",
    "Check that jax.Array.to_device() gets no stream (JAX raises NotImplementedError)",
    "General",
    sub_code_of=ARG_TYPE,
)

JAX_STUBS_MISMATCH = ErrorCode(
    "jax-stubs-mismatch",
    "Check that the installed jax-stubs describe the installed JAX release",
    "General",
)
