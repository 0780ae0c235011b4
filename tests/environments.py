"""Virtual environments that see this one's packages, less some, without installing anything.

Their site-packages hold links to this environment's entries: a checker or mypy run there sees
an install without this package, without JAX, or with a damaged stub folder, in a second.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterable
from pathlib import Path

OUR_PACKAGE = frozenset({"jax-stubs", "mypy_plugin", "jax_stubs"})
JAX = frozenset({"jax", "jaxlib"})


def top_level_name(entry: Path) -> str:
    """``jax_stubs-0.10.2.0.dist-info`` -> ``jax_stubs``; a package folder keeps its name."""
    return entry.name.split("-")[0] if entry.name.endswith(".dist-info") else entry.name


def linked_environment(folder: Path, leave_out: Iterable[str] = (), copy: Iterable[str] = ()) -> Path:
    """An environment in ``folder`` with every entry of this site-packages linked in, except
    those named in ``leave_out`` (see ``top_level_name``); those named in ``copy`` are copied
    instead, so that a test may damage them. Returns its Python."""
    leave_out, copy = set(leave_out), set(copy)
    venv.create(folder, with_pip=False, symlinks=True)
    python = folder / "bin" / "python"
    target = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        name = top_level_name(entry)
        if name in leave_out:
            continue
        if name in copy:
            shutil.copytree(entry, target / entry.name)
        else:
            (target / entry.name).symlink_to(entry)
    return python


def built_wheels(fallback: Path) -> Path:
    """A folder holding the wheel under test, for what installs it from an index (pre-commit,
    with ``PIP_FIND_LINKS``): the one ``scripts/test`` built and installed
    (``JAX_STUBS_TEST_WHEELS``), else one built from this checkout into ``fallback``."""
    given = os.environ.get("JAX_STUBS_TEST_WHEELS")
    if given:
        return Path(given)
    repo = Path(__file__).resolve().parent.parent
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(fallback), str(repo)],
        check=True,
        capture_output=True,
    )
    return fallback
