"""What is wrong with an installation, said with the command that mends it.

Imported only when ``installed.py`` found a problem, and by the check command: a run where
everything fits never loads this module (nor ``messages``, ``shlex``, ``dataclasses`` work).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib.util import find_spec
from pathlib import Path

from mypy_plugin import __version__
from mypy_plugin.install import installed, messages, releases
from mypy_plugin.lib.release import parse_version

STUB_SUFFIXES = (".pyi", ".py")
"""What a checker reads in a stub folder (with ``py.typed`` and folders)."""
OLDEST_JAX = "0.4.31"
"""The first JAX release with a built-in ``Array.to_device``: the oldest the stubs describe."""


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

    @classmethod
    def of_this_python(cls) -> Installer:
        return cls(sys.executable, find_spec("pip") is not None)

    def uninstall(self, distribution: str) -> str:
        """The command that uninstalls ``distribution``."""
        python = messages.shell_word(self.python)
        if self.has_pip:
            return f"{python} -m pip uninstall -y {distribution}"
        return f"uv pip uninstall --python {python} {distribution}"

    def install(self, requirement: str, *, reinstall: bool = False) -> str:
        """The command that installs ``requirement`` (``reinstall``: again, alone)."""
        options = "--force-reinstall --no-deps " if reinstall else ""
        python = messages.shell_word(self.python)
        if self.has_pip:
            return f'{python} -m pip install {options}"{requirement}"'
        return f'uv pip install --python {python} {options}"{requirement}"'


@dataclass(frozen=True)
class Diagnosis:
    """What is installed in one environment, and what is wrong with it."""

    jax: str | None
    stubs: str | None
    """The JAX release the installed stubs describe (``JAX_VERSION``)."""
    distribution: str | None
    """The installed jax-stubs distribution's version, ``<jax>.<revision>``."""
    folder: Path | None
    missing: tuple[Path, ...]
    installer: Installer
    changed: tuple[Path, ...] = ()
    """Files of the stubs whose size is not the one their ``RECORD`` records."""
    foreign: tuple[Path, ...] = ()
    """Files in the stub folders that their ``RECORD`` does not list."""

    @classmethod
    def of(cls, found: installed.Installed, python: str) -> Diagnosis:
        return cls(
            jax=found.jax,
            stubs=found.stubs,
            distribution=found.distribution,
            folder=Path(found.folder) if found.folder is not None else None,
            missing=tuple(map(Path, found.missing)),
            installer=Installer(python, found.has_pip),
            changed=tuple(map(Path, found.changed)),
            foreign=tuple(map(Path, found.foreign)),
        )

    @classmethod
    def of_this_environment(cls) -> Diagnosis:
        return cls.of_environment(sys.path, sys.executable)

    @classmethod
    def of_environment(cls, search_path: Sequence[str], python: str) -> Diagnosis:
        return cls.of(installed.read(search_path), python)

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
            wanted = self.stubs_for(self.jax) if self.jax in releases.RELEASES else f"jax-stubs=={self.release}"
            return [messages.stubs_not_installed(self.installer.install(wanted))]
        if self.missing:
            reinstall = self.installer.install(f"jax-stubs=={self.release}", reinstall=True)
            missing = [str(m.relative_to(self.folder)) for m in self.missing]
            return [messages.stub_files_missing(self.folder, missing, reinstall)]
        if self.changed or self.foreign:
            return [self.shared_folder_problem(self.folder)]
        if self.jax is None and self.stubs is not None:
            return [messages.jax_not_installed(self.stubs, self.installer.install(f"jax=={self.stubs}"))]
        return []

    def recorded_name(self, path: Path) -> str:
        """``path`` in the stub folder as ``RECORD`` writes it (``jax-stubs/...``)."""
        assert self.folder is not None
        return f"{installed.STUB_FOLDER}/{path.relative_to(self.folder).as_posix()}"

    def touched_files(self) -> list[str]:
        """The stub folder's files that another distribution installed or overwrote, or that
        changed, as ``RECORD`` writes paths."""
        return [self.recorded_name(path) for path in sorted({*self.changed, *self.foreign})]

    @cached_property
    def sharers(self) -> dict[str, list[str]]:
        """The other distributions that installed the touched files, with those they list (read
        once: the error, its notes and the stderr line all name them)."""
        assert self.folder is not None
        return owners_of(self.folder.parent, set(self.touched_files()))

    def shared_folder_problem(self, folder: Path) -> str:
        """Files of the stub folder that another distribution installed or overwrote (its
        ``RECORD`` lists them), or that changed with no owner to name, with what to do."""
        names, owners = self.touched_files(), self.sharers
        if not owners:
            return messages.stub_files_changed(names, self.reinstall_stubs())
        uninstall = " and ".join(self.installer.uninstall(owner) for owner in owners)
        return messages.stub_folder_shared(owners, names, uninstall, self.reinstall_stubs())

    def reinstall_stubs(self) -> str:
        return self.installer.install(f"jax-stubs=={self.release}", reinstall=True)

    @property
    def reads_foreign_stubs(self) -> bool:
        """Whether checkers read files of the stub folder that are not this package's: another
        package's stub files or folders, or this package's files changed since the install (a
        missing file is said apart; a stray ``.DS_Store`` is read by no checker)."""
        read = [path for path in self.foreign if path.suffix in STUB_SUFFIXES or path.name == "py.typed" or path.is_dir()]
        return self.folder is not None and not self.missing and bool(self.changed or read)

    def shared_folder_error(self) -> str:
        """The short clause of ``shared_folder_problem``, for the report that fails the run."""
        owners = self.sharers
        return messages.stub_folder_shared_error(list(owners)) if owners else messages.stub_files_changed_error(self.touched_files())

    def shared_folder_notes(self) -> list[str]:
        """Why it matters, then what mends it, one note each: uninstall each other package, delete
        what no package installed (a reinstall leaves it), reinstall these stubs."""
        owners = self.sharers
        uninstall = [messages.uninstall_sharer(owner, self.installer.uninstall(owner)) for owner in owners]
        owned = {name for listed in owners.values() for name in listed}
        unowned = [str(path) for path in self.foreign if self.recorded_name(path) not in owned]
        delete = [messages.delete_unowned(unowned)] if unowned else []
        return [messages.WHY_FOREIGN_STUBS_MATTER, *uninstall, *delete, messages.reinstall_stubs(self.reinstall_stubs())]

    def run_failure(self) -> tuple[str, list[str]] | None:
        """The problem a mypy run fails on, as its error and notes: checkers reading stubs that
        are not this package's, else JAX and the stubs of different releases; None if neither."""
        if self.reads_foreign_stubs:
            return self.shared_folder_error(), self.shared_folder_notes()
        if self.mismatched:
            return self.mismatch_error(), self.mismatch_notes()
        return None

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
        elif self.jax not in releases.RELEASES:
            known = sorted(releases.RELEASES, key=parse_version)
            if parse_version(self.jax) > parse_version(known[-1]):
                fix = messages.no_stubs_yet(self.jax, known[-1], self.stubs, self.installer.install(f"jax=={known[-1]}"))
            else:  # the nearest older release, which needs no newer Python than this one
                nearest = [release for release in known if parse_version(release) < parse_version(self.jax)][-1]
                fix = messages.no_stubs_for(self.jax, self.stubs, self.installer.install(f"jax=={nearest}"))
        else:
            fix = messages.install_matching_stubs(self.jax, self.installer.install(self.stubs_for(self.jax)))
        return [messages.WHY_VERSIONS_MATTER, fix]


def owners_of(site_packages: Path, files: set[str]) -> dict[str, list[str]]:
    """The other distributions whose ``RECORD`` lists some of ``files`` (paths as ``RECORD``
    writes them, ``jax-stubs/...``; a folder, by the files it lists in it), by name, each with
    those it lists: the packages that share
    the stub folder (``pyrefly-jax-stubs`` and ``jax-pyrefly-stubs`` install into it too)."""
    found: dict[str, list[str]] = {}
    for info in sorted(site_packages.glob("*.dist-info")):
        name = info.name.partition("-")[0]
        if name == installed.DIST_INFO_NAME:
            continue
        try:
            lines = (info / "RECORD").read_text(encoding="utf-8").splitlines()
        except (OSError, ValueError):
            continue
        recorded = {line.split(",")[0] for line in lines}
        listed = sorted(name for name in files if name in recorded or any(path.startswith(name + "/") for path in recorded))
        if listed:
            found[name.replace("_", "-")] = listed
    return found
