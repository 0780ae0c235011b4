"""Versions that decide what the plugin reports, read without importing jax.

mypy keeps a module's cached result only while ``report_config_data`` returns the same value,
so these versions go into it: a JAX upgrade or new stubs then re-check the user's modules.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

STUB_FOLDER = "jax-stubs"
TARGET_FILE = "JAX_VERSION"
"""A file in the stub folder that names the JAX release the stubs were generated from."""


def installed_jax() -> str | None:
    """The version of the installed ``jax`` distribution, or None when it is missing."""
    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:
        return None


def stub_folder(search_path: list[str] | None = None) -> Path | None:
    """The first ``jax-stubs`` folder on ``search_path`` (default: ``sys.path``)."""
    for entry in sys.path if search_path is None else search_path:
        candidate = Path(entry or ".") / STUB_FOLDER
        if candidate.is_dir():
            return candidate
    return None


def stubs_target(folder: Path | None) -> str | None:
    """The JAX release that the stub ``folder`` describes, or None if it does not say."""
    if folder is None:
        return None
    try:
        return (folder / TARGET_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
