"""The analysis of JAX that ``jax-stubs lint`` shares between projects
(``mypy_plugin/lint/shared_cache.py``): a project's first run copies it, the reports are the
same with it as without it, two first runs at once publish one entry, and any change of what
the analysis depends on makes another entry."""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from cases import PORTED_FROM_NUMPY
from mypy_runs import BIN
from test_docs import BLOCKS

from mypy_plugin.lint import checking, settings, shared_cache

SUMMARY = ("Found ", "Success: ", "1 fixable", "2 more", "1 more")


def project(folder: Path, blocks: bool = True) -> Path:
    """A project holding the lint sample, and every Python block of the docs unless not ``blocks``."""
    folder.mkdir(parents=True)
    shutil.copy(PORTED_FROM_NUMPY, folder / PORTED_FROM_NUMPY.name)
    for index, block in enumerate(BLOCKS if blocks else []):
        (folder / f"block_{index}.py").write_text(block.text, encoding="utf-8")
    (folder / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    return folder


def lint(folder: Path, shared: str) -> subprocess.Popen[str]:
    env = {**os.environ, shared_cache.ENVIRONMENT: shared}
    command = [str(BIN / "jax-stubs"), "lint"]
    return subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def reports(run: subprocess.Popen[str]) -> list[str]:
    stdout, stderr = run.communicate(timeout=900)
    assert run.returncode == 1 and "Traceback" not in stderr, stdout[-2000:] + stderr
    return [line for line in stdout.splitlines() if not line.startswith(SUMMARY)]


def seeded(folder: Path) -> bool:
    """Whether the project's cache holds the shared entry's own module (read from mypy's cache:
    the SQLite files of mypy 2, or the files of mypy 1)."""
    cache = folder / checking.CACHE
    prefix = shared_cache.SEED_MODULE.format(key="")
    if glob.glob(str(cache / "*" / f"{prefix}*")):
        return True
    for database in glob.glob(str(cache / "*" / "cache*.db")):
        with sqlite3.connect(database) as connection:
            if any(path.startswith(prefix) for (path,) in connection.execute("select path from files2")):
                return True
    return False


def test_first_runs_share_one_analysis_and_report_the_same(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    # two first runs at once, the shared cache empty (the lint sample alone: JAX's analysis is
    # what they share), then the sample and the docs' blocks with it and without it
    first = [lint(project(tmp_path / name, blocks=False), str(shared)) for name in ("a", "b")]
    first_reports = [reports(run) for run in first]
    entries = sorted(entry.name for entry in shared.iterdir() if entry.is_dir())
    assert len(entries) == 1 and not entries[0].startswith("."), entries
    assert {path.name for path in shared.iterdir() if not path.is_dir()} == set(shared_cache.MARKERS)
    later = reports(lint(project(tmp_path / "c"), str(shared)))
    without = reports(lint(project(tmp_path / "d"), ""))
    of_the_sample = [line for line in without if line.startswith(PORTED_FROM_NUMPY.name)]
    assert first_reports == [of_the_sample, of_the_sample] and later == without
    assert all(seeded(tmp_path / name) for name in ("a", "b", "c")) and not seeded(tmp_path / "d")
    assert sorted(entry.name for entry in shared.iterdir() if entry.is_dir()) == entries


def test_what_the_analysis_depends_on_makes_another_entry() -> None:
    from mypy.options import Options

    from mypy_plugin.main import JaxStubsPlugin

    options = Options()
    plugin = JaxStubsPlugin(options)
    key = shared_cache.entry_key(options, plugin, [])
    assert shared_cache.entry_key(options, plugin, []) == key
    strict = Options()
    strict.disallow_untyped_defs = True
    assert shared_cache.entry_key(strict, plugin, []) != key
    newer = Options()
    newer.python_version = (3, 13)
    assert shared_cache.entry_key(newer, plugin, []) != key


def test_where_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(shared_cache.ENVIRONMENT, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert shared_cache.folder(None) == tmp_path / "xdg" / "jax-stubs"
    (tmp_path / "pyproject.toml").write_text('[tool.jax-stubs.lint]\nshared-cache = "cache/jax"\n')
    configured = settings.read(tmp_path, frozenset()).shared_cache
    assert shared_cache.folder(configured) == tmp_path / "cache" / "jax"
    monkeypatch.setenv(shared_cache.ENVIRONMENT, "")
    assert shared_cache.folder(configured) is None
    (tmp_path / "pyproject.toml").write_text("[tool.jax-stubs.lint]\nshared-cache = 1\n")
    with pytest.raises(settings.SettingsError, match="shared-cache .* must be a string"):
        settings.read(tmp_path, frozenset())


def test_the_folder_keeps_the_entries_used_last(tmp_path: Path) -> None:
    import time

    for age in range(10):
        entry = tmp_path / f"entry-{age}"
        entry.mkdir()
        os.utime(entry, (time.time() - age * 60, time.time() - age * 60))
    for name, age in ((".building-old", 7200), (".building-now", 0)):
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (time.time() - age, time.time() - age))
    shared_cache.prune(tmp_path)
    kept = sorted(path.name for path in tmp_path.iterdir())
    assert kept == sorted([".building-now", *(f"entry-{age}" for age in range(shared_cache.KEPT))])


def test_a_root_module_named_as_an_installed_one_keeps_the_analysis_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mypy searches the project's root first: a ``random.py`` there (or a folder of modules
    named as an installed package) could reach the shared analysis, which is then left alone."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text("")
    (tmp_path / "build").mkdir()  # a build folder holds no module at its top
    (tmp_path / "build" / "lib").mkdir()
    installed = tmp_path / "site-packages"
    (installed / "numpy").mkdir(parents=True)
    (installed / "build").mkdir()
    assert not shared_cache.shadowed_here([str(installed)])
    (tmp_path / "random.py").write_text("")
    assert shared_cache.shadowed_here([str(installed)])
    (tmp_path / "random.py").unlink()
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "core.py").write_text("")
    assert shared_cache.shadowed_here([str(installed)])
