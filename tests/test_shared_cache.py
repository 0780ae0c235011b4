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


def cached_names(cache: Path) -> set[str]:
    """The names of what mypy's cache under ``cache`` holds (the files of mypy 1, the rows of
    mypy 2's SQLite files): ``jax/numpy/__init__.data.json``, ``block_0.meta.json``, ..."""
    found = {
        os.path.relpath(path, version) for version in glob.glob(str(cache / "*")) for path in glob.glob(f"{version}/**/*", recursive=True)
    }
    for database in glob.glob(str(cache / "*" / "cache*.db")):
        with sqlite3.connect(database) as connection:
            found |= {path for (path,) in connection.execute("select path from files2")}
    return found


def seeded(folder: Path) -> bool:
    """Whether the project's cache holds the shared entry's own module."""
    prefix = shared_cache.SEED_MODULE.format(key="")
    return any(name.startswith(prefix) for name in cached_names(folder / checking.CACHE))


def project_modules(folder: Path) -> set[str]:
    """The top-level module names of a project's own files."""
    return {path.stem for path in folder.glob("*.py")}


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
    # the entry holds installed packages only: no module of a project that filled from it
    in_the_entry = {name.partition(".")[0].partition("/")[0] for name in cached_names(shared / entries[0] / shared_cache.ENTRY_CACHE)}
    assert "jax" in in_the_entry and not in_the_entry & (project_modules(tmp_path / "c") | project_modules(tmp_path / "a")), in_the_entry
    # two runs filling one new project at once: one fills it, both report as a run without it
    fresh = project(tmp_path / "e", blocks=False)
    both = [lint(fresh, str(shared)) for _ in range(2)]
    assert [reports(run) for run in both] == [of_the_sample, of_the_sample]
    filled = sorted(path.name for path in (tmp_path / "e" / checking.CACHE).iterdir())
    assert not [name for name in filled if name.startswith(".filling-")] and seeded(tmp_path / "e"), filled


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


def test_installed_packages_and_the_plugins_data_make_another_entry(tmp_path: Path) -> None:
    from mypy.options import Options

    from mypy_plugin.main import JaxStubsPlugin

    options = Options()
    plugin = JaxStubsPlugin(options)
    site_packages = tmp_path / "site-packages"
    (site_packages / "jax-0.10.2.dist-info").mkdir(parents=True)
    key = shared_cache.entry_key(options, plugin, [str(site_packages)])
    (site_packages / "flax-0.12.8.dist-info").mkdir()
    with_flax = shared_cache.entry_key(options, plugin, [str(site_packages)])
    (site_packages / "flax-0.12.8.dist-info").rename(site_packages / "flax-0.12.9.dist-info")
    assert len({key, with_flax, shared_cache.entry_key(options, plugin, [str(site_packages)])}) == 3

    class OtherData(JaxStubsPlugin):
        def report_config_data(self, ctx: object) -> object:
            return "other stubs release"

    assert shared_cache.entry_key(options, OtherData(options), [str(site_packages)]) != key


def test_a_shared_cache_that_fails_leaves_the_check_as_without_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared folder that cannot be written, an entry mypy fails to build, or a crash while
    building: nothing is published, nothing is left behind, and the check goes on without it."""
    from mypy.fscache import FileSystemCache
    from mypy.options import Options

    monkeypatch.chdir(tmp_path)
    options = Options()
    options.cache_dir = str(tmp_path / "project-cache")
    found = settings.read(tmp_path, frozenset())
    in_a_file = tmp_path / "a-file"
    in_a_file.write_text("")
    monkeypatch.setenv(shared_cache.ENVIRONMENT, str(in_a_file / "shared"))
    checking.fill_from_shared_cache(options, found, ["mypy_plugin"], FileSystemCache())
    assert not (tmp_path / "project-cache").exists()

    shared = tmp_path / "shared"
    monkeypatch.setenv(shared_cache.ENVIRONMENT, str(shared))
    built: list[str] = []

    def stops(*args: object) -> tuple[list[object], dict[str, str], None]:
        built.append("stops")
        return [], {"message": "mypy stopped"}, None

    def crashes(*args: object) -> None:
        built.append("crashes")
        raise RuntimeError("crash")

    def exits(*args: object) -> None:
        built.append("exits")
        raise SystemExit(2)

    for build in (stops, crashes, exits):
        monkeypatch.setattr(checking, "build", build)
        checking.fill_from_shared_cache(options, found, ["mypy_plugin"], FileSystemCache())
        assert not (tmp_path / "project-cache").exists()
        assert not [path.name for path in shared.iterdir() if path.is_dir()], "no entry published, nothing left behind"
    assert built == ["stops", "crashes", "exits"], "each failure was met while building the entry"


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
