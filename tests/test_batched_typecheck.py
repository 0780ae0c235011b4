"""The YAML cases checked in batches (``batched_typecheck.py``) keep pytest-mypy-plugins'
verdicts: a case that matches passes, one that does not fails with the usual report after a run
of its own, and a case with files of its own runs alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CASES = """\
- case: matches
  mypy_config: "plugins = mypy_plugin"
  main: |
    x: int = "a"
  out: |
    main:1: error: Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]

- case: does_not_match
  mypy_config: "plugins = mypy_plugin"
  main: |
    reveal_type(1)
  out: |
    main:1: note: Revealed type is "builtins.str"

- case: names_its_own_module
  mypy_config: "plugins = mypy_plugin"
  main: |
    class Layer: ...
    reveal_type(Layer())
  out: |
    main:2: note: Revealed type is "main.Layer"

- case: brings_a_file
  mypy_config: "plugins = mypy_plugin"
  main: |
    from helper import value
    x: str = value
  out: |
    main:2: error: Incompatible types in assignment (expression has type "int", variable has type "str")  [assignment]
  files:
    - path: helper.py
      content: |
        value = 1

- case: silent_without_the_plugin
  mypy_config: |
    plugins = {stand_in}
  main: |
    x: int = 1

- case: reporting_without_the_plugin
  mypy_config: |
    plugins = {stand_in}
  main: |
    x: int = "a"
  out: |
    main:1: error: Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]

- case: its_own_codes_disabled
  mypy_config: |
    plugins = mypy_plugin
    disable_error_code = jax-to-device-stream, jax-immutable-array
  main: |
    x: int = 1
"""
"""The first four cases with the plugin named in their configuration; the next two with a
stand-in of that name that reports nothing, as if the plugin had not loaded (both fail); the
last with the plugin and both codes of the sentinel disabled in the case's own section, which
leaves the sentinel's module alone (it passes)."""
STAND_IN = "from mypy.plugin import Plugin\n\n\ndef plugin(version: str) -> type[Plugin]:\n    return Plugin\n"
"""A plugin that loads and adds nothing, under a name that holds ``mypy_plugin``."""


def test_batches_keep_the_verdicts(tmp_path: Path) -> None:
    stand_in = tmp_path / "not_the_mypy_plugin.py"
    stand_in.write_text(STAND_IN)
    (tmp_path / "test_cases.yml").write_text(CASES.replace("{stand_in}", str(stand_in)))
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["batched_typecheck"]\n')
    (tmp_path / "base").mkdir()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:pytest-lsp",
            "-p",
            "no:asyncio",
            f"--mypy-testing-base={tmp_path / 'base'}",
            "--rootdir",
            str(tmp_path),
            "test_cases.yml",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(TESTS), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "3 failed, 4 passed" in output, output
    assert "FAILED test_cases.yml::does_not_match" in output and "(diff)" in output, output
    assert "the plugin was not loaded" in output, output
    # The sentinel guards every case, those that expect reports too: mypy's own errors prove nothing.
    assert "FAILED test_cases.yml::silent_without_the_plugin" in output, output
    assert "FAILED test_cases.yml::reporting_without_the_plugin" in output, output
    assert "type-check cases: 6 in 2 mypy runs, 1 of them again alone (does_not_match)" in output, output
