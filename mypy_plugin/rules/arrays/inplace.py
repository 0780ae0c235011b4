"""JAX's versions of the NumPy functions that update their array in place.

NumPy's ``np.put``, ``place``, ``put_along_axis``, ``fill_diagonal`` and ``ufunc.at`` change
the array they are given. JAX arrays are immutable: JAX's functions of those names take
``inplace``, raise unless it is False, and then return the updated copy. Two rules meet them:
``jax-inplace-default`` (``inplace`` not False: JAX raises) and ``jax-discarded-update``
(``inplace=False`` in a statement that throws the copy away).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import ARG_POS, CallExpr, Expression, MemberExpr, RefExpr

from mypy_plugin.lib import fullnames, release
from mypy_plugin.lib.arguments import HookContext
from mypy_plugin.lib.release import Release

PARAMETER: Final = "inplace"
FUNCTIONS: Final = tuple(fullnames.JNP + name for name in ("put", "place", "put_along_axis", "fill_diagonal"))
UFUNC_AT: Final = (fullnames.JNP + "ufunc.at", fullnames.JNP + "BinaryUfunc.at")
"""``jnp.add.at(...)``: ``add`` is a ``ufunc`` (a ``BinaryUfunc`` in the stubs from 0.7)."""

EVERY_UFUNC_AT: Final = (0, 6, 2)
UFUNC_AT_SINCE: Final = {
    **dict.fromkeys(
        ("add", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor"), (0, 4, 32)
    ),
    "subtract": (0, 4, 35),
    "logaddexp": (0, 4, 36),
    "logaddexp2": (0, 4, 36),
    "maximum": (0, 6, 2),
    "minimum": (0, 6, 2),
}
"""The first release whose ``jnp.<name>`` has ``at`` (read from the source of each release);
from 0.6.2 every ufunc the stubs declare has it."""


def updated_array(ctx: HookContext) -> Expression | None:
    """The array the call means to update: what it passes, by position, for the function's
    first parameter (``x`` of ``jnp.put(x, ...)`` and ``jnp.add.at(x, ...)``); None otherwise."""
    first_is_array = ctx.args and ctx.callee_arg_names[0] != "self" and len(ctx.args[0]) == 1 and ctx.arg_kinds[0][0] == ARG_POS
    return ctx.args[0][0] if first_is_array else None


def ufunc_name(call: CallExpr) -> str | None:
    """``add`` for ``jnp.add.at(...)``, ``add.at(...)`` of ``from jax.numpy import add``: the
    ufunc's own name, read from what the name refers to (not ``op`` of ``op = jnp.add``)."""
    ufunc = call.callee.expr if isinstance(call.callee, MemberExpr) else None
    if isinstance(ufunc, RefExpr) and ufunc.fullname and ufunc.fullname.startswith(fullnames.JNP):
        return ufunc.fullname[len(fullnames.JNP) :]
    return None


def ufunc_has_at(call: CallExpr) -> bool:
    """Whether the ufunc of ``jnp.<name>.at(...)`` has ``at`` in the stubs' release: before
    0.6.2 some do not (the call raises AttributeError instead), so a ufunc not named is
    undecided there."""
    since: Release = UFUNC_AT_SINCE.get(ufunc_name(call) or "", EVERY_UFUNC_AT)
    return release.at_least(since)
