"""Which JAX is installed and which JAX the installed stubs describe, read without importing jax.

mypy keeps a module's cached result only while ``report_config_data`` returns the same value,
so these versions go into it: a JAX upgrade or new stubs re-check the user's modules. The same
facts decide whether the stubs fit (``Diagnosis``), for the plugin and for the check command.
"""

from __future__ import annotations

import ast
import csv
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mypy_plugin import __version__, messages
from mypy_plugin.compat import parse_version

DISTRIBUTION = "jax_stubs"  # as its .dist-info folder spells it
STUB_FOLDER = "jax-stubs"
TARGET_FILE = "JAX_VERSION"
"""A file in the stub folder that names the JAX release the stubs were generated from."""
OLDEST_JAX = "0.4.31"
"""The first JAX release with a built-in ``Array.to_device``: the oldest the stubs describe."""

# Run in another Python, like mypy's own pyinfo: where it reads packages (its first sys.path
# entry, the folder of this snippet's caller, left out).
_SEARCH_DIRS = "import site, sys; print(repr((sys.path[1:], site.getsitepackages())))"


@dataclass(frozen=True)
class SearchDirs:
    """Where mypy reads installed packages, in its order: ``sys.path`` entries, then the
    environment's site-packages folders (installed code)."""

    sys_path: list[str]
    site_packages: list[str]

    @property
    def all(self) -> list[str]:
        return [*self.sys_path, *self.site_packages]


def mypy_search_dirs(python_executable: str | None) -> SearchDirs | None:
    """The folders mypy reads installed packages from: those of ``--python-executable``
    (by default the Python running mypy), not necessarily this process's ``sys.path``.

    mypy's own function, cached by mypy, so asking again costs nothing; on a mypy whose
    internals differ, this process's path. None when mypy reads no installed package
    (``--no-site-packages``): then there is no installed JAX or stub folder to check.
    """
    if python_executable is None:
        return None
    try:
        return search_dirs_of(python_executable)
    except Exception:  # a mypy internal: never let it break the run
        return SearchDirs(list(sys.path), [])


def search_dirs_of(python_executable: str) -> SearchDirs:
    """Where mypy, given ``--python-executable``, reads installed packages, in mypy's order.
    Without mypy (the check command beside pyright), that Python is asked the same way.
    Raises when that Python cannot tell."""
    try:
        from mypy.modulefinder import get_search_dirs
    except ImportError:
        answer = subprocess.run(
            [python_executable, "-c", _SEARCH_DIRS], capture_output=True, text=True, check=True, timeout=60
        ).stdout
        sys_path, site_packages = ast.literal_eval(answer.strip())
    else:
        sys_path, site_packages = get_search_dirs(python_executable)
    return SearchDirs(list(sys_path), list(site_packages))


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


def is_release(version: str) -> bool:
    """``0.10.2`` and ``0.9.0.1`` are releases; ``0.10.3.dev20261130`` and ``0.10.3rc1`` are
    not, and no stubs are published for them."""
    return all(part.isdigit() for part in version.split("."))


@dataclass(frozen=True)
class Installer:
    """How to install into one environment, as a command the user can paste: its Python's
    pip, or uv where the environment has no pip (uv creates environments without it)."""

    python: str
    has_pip: bool

    def install(self, requirement: str, *, reinstall: bool = False) -> str:
        """The command that installs ``requirement`` (``reinstall``: again, alone)."""
        options = "--force-reinstall --no-deps " if reinstall else ""
        python = messages.shell_word(self.python)
        if self.has_pip:
            return f'{python} -m pip install {options}"{requirement}"'
        return f'uv pip install --python {python} {options}"{requirement}"'


@dataclass(frozen=True)
class Diagnosis:
    """What the plugin knows about the environment, and what is wrong with it."""

    jax: str | None
    stubs: str | None
    """The JAX release the installed stubs describe (``JAX_VERSION``)."""
    distribution: str | None
    """The installed jax-stubs distribution's version, ``<jax>.<revision>``."""
    folder: Path | None
    missing: tuple[Path, ...]
    installer: Installer

    @classmethod
    def of_this_environment(cls) -> Diagnosis:
        return cls.of_environment(sys.path, sys.executable)

    @classmethod
    def of_environment(cls, search_path: Sequence[str], python: str) -> Diagnosis:
        infos = dist_infos(("jax", DISTRIBUTION, "pip"), search_path)
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
            distribution=version_of(infos.get(DISTRIBUTION)),
            folder=target.parent if target is not None else None,
            missing=missing,
            installer=Installer(python, "pip" in infos),
        )

    @classmethod
    def nothing_known(cls) -> Diagnosis:
        """For a run that reads no installed package: no versions, nothing to report."""
        return cls(jax=None, stubs=None, distribution=None, folder=None, missing=(), installer=Installer("python", True))

    @property
    def release(self) -> str:
        """The installed jax-stubs release (``<jax>.<revision>``), or this plugin's own where
        no installed distribution says (a broken install)."""
        return self.distribution or __version__

    @property
    def revision(self) -> str:
        """This release's revision of the stubs, the last part of ``<jax>.<revision>``; every
        JAX release is built at the same revision, so it names the stubs for another JAX."""
        return self.release.rsplit(".", 1)[1]

    def stubs_for(self, jax: str) -> str:
        """The requirement that installs exactly this release's stubs for ``jax``."""
        return f"jax-stubs=={jax}.{self.revision}"

    def environment_problems(self) -> list[str]:
        """Broken installs: the plugin says so once and leaves mypy's result alone."""
        if self.folder is None:
            return [messages.stubs_not_installed(self.installer.install(f"jax-stubs=={self.release}"))]
        if self.missing:
            reinstall = self.installer.install(f"jax-stubs=={self.release}", reinstall=True)
            missing = [str(m.relative_to(self.folder)) for m in self.missing]
            return [messages.stub_files_missing(self.folder, missing, reinstall)]
        if self.jax is None and self.stubs is not None:
            return [messages.jax_not_installed(self.stubs, self.installer.install(f"jax=={self.stubs}"))]
        return []

    @property
    def mismatched(self) -> bool:
        """Whether JAX and the stubs are known to be different releases."""
        return self.jax is not None and self.stubs is not None and self.jax != self.stubs

    def mismatch_error(self) -> str:
        assert self.jax is not None and self.stubs is not None
        return messages.stubs_mismatch(self.jax, self.stubs)

    def mismatch_notes(self) -> list[str]:
        """Why a mismatch matters, then the one command that fixes it."""
        assert self.jax is not None and self.stubs is not None
        if not is_release(self.jax):
            fix = messages.jax_not_a_release(self.jax)
        elif parse_version(self.jax) < parse_version(OLDEST_JAX):
            fix = messages.jax_too_old(self.jax, OLDEST_JAX)
        else:
            fix = messages.install_matching_stubs(self.jax, self.installer.install(self.stubs_for(self.jax)))
        return [messages.WHY_VERSIONS_MATTER, fix]

    def config_data(self) -> dict[str, str | None]:
        return {"jax": self.jax, "stubs": self.stubs}
