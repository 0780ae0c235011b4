"""mypy's analysis of JAX and NumPy, made once per environment (a Python and what is installed
there) and copied into each project's first check: almost all of a first ``jax-stubs lint`` is mypy analysing JAX itself, the same for every
project that uses the same mypy, Python, installed packages, stubs release and options.

What mypy's cache allows, and what is done here:

- **A project's cache holds each module's analysis by module name**, and mypy takes an entry
  only after checking it against the module's file (path, size, time, then hash) and against
  the options and plugins of the run (``select_options_affecting_cache``, the plugins' snapshot
  and ``report_config_data``). An entry of an installed package is therefore good in any project
  that reads the same file with the same options and plugins; an entry of a project's own module
  is not: a file of the same relative path, size and time in another project would pass for it.
- **So the shared entry holds installed packages only.** It is built from a module of its own
  (``SEED_MODULE``, named after the key, imported by no project) that imports JAX and NumPy,
  checked with the project's own options into a fresh cache. A project whose cache has nothing
  yet for its Python version gets a copy of it; mypy then checks the entries as ever, re-analyses
  whatever changed, and writes the project's own modules into the project's cache only.
- **One entry per key** (``entry_key``): mypy's and Python's versions, the Python that reads
  packages and every installed distribution's name and version, this package's version and its
  plugin's config data, and the options that change the analysis (per module too). Any change
  makes another entry; none is ever rewritten.
- **Concurrent runs**: an entry is built in a folder of its own and published by renaming it
  into place, which one run wins; a project's cache is filled the same way. A run that finds
  nothing to copy checks as before.
- **Sharing one cache folder between projects** (mypy's ``cache_dir``) is what this avoids: it
  makes a project's module pass for another's of the same path, size and time, and two runs
  writing one SQLite cache wait for each other's lock and drop writes.

Where: ``JAX_STUBS_CACHE_DIR``, else ``shared-cache`` in ``[tool.jax-stubs.lint]``, else the
user's cache folder (``$XDG_CACHE_HOME/jax-stubs``, ``~/Library/Caches/jax-stubs``,
``%LOCALAPPDATA%\\jax-stubs\\Cache``). An empty value turns it off. Never breaks a check: where it
cannot be read or written, the check runs without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from mypy_plugin import __version__

ENVIRONMENT: Final = "JAX_STUBS_CACHE_DIR"
SEED_MODULE: Final = "_jax_stubs_shared_analysis_{key}"
SEED_IMPORTS: Final = """\
import jax
import jax.lax
import jax.nn
import jax.numpy
import jax.random
import jax.scipy
import jax.tree_util
import numpy
"""
"""What every JAX project reads: JAX's public modules and NumPy (their imports follow)."""
ENTRY_CACHE: Final = "cache"
"""The folder of an entry holding mypy's cache, as a project's cache folder holds it."""
MODULE_SUFFIXES: Final = (".py", ".pyi")
KEPT: Final = 8
"""How many entries the shared folder keeps (each some 33 MB): an upgrade of JAX, mypy or this
package makes a new one, and the entries used longest ago go first."""
MARKERS: Final = {
    ".gitignore": "# made by jax-stubs lint\n*\n",
    "CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n# jax-stubs lint's shared analysis of JAX\n",
}
"""What keeps the shared folder out of version control and backups, wherever it is."""


def folder(configured: str | None) -> Path | None:
    """The shared cache's folder (``configured``: ``shared-cache`` of the settings), or None
    where it is turned off."""
    chosen = os.environ.get(ENVIRONMENT, configured)
    if chosen is not None:
        return Path(chosen).expanduser() if chosen.strip() else None
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        return Path(base) / "jax-stubs" / "Cache" if base else None
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "jax-stubs"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jax-stubs"


def version_folder(options: Any) -> str:
    """The folder of mypy's cache that one Python version's entries live in (``3.11``)."""
    major, minor = options.python_version[:2]
    return f"{major}.{minor}"


