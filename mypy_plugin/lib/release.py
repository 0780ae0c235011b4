"""The JAX release the plugin was built for, which is the release its stubs describe.

A check whose call raises only on some JAX releases applies from the first release that rejects
it (read from JAX's CHANGELOG and checked against the wheels). Each package version is made for
one JAX release (``<jax>.<revision>``, ``scripts/generate_stubs.py`` rewrites it), so the release
is known without reading a file; an installed JAX of another release is reported by the
mismatch check (``install/mismatch.py``). The version is part of ``report_config_data``: a new
package re-checks cached modules.
"""

from __future__ import annotations

from typing import Final

from mypy_plugin import __version__

Release = tuple[int, int, int]


def parse_version(version: str) -> tuple[int, ...]:
    """``1.19.0+dev.abc`` -> ``(1, 19, 0)``; a pre-release counts as its release (``0.10.2rc1`` ->
    ``(0, 10, 2)``); a part that starts with no number ends the tuple (empty for ``dev``). The
    one reading of a version in the package: JAX's, mypy's, Flax's, a table's."""
    parts: list[int] = []
    for part in version.split("+")[0].split("."):
        digits = len(part) - len(part.lstrip("0123456789"))
        if digits == 0:
            break
        parts.append(int(part[:digits]))
        if digits < len(part):
            break
    return tuple(parts)


OLDEST: Final[Release] = (0, 4, 31)
"""The oldest JAX release the package is made for: a check that applies from it applies always."""
STUBS: Final = parse_version(__version__)[:3]
"""The JAX release of this package (``0.10.2.0`` -> ``(0, 10, 2)``)."""


NEGATIVE_ARGNUMS_BY_SIGNATURE: Final[Release] = (0, 12, 0)
"""From this release, ``jax.jit`` resolves a negative ``static_argnums`` or ``donate_argnums``
against the function's positional parameters (when it takes no ``*args``); before, against each
call's positional arguments (``jax/_src/api_util.py``, ``infer_argnums_and_argnames``)."""


TRACERS_UNHASHABLE: Final[Release] = (0, 4, 36)
"""From this release, hashing a tracer (a dict looked up with it) raises ``TypeError``; before, it
hashed by identity with a ``DeprecationWarning``, so the lookup raised ``KeyError`` (JAX's
CHANGELOG for 0.4.36; measured on 0.4.31 and 0.7.2)."""

LEAKED_EAGER_TRACERS_RAISE: Final[Release] = (0, 4, 36)
"""From this release, a tracer of ``jax.vmap`` or ``jax.grad`` (which run without staging) kept
past the call raises ``UnexpectedTracerError`` when computed with; before, it computed (measured
on 0.4.31, 0.4.35, 0.4.36, 0.7.2 and 0.12.0.1; a ``jax.jit`` tracer raised on all of them)."""

CHECKPOINT_TRACES_LIKE_JIT: Final[Release] = (0, 4, 36)
"""From this release, ``jax.checkpoint`` (``jax.remat``) traces its function as ``jax.jit`` does,
and a Python value of a tracer there raises what it raises under ``jax.jit``
(``TracerBoolConversionError`` for a truth test); before, ``ConcretizationTypeError`` for every
kind, and the walk stays out."""


def at_least(first: Release) -> bool:
    """Whether the stubs' release is ``first`` or later."""
    return STUBS >= first


def spelled(release: Release) -> str:
    return ".".join(map(str, release))
