"""A JAX release other than the stubs' is reported once per run, wherever the code first calls
into JAX, by mypy (also from its cache and its daemon) and by the check command, each with the
command that fixes it.

A second JAX cannot be installed beside the real one cheaply, so these tests put a
``jax-<other>.dist-info`` ahead of site-packages on ``PYTHONPATH``: the plugin reads the JAX
version from distribution metadata exactly as it does for a real install.
``scripts/install_check.py`` does the same with real installs of two releases.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from environments import JAX, linked_environment
from mypy_runs import BIN, PYTHON, Daemon, run_mypy, shared_cache

from mypy_plugin.install import messages, releases
from mypy_plugin.install.diagnosis import Diagnosis, Installer
from mypy_plugin.lib.release import parse_version
from mypy_plugin.lib.stderr import PREFIX

HERE = Diagnosis.of_this_environment()
STUBS = HERE.stubs
OTHER = "0.9.2" if STUBS != "0.9.2" else "0.10.1"
DECORATOR_FIRST = (
    "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x: jax.Array) -> jax.Array:\n    return x\n\n\ny = jnp.zeros(3)\n"
)
USES_JAX = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\ny = jnp.ones(2)\n"
CODE = "[jax-stubs-mismatch]"


def environment_with_jax(version: str, folder: Path) -> dict[str, str]:
    dist_info = folder / f"jax-{version}.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: jax\nVersion: {version}\n")
    return {**os.environ, "PYTHONPATH": str(folder)}


def with_jax(jax: str) -> Diagnosis:
    """What the plugin finds in this environment when ``jax`` is installed instead."""
    return Diagnosis(
        jax=jax, stubs=STUBS, distribution=HERE.distribution, folder=HERE.folder, missing=(), installer=Installer(str(PYTHON), True)
    )


def expected_report(path: str, line: int, jax: str = OTHER) -> list[str]:
    """The mismatch error and its notes, as mypy prints them for ``path``."""
    other = with_jax(jax)
    return [f"{path}:{line}: error: {other.mismatch_error()}  {CODE}", *(f"{path}:{line}: note: {note}" for note in other.mismatch_notes())]


def report_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "jax-stubs" in line or "JAX's stubs" in line]


def test_mismatch_is_reported_once_at_the_import_whatever_comes_first(tmp_path: Path) -> None:
    """Two modules; the first call into JAX is a decorator (an overload mypy only tries)."""
    env = environment_with_jax(OTHER, tmp_path / "site")
    (tmp_path / "a.py").write_text(DECORATOR_FIRST)
    (tmp_path / "b.py").write_text(USES_JAX)
    cache = tmp_path / "cache"
    result = run_mypy(tmp_path, "a.py", "b.py", cache=cache, env=env)
    assert result.returncode == 1
    lines = report_lines(result.stdout)
    assert lines in (expected_report("a.py", 1), expected_report("b.py", 1)), result.stdout
    # Said on stderr too, where a run that never reaches a call into JAX shows it.
    other = with_jax(OTHER)
    assert result.stderr.splitlines() == [f"{PREFIX}{other.mismatch_error()}. {other.mismatch_notes()[-1]}"]

    # Every run says it, once: from the cache, and after an edit of the other module.
    assert report_lines(run_mypy(tmp_path, "a.py", "b.py", cache=cache, env=env).stdout) == lines
    not_carrying = "b.py" if lines[0].startswith("a.py") else "a.py"
    (tmp_path / not_carrying).write_text((tmp_path / not_carrying).read_text() + "z = jnp.ones(4)\n")
    edited = run_mypy(tmp_path, "a.py", "b.py", cache=cache, env=env)
    assert len(report_lines(edited.stdout)) == 3 and edited.stdout.count(CODE) == 1, edited.stdout


def test_mismatch_only_in_a_module_that_calls_into_jax(tmp_path: Path) -> None:
    env = environment_with_jax(OTHER, tmp_path / "site")
    (tmp_path / "plain.py").write_text("x: int = 1\n")
    result = run_mypy(tmp_path, "plain.py", cache=tmp_path / "cache", env=env)
    assert result.returncode == 0 and CODE not in result.stdout
    assert result.stderr.startswith(PREFIX + f"jax {OTHER} is installed"), result.stderr


def test_mismatch_can_be_disabled_by_its_code(tmp_path: Path) -> None:
    env = environment_with_jax(OTHER, tmp_path / "site")
    (tmp_path / "a.py").write_text(USES_JAX)
    # The plugin on, as in the test above that reports the mismatch: only the option differs.
    result = run_mypy(tmp_path, "--disable-error-code", "jax-stubs-mismatch", "a.py", cache=tmp_path / "cache", env=env)
    assert result.returncode == 0 and "jax-stubs" not in result.stdout + result.stderr, result.stdout + result.stderr


def test_mismatch_silenced_by_an_ignore_on_its_line(tmp_path: Path) -> None:
    """As its page says: the comment on the reported import silences the report there; the
    start-up line on stderr stays."""
    env = environment_with_jax(OTHER, tmp_path / "site")
    (tmp_path / "a.py").write_text(USES_JAX.replace("\n", "  # type: ignore[jax-stubs-mismatch]\n", 1))
    result = run_mypy(tmp_path, "a.py", cache=tmp_path / "cache", env=env)
    assert result.returncode == 0 and CODE not in result.stdout, result.stdout
    assert result.stderr.startswith(PREFIX + f"jax {OTHER} is installed"), result.stderr


def test_mismatch_with_a_jax_older_than_any_stubs(tmp_path: Path) -> None:
    env = environment_with_jax("0.4.30", tmp_path / "site")
    (tmp_path / "a.py").write_text(USES_JAX)
    result = run_mypy(tmp_path, "a.py", cache=tmp_path / "cache", env=env)
    assert report_lines(result.stdout) == expected_report("a.py", 1, jax="0.4.30")
    assert "predates Array.to_device" in result.stdout


def test_mismatch_with_a_jax_that_is_not_a_release(tmp_path: Path) -> None:
    env = environment_with_jax("0.10.3.dev20261130", tmp_path / "site")
    (tmp_path / "a.py").write_text(USES_JAX)
    result = run_mypy(tmp_path, "a.py", cache=tmp_path / "cache", env=env)
    assert report_lines(result.stdout) == expected_report("a.py", 1, jax="0.10.3.dev20261130")
    assert "is not a release" in result.stdout and "jax-stubs==0.10.3" not in result.stdout


@pytest.mark.parametrize(
    ("jax", "says", "suggested"),
    [
        ("99.0.0", "no jax-stubs release describes jax 99.0.0 yet", max(releases.RELEASES, key=parse_version)),
        ("0.4.32", "jax 0.4.32 is not among the releases this package knows", "0.4.31"),
    ],
)
def test_check_of_a_jax_no_stubs_describe_prints_a_command_that_exists(jax: str, says: str, suggested: str, tmp_path: Path) -> None:
    """A JAX newer than every release of ``install/releases.py`` gets the newest JAX that has
    stubs; one the table lacks (0.4.32 was withdrawn), the nearest older release, which needs no
    newer Python; neither gets an "install jax-stubs==<it>" that cannot work."""
    env = environment_with_jax(jax, tmp_path / "site")
    result = check(cwd=tmp_path, env=env)
    assert result.returncode == 1, result.stdout
    [note] = [line for line in result.stdout.splitlines() if says in line]
    assert suggested in releases.RELEASES
    assert note.endswith(f'-m pip install "jax=={suggested}"') and f"jax-stubs=={jax}" not in result.stdout, note


def test_the_release_table_holds_this_release_in_order() -> None:
    assert STUBS in releases.RELEASES
    assert list(releases.RELEASES) == sorted(releases.RELEASES, key=parse_version)
    assert all(requires.startswith(">=3.") for requires in releases.RELEASES.values())


def test_matching_release_reports_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(USES_JAX)
    result = run_mypy(tmp_path, "a.py")
    assert result.returncode == 0 and result.stderr == "", result.stdout + result.stderr


def test_the_daemon_keeps_the_mismatch_across_edits(tmp_path: Path) -> None:
    env = environment_with_jax(OTHER, tmp_path / "site")
    (tmp_path / "a.py").write_text(DECORATOR_FIRST)
    (tmp_path / "b.py").write_text("import b_helper\n")
    (tmp_path / "b_helper.py").write_text("x = 1\n")
    daemon = Daemon(tmp_path, cache=shared_cache(tmp_path / "cache"), env=env)
    try:
        first = daemon.check("a.py", "b.py")
        assert report_lines(first.stdout) == expected_report("a.py", 1), first.stdout + first.stderr
        (tmp_path / "a.py").write_text(DECORATOR_FIRST + "w = jnp.ones(2)\n")  # the carrier re-checked
        assert report_lines(daemon.check("a.py", "b.py").stdout) == expected_report("a.py", 1)
        (tmp_path / "b_helper.py").write_text("x = 2\n")  # another module re-checked
        assert report_lines(daemon.check("a.py", "b.py").stdout) == expected_report("a.py", 1)
    finally:
        daemon.stop()


def test_versions_are_read_where_mypy_reads_packages(tmp_path: Path) -> None:
    """``--python-executable`` points mypy at another environment's packages: the plugin reads
    JAX's and the stubs' versions there too, not where mypy itself is installed."""
    without_jax = linked_environment(tmp_path / "env", leave_out=JAX)
    (tmp_path / "a.py").write_text("import jax\n" + USES_JAX + "y.to_device(jax.devices()[0], stream=0)\n")
    missing = PREFIX + messages.jax_not_installed(str(STUBS), Installer(str(without_jax), True).install(f"jax=={STUBS}"))

    # mypy beside JAX, checking against an environment without it.
    result = run_mypy(tmp_path, "--python-executable", str(without_jax), "a.py", cache=tmp_path / "cache")
    assert missing in result.stderr.splitlines(), result.stderr
    # mypy in the environment without JAX, checking against this one, which has it.
    result = run_mypy(tmp_path, "--python-executable", str(PYTHON), "a.py", python=without_jax)
    assert result.stderr == "", result.stderr
    assert result.returncode == 1 and "[jax-to-device-stream]" in result.stdout, result.stdout


def check(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "jax-stubs"), "check", *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_check_command_looks_where_told(tmp_path: Path) -> None:
    without_jax = linked_environment(tmp_path / "env", leave_out=JAX)
    result = check("--python-executable", str(without_jax), cwd=tmp_path)
    assert result.returncode == 1 and "jax: (not installed)" in result.stdout, result.stdout
    result = check("--python-executable", str(tmp_path / "no-such-python"), cwd=tmp_path)
    assert result.returncode == 1 and result.stderr == "", result.stderr
    assert result.stdout.startswith(f"error: cannot read the environment of {tmp_path / 'no-such-python'}: ")


def test_check_command_needs_no_mypy(tmp_path: Path) -> None:
    """A pyright user has no mypy: the command reads another environment without it."""
    no_mypy = linked_environment(tmp_path / "env", leave_out={"mypy", "mypyc"})
    result = subprocess.run(
        [str(no_mypy), "-m", "mypy_plugin", "check", "--python-executable", str(PYTHON)], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout.endswith("ok: the stubs describe the installed jax\n"), result.stdout + result.stderr


@pytest.mark.parametrize("jax_version", [OTHER, STUBS])
def test_check_command(tmp_path: Path, jax_version: str) -> None:
    env = environment_with_jax(str(jax_version), tmp_path / "site")
    result = check(cwd=tmp_path, env=env)
    assert f"stubs for jax {STUBS}" in result.stdout and f"jax: {jax_version}" in result.stdout
    if jax_version == STUBS:
        assert result.returncode == 0 and "ok:" in result.stdout
    else:
        assert result.returncode == 1
        other = with_jax(OTHER)
        assert result.stdout.splitlines()[2].startswith("lint's shared analysis of JAX: "), result.stdout
        assert result.stdout.splitlines()[3:] == [f"error: {other.mismatch_error()}", *(f"note: {note}" for note in other.mismatch_notes())]


@pytest.mark.parametrize("shadow", ["mypy_plugin.py", "mypy_plugin/__init__.py"])
def test_check_command_warns_of_a_shadowing_module(tmp_path: Path, shadow: str) -> None:
    """``python -m mypy`` run from a folder with its own mypy_plugin loads that one instead."""
    (tmp_path / shadow).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / shadow).write_text("def plugin(version): ...\n")
    result = check(cwd=tmp_path)
    assert result.returncode == 1
    assert f"error: {messages.shadowed_plugin(tmp_path / shadow, 'python -m mypy run in this folder')}" in result.stdout.splitlines()


def test_check_command_in_a_checkout_of_this_release(tmp_path: Path) -> None:
    """A clone of this repository holds this release's own source: a note, and the check passes."""
    import mypy_plugin

    shutil.copytree(Path(mypy_plugin.__file__).parent, tmp_path / "mypy_plugin")
    result = check(cwd=tmp_path)
    note = messages.plugin_source_of_this_release(tmp_path / "mypy_plugin", "python -m mypy run in this folder", mypy_plugin.__version__)
    assert result.returncode == 0, result.stdout
    assert f"note: {note}" in result.stdout.splitlines()
    # The same folder with another release's version is another module to mypy.
    init = tmp_path / "mypy_plugin" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{mypy_plugin.__version__}"', '"0.0.0.0"'))
    assert check(cwd=tmp_path).returncode == 1


