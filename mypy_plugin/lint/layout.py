"""Module names as the project's imports use them, where mypy refuses the layout as configured.

Research code is often scripts beside folders without ``__init__.py`` that they import as
packages (``from utils import train_state`` beside ``utils/train_state.py``). Crawling the paths
it is given, mypy names such a file by its folder alone (``train_state``); the import names it
``utils.train_state``; and mypy stops the whole run: "Source file found twice under different
module names". mypy's own answer is ``explicit_package_bases``, with the folders the scripts run
from on ``mypy_path``: every file is then named from the nearest of those folders (or the root),
as the scripts' imports name it.

The same naming mends two more ways mypy stops on such layouts: a file of a folder without
``__init__.py`` named after a module of the standard library (``jaxrl_m/typing.py``, which
mypy names ``typing``: "shadows library module"), and a relative import in such a
folder ("No parent module -- cannot perform relative import").

Lint takes that answer where the project's configuration has not set ``explicit_package_bases``
and mypy stopped so: with the folders that hold the packages mypy found and the scripts'
folders on ``mypy_path``, then with the scripts' folders alone, then with the root alone (every
file named from the root, as scripts at the root import it: ``utils.train_state``, where a
folder also imports its neighbours by their own names). A layout it still refuses is said in
one line naming the settings to add.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from typing import Any, Final

FOUND_TWICE: Final = "Source file found twice under different module names"
MISNAMED: Final = (FOUND_TWICE, "shadows library module", "No parent module -- cannot perform relative import")
"""What mypy says where it stops on a file it named from its own folder alone."""


def refused(stopped_at: dict[str, Any] | None) -> bool:
    """Whether mypy stopped because it named a file from its own folder alone."""
    return stopped_at is not None and any(said in str(stopped_at.get("message", "")) for said in MISNAMED)


def script_folders(paths: Iterable[str]) -> list[str]:
    """The folders (relative to the root, where lint runs) whose files import a module or a
    folder beside them by its top-level name, where the root holds no such name: the folders
    those files run from, which name their imports' modules."""
    found: list[str] = []
    for path in paths:
        folder = os.path.dirname(os.path.normpath(path))
        if not folder or folder in found:
            continue
        if any(is_beside(folder, name) and not is_beside("", name) for name in imported_names(path)):
            found.append(folder)
    return sorted(found)


def candidate_roots(sources: list[Any], paths: list[str]) -> list[list[str]]:
    """The folders to try on ``mypy_path``, in turn: the folders the scripts run from with the
    folders that hold the packages mypy found (``src/`` of ``src/pkg/__init__.py``, which
    ``explicit_package_bases`` alone would make a package ``src``), then the scripts' folders
    alone (a folder of packages that the imports name from above, ``jaraco/abode``), then none:
    every file named from the root, as the scripts at the root import it (``utils.train_state``
    where ``utils/`` also imports ``wandb`` beside it, which named it ``train_state``)."""
    scripts = script_folders(paths)
    packages = sorted({os.path.relpath(source.base_dir) for source in sources if in_a_package(source)} - {"."})
    with_packages = sorted({*scripts, *packages})
    tried: list[list[str]] = []
    for roots in (with_packages, scripts, []):
        if roots not in tried:
            tried.append(roots)
    return tried


def namings(sources: list[Any], paths: list[str], configured: bool, configured_path: list[str]) -> list[list[str]]:
    """The ``mypy_path`` values to try with ``explicit_package_bases``, in turn: the
    configuration's with each of ``candidate_roots`` (unless the configuration sets
    ``explicit_package_bases`` itself), then none at all, every file named from the root
    (where the configuration's own ``mypy_path`` names a file twice)."""
    tried = [] if configured else [[*configured_path, *roots] for roots in candidate_roots(sources, paths)]
    return tried if [] in tried else [*tried, []]


def in_a_package(source: Any) -> bool:
    """Whether mypy found the source through an ``__init__.py`` (a package's module, or one)."""
    if source.path is None or not source.base_dir:
        return False
    return "." in source.module or os.path.basename(source.path).startswith("__init__.")


def imported_names(path: str) -> set[str]:
    """The top-level names of a file's absolute imports (none where it cannot be read)."""
    try:
        with open(path, encoding="utf-8") as file:
            tree = ast.parse(file.read(), path)
    except (OSError, ValueError, SyntaxError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def is_beside(folder: str, name: str) -> bool:
    """Whether ``folder`` holds the module or the folder ``name``."""
    place = os.path.join(folder, name) if folder else name
    return os.path.isfile(place + ".py") or os.path.isdir(place)


SETTINGS_HINT: Final = (
    "name each file once in the [mypy] configuration: explicit_package_bases = true, and the folders your scripts run from as mypy_path"
)
"""What to set where lint could not name every file once itself."""
