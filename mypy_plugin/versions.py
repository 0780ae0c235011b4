"""Which JAX is installed and which JAX the installed stubs describe, read without importing jax.

mypy keeps a module's cached result only while ``report_config_data`` returns the same value,
so these versions go into it: a JAX upgrade or new stubs re-check the user's modules. The same
facts decide whether the stubs fit (``Diagnosis``), for the plugin and for
``python -m mypy_plugin check``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from mypy_plugin import messages

DISTRIBUTION = "jax-stubs"
STUB_FOLDER = "jax-stubs"
TARGET_FILE = "JAX_VERSION"
"""A file in the stub folder that names the JAX release the stubs were generated from."""


def installed_jax() -> str | None:
    """The version of the installed ``jax`` distribution, or None when it is missing."""
    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:
        return None


def installed_stub_files() -> list[Path]:
    """Every file of the stub folder that the installed distribution's RECORD lists."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return []
    return [
        Path(str(dist.locate_file(file)))
        for file in dist.files or []
        if file.parts and file.parts[0] == STUB_FOLDER
    ]


@dataclass(frozen=True)
class Diagnosis:
    """What the plugin knows about the environment, and what is wrong with it."""

    jax: str | None
    stubs: str | None
    folder: Path | None
    missing: tuple[Path, ...]

    @classmethod
    def of_this_environment(cls) -> Diagnosis:
        files = installed_stub_files()
        target = next((f for f in files if f.name == TARGET_FILE and f.parent.name == STUB_FOLDER), None)
        stubs = None
        if target is not None and target.is_file():
            stubs = target.read_text(encoding="utf-8").strip() or None
        return cls(
            jax=installed_jax(),
            stubs=stubs,
            folder=target.parent if target is not None else None,
            missing=tuple(f for f in files if not f.is_file()),
        )

    def environment_problems(self) -> list[str]:
        """Broken installs: the plugin says so once and leaves mypy's result alone."""
        if self.folder is None:
            return [messages.stubs_not_installed()]
        if self.missing:
            return [messages.stub_files_missing(self.folder, [str(m.relative_to(self.folder)) for m in self.missing])]
        if self.jax is None and self.stubs is not None:
            return [messages.jax_not_installed(self.stubs)]
        return []

    @property
    def mismatch(self) -> str | None:
        """The mismatch message when JAX and the stubs are different releases, else None."""
        if self.jax is None or self.stubs is None or self.jax == self.stubs:
            return None
        return messages.stubs_mismatch(self.jax, self.stubs)

    def config_data(self) -> dict[str, str | None]:
        return {"jax": self.jax, "stubs": self.stubs}
