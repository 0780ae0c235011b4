"""Which JAX is installed and which JAX the installed stubs describe, read without importing jax.

Every mypy run starts here, so this reads as little as the answer needs: one listing of each
folder mypy reads packages from (the ``.dist-info`` folder names carry the versions), the
stubs' ``RECORD``, the size of each stub file it lists (a file another package overwrote has
another size), one listing of each stub folder (a file another package added there, such as a
top-level ``__init__.pyi``, which breaks every checker's partial-stub lookup), and
``JAX_VERSION``. The same listing gives the installed Flax's version, which decides where
``jax-nnx-trace-level`` reports. What to say about a problem lives in ``diagnosis.py``,
imported only when there is one.

mypy keeps a module's cached result only while ``report_config_data`` returns the same value,
so these versions go into it: a JAX or Flax upgrade or new stubs re-check the user's modules.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from mypy_plugin import DISTRIBUTION

DIST_INFO_NAME: Final = DISTRIBUTION.replace("-", "_")
"""The package's distribution, as its ``.dist-info`` folder spells it."""
JAX_DISTRIBUTION: Final = "jax"
FLAX_DISTRIBUTION: Final = "flax"
EQUINOX_DISTRIBUTION: Final = "equinox"
"""Libraries whose release decides where a rule reports, or what it says (``jax-nnx-trace-level``,
``jax-equinox-frozen``)."""
PIP: Final = "pip"
STUB_FOLDER: Final = "jax-stubs"
PLUGIN_FOLDER: Final = "mypy_plugin/"
"""The plugin's files, as ``RECORD`` names them."""
TARGET_FILE: Final = "JAX_VERSION"
"""A file in the stub folder that names the JAX release the stubs were generated from."""

# Run in another Python, like mypy's own pyinfo: where it reads packages (its first sys.path
# entry, the folder of this snippet's caller, left out).
_SEARCH_DIRS = "import site, sys; print(repr((sys.path[1:], site.getsitepackages())))"


class Installed:
    """What is installed in one environment: the versions, and the state of the stub folder."""

    __slots__ = ("jax", "stubs", "distribution", "folder", "missing", "changed", "foreign", "has_pip", "flax", "equinox", "build")

    def __init__(
        self,
        jax: str | None,
        stubs: str | None,
        distribution: str | None,
        folder: str | None,
        missing: tuple[str, ...],
        has_pip: bool,
        changed: tuple[str, ...] = (),
        foreign: tuple[str, ...] = (),
        flax: str | None = None,
        equinox: str | None = None,
        build: str | None = None,
    ) -> None:
        self.jax = jax
        self.stubs = stubs
        """The JAX release the installed stubs describe (``JAX_VERSION``)."""
        self.distribution = distribution
        """The installed jax-stubs distribution's version, ``<jax>.<revision>``."""
        self.folder = folder
        """The stub folder, where its ``JAX_VERSION`` is; None when the stubs are not installed."""
        self.missing = missing
        """Files the stubs' ``RECORD`` lists that are not there."""
        self.changed = changed
        """Files the stubs' ``RECORD`` lists whose size is not the one it records."""
        self.foreign = foreign
        """Files in the stub folders that the stubs' ``RECORD`` does not list."""
        self.has_pip = has_pip
        self.flax = flax
        """The installed Flax's version; None where Flax is not installed."""
        self.equinox = equinox
        """The installed Equinox's version; None where Equinox is not installed."""
        self.build = build
        """A digest of the hashes ``RECORD`` gives the plugin's own files: another build of one
        version (a checkout installed again after an edit) is another plugin to mypy's cache."""

    @property
    def mismatched(self) -> bool:
        """Whether JAX and the stubs are known to be different releases."""
        return self.jax is not None and self.stubs is not None and self.jax != self.stubs

    @property
    def has_problems(self) -> bool:
        """Whether there is anything to say: a broken install or a mismatch."""
        return self.folder is None or bool(self.missing or self.changed or self.foreign) or self.jax is None or self.mismatched

    def config_data(self) -> dict[str, str | None]:
        return {"jax": self.jax, "stubs": self.stubs, "flax": self.flax, "equinox": self.equinox, "build": self.build}


def read(search_path: Sequence[str]) -> Installed:
    """What is installed where ``search_path`` (mypy's order) finds packages."""
    infos = dist_infos((JAX_DISTRIBUTION, DIST_INFO_NAME, PIP, FLAX_DISTRIBUTION, EQUINOX_DISTRIBUTION), search_path)
    record = infos.get(DIST_INFO_NAME)
    lines = record_lines(record) if record is not None else []
    recorded = stub_files(record, lines) if record is not None else {}
    target = next((f for f in recorded if os.path.basename(f) == TARGET_FILE and os.path.basename(os.path.dirname(f)) == STUB_FOLDER), None)
    stubs = read_target(target) if target is not None else None
    missing, changed = [], []
    for path, size in recorded.items():
        try:
            found = os.stat(path).st_size
        except OSError:
            missing.append(path)
            continue
        if size is not None and found != size:
            changed.append(path)
    return Installed(
        jax=version_of(infos.get(JAX_DISTRIBUTION)),
        stubs=stubs,
        distribution=version_of(record),
        folder=os.path.dirname(target) if target is not None else None,
        missing=tuple(missing),
        has_pip=PIP in infos,
        changed=tuple(changed),
        foreign=foreign_files(recorded),
        flax=version_of(infos.get(FLAX_DISTRIBUTION)),
        equinox=version_of(infos.get(EQUINOX_DISTRIBUTION)),
        build=plugin_build(lines),
    )


