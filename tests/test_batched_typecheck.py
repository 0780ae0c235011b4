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
    plugins = mypy_plugin
    disable_error_code = jax-to-device-stream, jax-immutable-array
  main: |
    x: int = 1

- case: reporting_without_the_plugin
  mypy_config: |
    plugins = mypy_plugin
    disable_error_code = jax-to-device-stream, jax-immutable-array
  main: |
    x: int = "a"
  out: |
    main:1: error: Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]
"""
"""The first four cases with the plugin named in their configuration; the last two with it
named but both codes of the sentinel disabled, as if it had not loaded: the silent one fails."""


def test_batches_keep_the_verdicts(tmp_path: Path) -> None:
    (tmp_path / "test_cases.yml").write_text(CASES)
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
    assert "3 failed, 3 passed" in output, output
    assert "FAILED test_cases.yml::does_not_match" in output and "(diff)" in output, output
    assert "the plugin was not loaded" in output, output
    # The sentinel guards every case, those that expect reports too: mypy's own errors prove nothing.
    assert "FAILED test_cases.yml::silent_without_the_plugin" in output, output
    assert "FAILED test_cases.yml::reporting_without_the_plugin" in output, output
    assert "type-check cases: 5 in 2 mypy runs, 1 of them again alone (does_not_match)" in output, output
