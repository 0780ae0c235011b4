"""A broken environment gets one clear line from the plugin, never a traceback, and mypy's
own exit status: the plugin says what is wrong and leaves mypy's result alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from environments import JAX, OUR_PACKAGE, linked_environment
from mypy_runs import CORRECT, MISUSE, run_mypy

from mypy_plugin.install import messages
from mypy_plugin.install.diagnosis import Diagnosis, Installer
from mypy_plugin.lib.stderr import PREFIX

STUBS = Diagnosis.of_this_environment().stubs


def mypy(python: Path, folder: Path, plugin: bool, source: str = CORRECT, *flags: str) -> subprocess.CompletedProcess[str]:
    """mypy of ``python``'s environment on ``source``, with a cache of this environment's own."""
    (folder / "main.py").write_text(source)
    return run_mypy(folder, *flags, "main.py", cache=folder / f".cache-{plugin}", plugin=plugin, python=python)


def plugin_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith(PREFIX)]


def assert_one_line_and_mypys_status(python: Path, folder: Path, expected_start: str) -> None:
    with_plugin = mypy(python, folder, plugin=True)
    without = mypy(python, folder, plugin=False)
    output = with_plugin.stdout + with_plugin.stderr
    assert "Traceback" not in output and "INTERNAL ERROR" not in output, output
    [line] = plugin_lines(with_plugin)
    assert line.startswith(PREFIX + expected_start), line
    assert with_plugin.returncode == without.returncode, output


def test_jax_not_installed(tmp_path: Path) -> None:
    python = linked_environment(tmp_path / "env", leave_out=JAX)
    assert_one_line_and_mypys_status(python, tmp_path, "jax is not installed in the environment mypy reads packages from")


def test_stub_file_missing(tmp_path: Path) -> None:
    python = linked_environment(tmp_path / "env", copy={"jax-stubs"})
    [folder] = (tmp_path / "env").glob("lib/python*/site-packages/jax-stubs")
    (folder / "numpy" / "__init__.pyi").unlink()
    assert_one_line_and_mypys_status(python, tmp_path, f"the stub folder {folder} lacks numpy/__init__.pyi")


def test_stubs_not_installed(tmp_path: Path) -> None:
    python = linked_environment(tmp_path / "env", leave_out=OUR_PACKAGE - {"mypy_plugin"})
    assert_one_line_and_mypys_status(python, tmp_path, "the jax-stubs stub folder is not installed")
    # Without the stubs the plugin still reports the misuse: it reads JAX's own stub then.
    result = mypy(python, tmp_path, plugin=True, source=MISUSE)
    assert result.returncode == 1 and "[jax-to-device-stream]" in result.stdout


@pytest.mark.parametrize("damage", ["jax", "stub file"])
def test_check_command_reports_the_damage(tmp_path: Path, damage: str) -> None:
    if damage == "jax":
        python = linked_environment(tmp_path / "env", leave_out=JAX)
    else:
        python = linked_environment(tmp_path / "env", copy={"jax-stubs"})
        [folder] = (tmp_path / "env").glob("lib/python*/site-packages/jax-stubs")
        (folder / "py.typed").unlink()
    result = subprocess.run([str(python), "-m", "mypy_plugin", "check"], capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert any(line.startswith("error: ") for line in result.stdout.splitlines())


def test_unreadable_install_record(tmp_path: Path) -> None:
    python = linked_environment(tmp_path / "env", copy={"jax_stubs"})
    [record] = (tmp_path / "env").glob("lib/python*/site-packages/jax_stubs-*.dist-info/RECORD")
    record.write_bytes(b"jax-stubs/\xff\xfe,\n")
    assert_one_line_and_mypys_status(python, tmp_path, "the jax-stubs stub folder is not installed")


def test_no_site_packages_is_not_a_missing_install(tmp_path: Path) -> None:
    """With --no-site-packages mypy reads no installed package: nothing to check, nothing said."""
    python = linked_environment(tmp_path / "env", leave_out=JAX)
    result = mypy(python, tmp_path, True, "x: int = 1\n", "--no-site-packages")
    assert result.returncode == 0 and result.stderr == "", result.stdout + result.stderr
    # Reading packages, the same environment lacks JAX, and the plugin says so.
    result = mypy(python, tmp_path, True, "x: int = 1\n")
    install = Installer(str(python), True).install(f"jax=={STUBS}")
    assert plugin_lines(result) == [PREFIX + messages.jax_not_installed(f"{STUBS}", install)], result.stderr
