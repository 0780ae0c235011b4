"""The releases of optional libraries installed where mypy reads packages, for the rules whose
reports move between those releases (``jax-nnx-trace-level``: Flax; ``jax-equinox-frozen``:
Equinox).

Read once when the plugin starts, from ``.dist-info`` folder names without importing the library
(``install/installed.py``), and part of ``report_config_data``, so an upgrade re-checks the
user's modules. Unknown (not installed, or a run that reads no installed package), a rule that
depends on it stays silent.
"""

from __future__ import annotations

from mypy_plugin.lib.release import parse_version


class LibraryReleases:
    """The installed releases this run reads; one instance, ``INSTALLED``."""

    __slots__ = ("equinox", "flax")

    def __init__(self) -> None:
        self.flax: tuple[int, ...] | None = None
        """Flax's release (``0.12.8`` -> ``(0, 12, 8)``), None where unknown."""
        self.equinox: tuple[int, ...] | None = None
        """Equinox's release, None where unknown."""

    def remember(self, versions: dict[str, str | None]) -> None:
        """Keep the releases of a start-up's versions (``installed.Installed.config_data``)."""
        self.flax = known_release(versions.get("flax"))
        self.equinox = known_release(versions.get("equinox"))


def known_release(version: str | None) -> tuple[int, ...] | None:
    """A version's release (``0.12.8`` -> ``(0, 12, 8)``); None where the library is not
    installed or the version reads as no release."""
    return parse_version(version)[:3] or None if version else None


INSTALLED = LibraryReleases()
