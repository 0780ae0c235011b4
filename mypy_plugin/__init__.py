"""mypy plugin that reports calls JAX always rejects at run time, before they run.

Enable it with ``plugins = ["mypy_plugin"]`` in ``[tool.mypy]`` or ``mypy.ini``.
mypy imports this module and calls :func:`plugin`; nothing here imports jax.

The rules live in ``rules/`` (one module each), what they share in ``lib/``, the installation
side (versions, the mismatch report, the check command's texts) in ``install/``.
"""

from __future__ import annotations

__version__ = "0.10.2.0"
DISTRIBUTION = "jax-stubs"
"""The package's name, as pip installs it and as the plugin signs what it prints."""


def plugin(version: str) -> type:
    """mypy's entry point: the plugin class, or mypy's no-op base class on a too-old mypy.

    The version is checked before anything else of the plugin imports mypy's internals.
    """
    from mypy_plugin.install import compat

    if not compat.is_supported(version):
        return compat.unsupported(version)
    from mypy_plugin.main import JaxStubsPlugin

    return JaxStubsPlugin
