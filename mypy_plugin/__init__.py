"""mypy plugin that reports ``jax.Array.to_device(..., stream=...)`` before it raises at run time.

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
        from mypy.plugin import Plugin

        print(messages.PREFIX + messages.unsupported_mypy(version, compat.minimum()), file=sys.stderr)
        return Plugin
    from mypy_plugin.main import JaxToDevicePlugin

    return JaxToDevicePlugin