def test_help_describes_every_command_in_whole_sentences() -> None:
    result = subprocess.run([str(BIN / "jax-stubs"), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    described = dict(re.findall(r"(?m)^    (\w+)  +(\S.*)$", result.stdout))
    assert set(described) == {"check", "lint", "lsp", "rule"} and all(described.values()), result.stdout
    endings = {
        "check": "with the command that fixes it.",
        "lint": "in pyproject.toml.",
        "lsp": "Needs jax-stubs[lsp].",
        "rule": "list the codes.",
    }
    for command, ending in endings.items():
        own = subprocess.run([str(BIN / "jax-stubs"), command, "--help"], capture_output=True, text=True)
        description = " ".join(own.stdout.split("\n\n")[1].split())
        assert own.returncode == 0 and description.endswith(ending), own.stdout


def test_installer_commands_run_as_printed() -> None:
    assert Installer("/env/bin/python", True).install("jax-stubs==0.9.2.0") == '/env/bin/python -m pip install "jax-stubs==0.9.2.0"'
    assert Installer("/my env/python", False).install("jax==1") == "uv pip install --python '/my env/python' \"jax==1\""
    assert Installer("/p", True).install("x", reinstall=True) == '/p -m pip install --force-reinstall --no-deps "x"'


@pytest.mark.parametrize("entry", ["mypy_plugin", "mypy_plugin.typed_jit"])
def test_too_old_mypy_gets_one_line_and_a_plugin_that_does_nothing(entry: str, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    from mypy.plugin import Plugin

    from mypy_plugin.main import JaxStubsPlugin

    module = importlib.import_module(entry)
    assert module.plugin("1.18.2") is Plugin
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(PREFIX + "mypy 1.18.2 is older than 1.19")
    assert f'{PYTHON} -m pip install "mypy>=1.19,<2.5"' in err
    for supported in ["1.19.0+dev.abc", "2.4.1"]:
        assert issubclass(module.plugin(supported), JaxStubsPlugin)


def test_install_page_shows_the_mismatch_report_as_it_is() -> None:
    readme = (Path(__file__).resolve().parent.parent / "docs" / "install.md").read_text()
    shown = Diagnosis(
        jax="0.9.2", stubs="0.10.2", distribution="0.10.2.0", folder=None, missing=(), installer=Installer(".venv/bin/python", True)
    )
    assert f"train.py:1: error: {shown.mismatch_error()}  {CODE}" in readme
    for note in shown.mismatch_notes():
        assert f"train.py:1: note: {note}" in readme
