"""A JAX release other than the stubs' is reported, once per run, by mypy and by the check command.

A second JAX cannot be installed beside the real one cheaply, so these tests put a
``jax-<other>.dist-info`` ahead of site-packages on ``PYTHONPATH``: the plugin reads the JAX
version from distribution metadata exactly as it does for a real install.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from environments import JAX, linked_environment
from mypy_plugin import messages
from mypy_plugin.versions import Diagnosis

BIN = Path(sys.executable).parent
STUBS = Diagnosis.of_this_environment().stubs
OTHER = "0.9.2" if STUBS != "0.9.2" else "0.10.1"
USES_JAX = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\ny = jnp.ones(2)\n"


def environment_with_jax(version: str, folder: Path) -> dict[str, str]:
    dist_info = folder / f"jax-{version}.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: jax\nVersion: {version}\n")
    return {**os.environ, "PYTHONPATH": str(folder)}


def mypy(folder: Path, env: dict[str, str], *args: str, python: Path = BIN / "python", cache: str = ".cache"
         ) -> subprocess.CompletedProcess[str]:
    """mypy of ``python``'s environment, the plugin on, with its cache in ``folder / cache``
    (an absolute ``cache`` stands as it is)."""
    (folder / "mypy.ini").write_text(f"[mypy]\nplugins = mypy_plugin\ncache_dir = {folder / cache}\n")
    return subprocess.run([str(python), "-m", "mypy", *args], cwd=folder, env=env, capture_output=True, text=True)


def test_mismatch_is_one_error_per_run(tmp_path: Path) -> None:
    env = environment_with_jax(OTHER, tmp_path / "site")
    (tmp_path / "a.py").write_text(USES_JAX)
    (tmp_path / "b.py").write_text(USES_JAX)
    result = mypy(tmp_path, env, "a.py", "b.py")
    expected = messages.stubs_mismatch(OTHER, STUBS)
    assert result.returncode == 1
    assert result.stdout.count("[jax-stubs-mismatch]") == 1, result.stdout
    [line] = [line for line in result.stdout.splitlines() if "[jax-stubs-mismatch]" in line]
    assert line in (f"{module}:3: error: {expected}  [jax-stubs-mismatch]" for module in ("a.py", "b.py"))
    # A second run with the cache says it again: the module that carries it is not cached.
    again = mypy(tmp_path, env, "a.py", "b.py")
    assert again.stdout == result.stdout


def test_mismatch_can_be_disabled_by_its_code(tmp_path: Path) -> None:
    env = environment_with_jax(OTHER, tmp_path / "site")
    (tmp_path / "a.py").write_text(USES_JAX)
    # The plugin on, as in the test above that reports the mismatch: only the option differs.
    result = mypy(tmp_path, env, "--disable-error-code", "jax-stubs-mismatch", "a.py")
    assert result.returncode == 0 and "jax-stubs-mismatch" not in result.stdout, result.stdout + result.stderr


def test_matching_release_reports_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(USES_JAX)
    result = mypy(tmp_path, dict(os.environ), "a.py")
    assert result.returncode == 0 and result.stderr == "", result.stdout + result.stderr


def test_versions_are_read_where_mypy_reads_packages(tmp_path: Path) -> None:
    """``--python-executable`` points mypy at another environment's packages: the plugin reads
    JAX's and the stubs' versions there too, not where mypy itself is installed."""
    without_jax = linked_environment(tmp_path / "env", leave_out=JAX)
    (tmp_path / "a.py").write_text("import jax\n" + USES_JAX + "y.to_device(jax.devices()[0], stream=0)\n")
    missing = messages.PREFIX + messages.jax_not_installed(str(STUBS))
    env = dict(os.environ)

    # mypy beside JAX, checking against an environment without it.
    result = mypy(tmp_path, env, "--python-executable", str(without_jax), "a.py")
    assert missing in result.stderr.splitlines(), result.stderr
    # mypy in the environment without JAX, checking against this one, which has it.
    result = mypy(tmp_path, env, "--python-executable", sys.executable, "a.py", python=without_jax,
                  cache=os.environ.get("JAX_STUBS_TEST_MYPY_CACHE", ".cache2"))
    assert result.stderr == "", result.stderr
    assert result.returncode == 1 and "[jax-to-device-stream]" in result.stdout, result.stdout


def test_check_command_looks_where_told(tmp_path: Path) -> None:
    without_jax = linked_environment(tmp_path / "env", leave_out=JAX)
    check = [sys.executable, "-m", "mypy_plugin", "check", "--python-executable"]
    result = subprocess.run([*check, str(without_jax)], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1 and "jax: (not installed)" in result.stdout, result.stdout
    result = subprocess.run([*check, str(tmp_path / "no-such-python")], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1 and result.stderr == "", result.stderr
    assert result.stdout.startswith(f"error: cannot read the environment of {tmp_path / 'no-such-python'}: ")


@pytest.mark.parametrize("jax_version", [OTHER, STUBS])
def test_check_command(tmp_path: Path, jax_version: str) -> None:
    env = environment_with_jax(jax_version, tmp_path / "site")
    result = subprocess.run(
        [sys.executable, "-m", "mypy_plugin", "check"], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert f"stubs for jax {STUBS}" in result.stdout and f"jax: {jax_version}" in result.stdout
    if jax_version == STUBS:
        assert result.returncode == 0 and "ok:" in result.stdout
    else:
        assert result.returncode == 1
        assert f"error: {messages.stubs_mismatch(OTHER, STUBS)}" in result.stdout.splitlines()


def test_too_old_mypy_gets_one_line_and_a_plugin_that_does_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    import mypy_plugin
    from mypy.plugin import Plugin

    assert mypy_plugin.plugin("1.18.2") is Plugin
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mypy_plugin: mypy 1.18.2 is older than 1.19")
    assert mypy_plugin.plugin("1.19.0+dev.abc") is not Plugin
    assert mypy_plugin.plugin("2.4.1") is not Plugin


def test_readme_shows_the_mismatch_message_as_it_is() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert f"error: {messages.stubs_mismatch('0.9.2', '0.10.2')}  [jax-stubs-mismatch]" in readme
