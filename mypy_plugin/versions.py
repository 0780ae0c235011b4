"""Which JAX is installed and which JAX the installed stubs describe, read without importing jax.

mypy keeps a module's cached result only while ``report_config_data`` returns the same value,
so these versions go into it: a JAX upgrade or new stubs re-check the user's modules. The same
facts decide whether the stubs fit (``Diagnosis``), for the plugin and for
``python -m mypy_plugin check``.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mypy_plugin import messages

DISTRIBUTION = "jax_stubs"  # as its .dist-info folder spells it
STUB_FOLDER = "jax-stubs"
TARGET_FILE = "JAX_VERSION"
"""A file in the stub folder that names the JAX release the stubs were generated from."""


def mypy_search_path(python_executable: str | None) -> list[str] | None:
    """The folders mypy reads installed packages from: those of ``--python-executable``
    (by default the Python running mypy), not necessarily this process's ``sys.path``.

    mypy's own function, cached by mypy, so asking again costs nothing; on a mypy whose
    internals differ, this process's path. None when mypy reads no installed package
    (``--no-site-packages``): then there is no installed JAX or stub folder to check.
    """
    if python_executable is None:
        return None
    try:
        return search_dirs_of(python_executable) or list(sys.path)
    except Exception:  # a mypy internal: never let it break the run
        return list(sys.path)


def search_dirs_of(python_executable: str) -> list[str]:
    """Where mypy, given ``--python-executable``, reads installed packages, in mypy's order.
    Raises when that Python cannot tell."""
    from mypy.modulefinder import get_search_dirs

    sys_path, site_packages = get_search_dirs(python_executable)
    return [*sys_path, *site_packages]


def dist_infos(names: Sequence[str], search_path: Sequence[str]) -> dict[str, Path]:
    """The ``<name>-<version>.dist-info`` folder of each named distribution, first found, in
    one pass over the search path.

    Read from folder names, as pip installs them: importing ``importlib.metadata`` would cost
    mypy more start-up time than the rest of the plugin together.
    """
    found: dict[str, Path] = {}
    for entry in search_path:
        try:
            folders = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in folders:
            name = folder.partition("-")[0]
            if folder.endswith(".dist-info") and name in names and name not in found:
                found[name] = Path(entry or ".") / folder
    return found


def version_of(info: Path | None) -> str | None:
    return info.name[info.name.index("-") + 1 : -len(".dist-info")] if info is not None else None


def installed_stub_files(info: Path | None) -> list[Path]:
    """Every file of the stub folder that the stubs' RECORD (in ``info``) lists."""
    if info is None:
        return []
    try:
        with open(info / "RECORD", newline="", encoding="utf-8") as record:
            rows = list(csv.reader(record))
    except (OSError, ValueError, csv.Error):  # unreadable: as if not installed
        return []
    return [
        info.parent / row[0]
        for row in rows
        if row and Path(row[0]).parts[:1] == (STUB_FOLDER,)
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
        return cls.of_environment(sys.path)

    @classmethod
    def of_environment(cls, search_path: Sequence[str]) -> Diagnosis:
        infos = dist_infos(("jax", DISTRIBUTION), search_path)
        files = installed_stub_files(infos.get(DISTRIBUTION))
        missing = tuple(f for f in files if not f.is_file())
        target = next((f for f in files if f.name == TARGET_FILE and f.parent.name == STUB_FOLDER), None)
        stubs = None
        if target is not None and target not in missing:
            try:
                stubs = target.read_text(encoding="utf-8").strip() or None
            except (OSError, ValueError):  # unreadable: as if absent
                pass
        return cls(
            jax=version_of(infos.get("jax")),
            stubs=stubs,
            folder=target.parent if target is not None else None,
            missing=missing,
        )

    @classmethod
    def nothing_known(cls) -> Diagnosis:
        """For a run that reads no installed package: no versions, nothing to report."""
        return cls(jax=None, stubs=None, folder=None, missing=())

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
    def mismatched(self) -> bool:
        """Whether JAX and the stubs are known to be different releases."""
        return self.jax is not None and self.stubs is not None and self.jax != self.stubs

    def config_data(self) -> dict[str, str | None]:
        return {"jax": self.jax, "stubs": self.stubs}
