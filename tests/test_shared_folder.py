"""Two packages on the index install into the same ``jax-stubs/`` folder as this one:
``pyrefly-jax-stubs`` (it writes ``_src/basearray.pyi``, the file of the ``to_device``
refinement, and a top-level ``__init__.pyi`` that breaks every checker's partial-stub lookup)
and ``jax-pyrefly-stubs`` (``numpy/__init__.pyi``, ``nn/__init__.pyi`` and more). Installed in
either order beside this package, ``jax-stubs check`` exits 1 naming the other package, a mypy
run fails under ``jax-stubs-mismatch`` with the same commands in its notes (and says it once on
stderr), and the commands printed put things right."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from environments import OUR_PACKAGE, built_wheels, linked_environment
from mypy_runs import CORRECT
from test_bad_input import mypy, plugin_lines

from mypy_plugin.lib.stderr import PREFIX

OTHERS = {"pyrefly-jax-stubs": "0.10.2.2", "jax-pyrefly-stubs": "1.4.0"}
"""The packages that share the folder, at the releases read (pyrefly-jax-stubs needs Python
3.13, so pip installs it here with ``--ignore-requires-python``)."""

STOPS_MYPY = {"jax-pyrefly-stubs"}
"""Its ``numpy/__init__.pyi`` holds blocking errors for mypy (``Too many arguments for argument
constructor``): installed last, it makes mypy exit 2 before checking the user's code, so no
report can carry the error; the plugin's line on stderr names the package."""


@pytest.fixture(scope="module")
def other_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("other-wheels")
    requirements = [f"{name}=={version}" for name, version in OTHERS.items()]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--python-version", "3.13",
         "--dest", str(folder), *requirements],
        check=True, capture_output=True,
    )  # fmt: skip
    return folder


def install(python: Path, *wheels: Path) -> None:
    """pip (this environment's, for ``python``'s) installs ``wheels`` as a user would, again if there."""
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--force-reinstall",
         "--ignore-requires-python", *map(str, wheels)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip


def check(python: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-m", "mypy_plugin", "check"], capture_output=True, text=True)


def wheel_of(folder: Path, name: str) -> Path:
    [wheel] = folder.glob(f"{name.replace('-', '_')}-*.whl")
    return wheel


@pytest.mark.parametrize("other", sorted(OTHERS))
@pytest.mark.parametrize("ours_last", [False, True], ids=["other-installed-last", "ours-installed-last"])
def test_another_package_in_the_stub_folder_is_named(other: str, ours_last: bool, other_wheels: Path, tmp_path: Path) -> None:
    python = linked_environment(tmp_path / "env", copy=OUR_PACKAGE)
    assert check(python).returncode == 0
    install(python, wheel_of(other_wheels, other))
    if ours_last:
        install(python, wheel_of(built_wheels(tmp_path / "ours"), "jax-stubs"))
    checked = check(python)
    assert checked.returncode == 1, checked.stdout
    [error] = [line for line in checked.stdout.splitlines() if line.startswith("error: ")]
    assert "another package installed files into the jax-stubs folder" in error and f"{other} (jax-stubs/" in error, error
    run = mypy(python, tmp_path, True, CORRECT)
    [said] = plugin_lines(run)
    assert said == PREFIX + error.removeprefix("error: "), said
    if other in STOPS_MYPY and not ours_last:
        assert run.returncode == 2 and "errors prevented further checking" in run.stdout, run.stdout + run.stderr
        return
    assert run.returncode == 1, run.stdout + run.stderr
    reported = [line.partition(": ")[2] for line in run.stdout.splitlines() if line.startswith("main.py:1: ")]
    assert reported[0] == f"error: another package installed files into the jax-stubs folder: {other}  [jax-stubs-mismatch]", run.stdout
    uninstall, reinstall = error.rsplit(": ", 1)[1].split(", then ") if ", then " in error else ("", "")
    assert reported[-2:] == [f"note: Uninstall {other}: {uninstall}", f"note: Reinstall these stubs: {reinstall}"], run.stdout


def test_the_printed_commands_put_it_right(other_wheels: Path, tmp_path: Path) -> None:
    """The uninstall and reinstall commands that ``check`` prints, run as printed (the built
    wheel found where the package index would serve it), leave an install ``check`` accepts."""
    python = linked_environment(tmp_path / "env", copy=OUR_PACKAGE)
    install(python, wheel_of(other_wheels, "pyrefly-jax-stubs"))
    error = next(line for line in check(python).stdout.splitlines() if line.startswith("error: "))
    commands = re.fullmatch(r".*: (?P<uninstall>.+), then (?P<reinstall>.+)", error)
    assert commands is not None, error
    wheels = built_wheels(tmp_path / "ours")
    env = {**os.environ, "UV_FIND_LINKS": str(wheels), "UV_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_NO_INDEX": "1"}
    for command in (commands["uninstall"], commands["reinstall"]):
        done = subprocess.run(shlex.split(command), capture_output=True, text=True, env=env)
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
    checked = check(python)
    assert checked.returncode == 0, checked.stdout


def test_a_file_no_checker_reads_does_not_fail_the_run(tmp_path: Path) -> None:
    """A ``.DS_Store`` in the stub folder is said (``jax-stubs check``) but fails no mypy run;
    a stray stub file does, with a note to delete it (a reinstall leaves it)."""
    from mypy_plugin.install.diagnosis import Diagnosis, Installer

    folder = tmp_path / "jax-stubs"
    folder.mkdir()
    stray = Diagnosis("0.10.2", "0.10.2", "0.10.2.0", folder, (), Installer("python", True), foreign=(folder / ".DS_Store",))
    assert not stray.reads_foreign_stubs and stray.run_failure() is None
    stub = Diagnosis("0.10.2", "0.10.2", "0.10.2.0", folder, (), Installer("python", True), foreign=(folder / "extra.pyi",))
    failure = stub.run_failure()
    assert (
        failure is not None
        and failure[1][-2].startswith("Delete what no package installed there")
        and str(folder / "extra.pyi") in failure[1][-2]
    )
