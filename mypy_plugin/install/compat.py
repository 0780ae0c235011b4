"""Which mypy releases the plugin runs on; checked before any mypy internals are imported."""

from __future__ import annotations

from mypy_plugin.lib.release import parse_version

MINIMUM_MYPY = (1, 19)
"""The oldest mypy release the plugin is tested with (scripts/matrix.py runs it in CI).

1.19 is the first release that lets a plugin's own error code be disabled from the config.
"""
COMPATIBLE_MYPY = "mypy>=1.19,<2.5"
"""The mypy releases the plugin is tested with: the ``compatible-mypy`` extra of the package."""


def is_supported(version: str) -> bool:
    return parse_version(version) >= MINIMUM_MYPY


def minimum() -> str:
    return ".".join(map(str, MINIMUM_MYPY))


def unsupported(version: str) -> type:
    """On a mypy older than the minimum: one line on stderr with the command that upgrades
    mypy, and mypy's own no-op plugin class, so the run goes on with the stubs alone."""
    from mypy.plugin import Plugin

    from mypy_plugin.install import messages
    from mypy_plugin.install.diagnosis import Installer
    from mypy_plugin.lib import stderr

    upgrade = Installer.of_this_python().install(COMPATIBLE_MYPY)
    stderr.say(messages.unsupported_mypy(version, minimum(), upgrade))
    return Plugin
