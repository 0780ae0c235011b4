"""Listed among mypy's plugins by ``jax-stubs lint`` and the language server, this module makes
every report of the plugin carry its fix as its last note (``lib/fixes.py``, ``OFFERING_ENTRY``):
lint reads the fixes from mypy's output, fresh or from its cache alike. The plugin class it
gives mypy does nothing; the plugin itself is the one lint passes to the build."""

from __future__ import annotations


def plugin(version: str) -> type:
    from mypy.plugin import Plugin

    return Plugin
