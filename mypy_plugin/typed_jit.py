"""The plugin with calls of jitted functions typed: ``plugins = ["mypy_plugin.typed_jit"]``,
instead of ``["mypy_plugin"]``.

A call of ``jax.jit(f)`` is then checked against ``f``'s own signature and typed with its result
(``rules/jit/jit_boundary.py``, ``TYPED_CALLS``). Off by default: on real code it surfaces mypy's own
errors wherever an argument does not match ``f``'s annotations or a result is used against its
type, and on the sweep's libraries all of those were correct code (``benchmarks/README.md``).
"""

from __future__ import annotations

from mypy_plugin import __version__ as __version__


def plugin(version: str) -> type:
    """mypy's entry point, as ``mypy_plugin.plugin``, with typed calls added; the version is
    checked first, before anything imports mypy's internals."""
    from mypy_plugin.install import compat

    if not compat.is_supported(version):
        return compat.unsupported(version)
    from mypy_plugin.main import JaxStubsPlugin
    from mypy_plugin.rules.hooked import EXTRA, HOOKED

    class TypedJitPlugin(JaxStubsPlugin):
        rules = (*HOOKED, *EXTRA)

    return TypedJitPlugin