def entry_key(options: Any, plugin: Any, site_packages: list[str]) -> str:
    """What the analysis of installed packages depends on, hashed (see the module's docstring)."""
    from mypy.plugin import ReportConfigContext
    from mypy.version import __version__ as mypy_version

    installed = sorted(name for place in site_packages if os.path.isdir(place) for name in os.listdir(place) if name.endswith(".dist-info"))
    described = {
        "mypy": mypy_version,
        "python": [sys.version, sys.platform, options.python_executable, version_folder(options)],
        "installed": installed,
        "package": __version__,
        "plugin": plugin.report_config_data(ReportConfigContext("jax", "", False)),
        "options": options.select_options_affecting_cache(),
        "cache_format": [getattr(options, name, None) for name in ("sqlite_cache", "sqlite_num_shards", "fixed_format_cache")],
        "per_module": options.per_module_options,
        "plugins": list(options.plugins),
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:32]


def shadowed_here(site_packages: list[str]) -> bool:
    """Whether the current folder (the project's root, which mypy searches first) holds a module,
    or a folder of modules, named as an installed or a standard module: the seed's imports could
    then reach the project's file, which the entry must never hold."""
    try:
        names = os.listdir(".")
        here = {name[: -len(".py")] for name in names if name.endswith(".py")}
        here |= {name for name in names if os.path.isdir(name) and any(inner.endswith(MODULE_SUFFIXES) for inner in os.listdir(name))}
        installed = {name.partition(".")[0] for place in site_packages if os.path.isdir(place) for name in os.listdir(place)}
    except OSError:
        return True
    return bool(here & (installed | set(sys.stdlib_module_names)))


def fill(project_cache: Path, version: str, shared: Path, key: str, build_entry: Callable[[Path, Path], bool]) -> bool:
    """Copy the shared entry of ``key`` into ``project_cache`` where it has nothing yet for this
    Python ``version``, building the entry first where there is none (``build_entry(source_folder,
    cache_folder)`` checks the seed module there). Whether the project's cache was filled."""
    target = project_cache / version
    if target.exists():
        return False
    entry = shared / key
    if not (entry / ENTRY_CACHE / version).is_dir():
        publish(entry, build_entry, key)
    source = entry / ENTRY_CACHE / version
    if not source.is_dir():
        return False
    staging = project_cache / f".filling-{uuid.uuid4().hex}"
    try:
        shutil.copytree(source, staging, copy_function=shutil.copy2)  # mypy compares the data files' times
        os.rename(staging, target)
        os.utime(entry)  # used now: the entries pruned first are those used longest ago
    except OSError:  # another run filled it first, or the folder cannot be written
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return True


def publish(entry: Path, build_entry: Callable[[Path, Path], bool], key: str) -> None:
    """Build the entry in a folder of its own, then rename it into place (one run wins), and
    prune the shared folder."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    for name, text in MARKERS.items():
        if not (entry.parent / name).exists():
            (entry.parent / name).write_text(text)
    building = entry.parent / f".building-{uuid.uuid4().hex}"
    try:
        source_folder = building / "source"
        source_folder.mkdir(parents=True)
        (source_folder / f"{SEED_MODULE.format(key=key)}.py").write_text(SEED_IMPORTS, encoding="utf-8")
        if build_entry(source_folder, building / ENTRY_CACHE):
            shutil.rmtree(source_folder)
            os.rename(building, entry)
            prune(entry.parent)
    except OSError:  # another run published it first, or the folder cannot be written
        pass
    finally:
        shutil.rmtree(building, ignore_errors=True)


def prune(shared: Path) -> None:
    """Keep the ``KEPT`` entries used last; remove what a run stopped midway left (an hour old)."""
    now = time.time()
    folders = [path for path in shared.iterdir() if path.is_dir()]
    entries = sorted((path for path in folders if not path.name.startswith(".")), key=lambda path: path.stat().st_mtime, reverse=True)
    left_behind = [path for path in folders if path.name.startswith(".") and now - path.stat().st_mtime > 3600]
    for path in [*entries[KEPT:], *left_behind]:
        shutil.rmtree(path, ignore_errors=True)


def size(shared: Path) -> tuple[int, int]:
    """The entries in the shared cache and the bytes of everything in it."""
    if not shared.is_dir():
        return 0, 0
    entries = sum(1 for path in shared.iterdir() if path.is_dir() and not path.name.startswith("."))
    total = sum(os.path.getsize(os.path.join(parent, name)) for parent, _, files in os.walk(shared) for name in files)
    return entries, total