def record_lines(info: str) -> list[str]:
    """The lines of the ``RECORD`` in ``info``; none where it cannot be read (as if not installed)."""
    try:
        with open(os.path.join(info, "RECORD"), encoding="utf-8") as record:
            return record.read().splitlines()
    except (OSError, ValueError):
        return []


def plugin_build(lines: list[str]) -> str | None:
    """A digest of the ``RECORD`` lines of the plugin's own files (each holds the file's hash);
    None where ``RECORD`` lists none (an editable install: its edits are not followed)."""
    import zlib

    own = [line for line in lines if line.startswith(PLUGIN_FOLDER)]
    return format(zlib.crc32("\n".join(own).encode()), "08x") if own else None


def foreign_files(recorded: dict[str, int | None]) -> tuple[str, ...]:
    """The files and folders in the stub folders that ``RECORD`` does not list (compiled files
    aside): what another distribution installed into the same ``jax-stubs/`` folder."""
    folders = {os.path.dirname(path) for path in recorded}
    found = []
    for folder in sorted(folders):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found += [
            path for name in names if (path := os.path.join(folder, name)) not in recorded and path not in folders and name != "__pycache__"
        ]
    return tuple(sorted(found))


def dist_infos(names: Sequence[str], search_path: Sequence[str]) -> dict[str, str]:
    """The ``<name>-<version>.dist-info`` folder of each named distribution, first found, in
    one pass over the search path.

    Read from folder names, as pip installs them: importing ``importlib.metadata`` would cost
    mypy more start-up time than the rest of the plugin together.
    """
    found: dict[str, str] = {}
    for entry in search_path:
        try:
            folders = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in folders:
            if folder.endswith(".dist-info"):
                name = folder.partition("-")[0]
                if name in names and name not in found:
                    found[name] = os.path.join(entry or ".", folder)
        if len(found) == len(names):
            break
    return found


def version_of(info: str | None) -> str | None:
    if info is None:
        return None
    name = os.path.basename(info)
    return name[name.index("-") + 1 : -len(".dist-info")]


def stub_files(info: str, lines: list[str]) -> dict[str, int | None]:
    """Every file of the stub folder that the stubs' ``RECORD`` (in ``info``, its ``lines``)
    lists, with the size it records (None where it records none); none when it cannot be read
    (as if not installed).

    ``RECORD`` is CSV: ``path,hash,size``, a path quoted only if it holds a comma or a quote.
    The stub folder's own paths hold neither, so a line that starts with the folder's name is
    split at its commas; a quoted line is read by the ``csv`` module."""
    prefix = STUB_FOLDER + "/"
    rows = [line.split(",") for line in lines if line.startswith(prefix)]
    quoted = [line for line in lines if line.startswith('"')]
    if quoted:
        import csv

        try:
            rows += [row for row in csv.reader(quoted) if row and row[0].startswith(prefix)]
        except csv.Error:
            return {}
    parent = os.path.dirname(info)
    # RECORD writes "/" on every system: normalised, the paths compare with the folder's listing
    return {
        os.path.normpath(os.path.join(parent, row[0])): int(row[-1]) if len(row) > 1 and row[-1].isascii() and row[-1].isdigit() else None
        for row in rows
    }


def read_target(target: str) -> str | None:
    """The JAX release in ``JAX_VERSION``, or None when it is missing, unreadable or empty."""
    try:
        with open(target, encoding="utf-8") as file:
            return file.read().strip() or None
    except (OSError, ValueError):  # unreadable: as if absent
        return None


def search_dirs_of(python_executable: str) -> tuple[list[str], list[str]]:
    """Where mypy, given ``--python-executable``, reads installed packages, in mypy's order:
    ``sys.path`` entries, then site-packages. Without mypy (the check command beside
    pyright), that Python is asked the same way. Raises when that Python cannot tell."""
    try:
        from mypy_plugin.lib.mypy_internals import search_dirs
    except ImportError:
        import ast
        import subprocess

        answer = subprocess.run([python_executable, "-c", _SEARCH_DIRS], capture_output=True, text=True, check=True, timeout=60).stdout
        sys_path, site_packages = ast.literal_eval(answer.strip())
    else:
        sys_path, site_packages = search_dirs(python_executable, fallback=False)
    return list(sys_path), list(site_packages)
