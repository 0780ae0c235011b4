"""mypy plugin that reports calls JAX always rejects at run time, before they run.

Enable it with ``plugins = ["mypy_plugin"]`` in ``[tool.mypy]`` or ``mypy.ini``.
mypy imports this module and calls :func:`plugin`; nothing here imports jax.
"""

from __future__ import annotations

import sys

__version__ = "0.10.2.0"


def plugin(version: str) -> type:
    """mypy's entry point: the plugin class, or mypy's no-op base class on a too-old mypy.

    The version is checked before anything else of the plugin imports mypy's internals.
    """
    from mypy_plugin import compat, messages

    if not compat.is_supported(version):
        from importlib.util import find_spec

        from mypy.plugin import Plugin

        from mypy_plugin.versions import Installer

        upgrade = Installer(sys.executable, find_spec("pip") is not None).install(compat.COMPATIBLE_MYPY)
        print(messages.PREFIX + messages.unsupported_mypy(version, compat.minimum(), upgrade), file=sys.stderr)
        return Plugin
    from mypy_plugin.main import JaxStubsPlugin

    return JaxStubsPlugin
