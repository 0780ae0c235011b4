"""The project's ``[tool.jax-stubs.lint]`` section of ``pyproject.toml``.

Read from the nearest ``pyproject.toml`` at or above the current folder (the project's root;
without one, the current folder is the root)::

    [tool.jax-stubs.lint]
    paths = ["src", "scripts"]          # what to check when no path is given
    exclude = ["^src/legacy/"]          # regular expressions, as mypy's exclude
    disable = ["jax-traced-shape"]      # codes not to report
    shared-cache = "~/.cache/jax-stubs" # mypy's analysis of JAX shared by projects; "" turns it off

Every key is optional. A section that says something else is a usage error, said in one line.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, Final

PYPROJECT: Final = "pyproject.toml"
SECTION: Final = "[tool.jax-stubs.lint]"
KEYS: Final = ("paths", "exclude", "disable", "shared-cache")


class SettingsError(Exception):
    """A section that cannot be used, said in one line."""


class Settings:
    """What the section says; paths are relative to ``root``."""

    __slots__ = ("root", "paths", "exclude", "disable", "shared_cache")

    def __init__(
        self,
        root: Path,
        paths: tuple[str, ...] = (),
        exclude: tuple[str, ...] = (),
        disable: frozenset[str] = frozenset(),
        shared_cache: str | None = None,
    ) -> None:
        self.root = root
        self.paths = paths
        self.exclude = exclude
        self.disable = disable
        self.shared_cache = shared_cache
        """The shared cache's folder as written (``lint/shared_cache.py``); None: the default."""


def project_file(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start``."""
    for folder in (start, *start.parents):
        if (folder / PYPROJECT).is_file():
            return folder / PYPROJECT
    return None


def load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # mypy, which linting needs, depends on tomli before Python 3.11
        import tomli as tomllib
    with path.open("rb") as file:
        return tomllib.load(file)


def read(start: Path, codes: frozenset[str] | None) -> Settings:
    """The settings of the project around ``start``; ``codes`` are the codes ``disable`` may
    name (None: not checked, for the check command, which needs no mypy). Raises
    ``SettingsError``."""
    path = project_file(start)
    if path is None:
        return Settings(start)
    try:
        document = load_toml(path)
    except (OSError, ValueError) as error:
        raise SettingsError(f"cannot read {path}: {error}") from None
    where = f"{SECTION} of {path}"
    section: object = document
    for key in ("tool", "jax-stubs", "lint"):
        section = section.get(key, {}) if isinstance(section, dict) else None
    if not isinstance(section, dict):
        raise SettingsError(f"{where} must be a table")
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        raise SettingsError(f'{where} has no key "{unknown[0]}"; its keys are {", ".join(KEYS)}')
    paths, exclude, disable = (strings(section.get(key, []), f"{key} in {where}") for key in KEYS[:3])
    shared_cache = section.get("shared-cache")
    if shared_cache is not None and not isinstance(shared_cache, str):
        raise SettingsError(f"shared-cache in {where} must be a string (a folder; empty turns it off)")
    for pattern in exclude:
        try:
            re.compile(pattern)
        except re.error as error:
            raise SettingsError(f'exclude in {where}: "{pattern}" is not a regular expression ({error})') from None
    unknown_codes = [code for code in disable if codes is not None and code not in codes]
    if unknown_codes and codes is not None:
        raise SettingsError(f'disable in {where}: "{unknown_codes[0]}" is not a code of jax-stubs; they are {", ".join(sorted(codes))}')
    if shared_cache and not os.path.isabs(os.path.expanduser(shared_cache)):
        shared_cache = str(path.parent / shared_cache)
    return Settings(path.parent, paths, exclude, frozenset(disable), shared_cache)


def strings(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SettingsError(f"{what} must be a list of strings")
    return tuple(value)
