"""mypy plugin that reports ``jax.Array.to_device(..., stream=...)`` before it raises at run time.

Enable it with ``plugins = ["mypy_plugin"]`` in ``[tool.mypy]`` or ``mypy.ini``.
mypy imports this module and calls :func:`plugin`; nothing here imports jax.
"""

from __future__ import annotations

__version__ = "0.10.2.0"


def plugin(version: str) -> type:
    """mypy's entry point: return the plugin class for this mypy ``version``."""
    from mypy_plugin.main import plugin_for_mypy

    return plugin_for_mypy(version)
