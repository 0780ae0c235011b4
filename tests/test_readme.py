"""What the README recommends works as printed: every Python block runs under JAX on the CPU
and type-checks without an error in mypy (plugin on) and in the four other checkers."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from checkers import CHECKERS, PYREFLY_CONFIG, Diagnostic, run
from mypy_runs import PYTHON, run_mypy

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
CANARY = "import jax.numpy as jnp\n\nwrong: int = jnp.zeros(3)\n"
"""Checked beside the blocks: its one error shows that a checker read the folder and JAX."""


@pytest.fixture(scope="module")
def blocks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The blocks as ``block_<n>.py`` in one folder that every checker reads."""
    root = tmp_path_factory.mktemp("readme").resolve()
    for index, block in enumerate(BLOCKS):
        (root / f"block_{index}.py").write_text(block, encoding="utf-8")
    (root / "canary.py").write_text(CANARY)
    (root / "pyrefly.toml").write_text(PYREFLY_CONFIG)
    return root


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_block_runs(index: int, blocks: Path) -> None:
    result = subprocess.run(
        [str(PYTHON), f"block_{index}.py"],
        cwd=blocks,
        capture_output=True,
        text=True,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )
    assert result.returncode == 0, BLOCKS[index] + result.stderr[-3000:]


def test_blocks_pass_mypy_with_the_plugin(blocks: Path) -> None:
    result = run_mypy(blocks, "canary.py", *(f"block_{index}.py" for index in range(len(BLOCKS))))
    errors = [line for line in result.stdout.splitlines() if ": error: " in line]
    assert [line.split(":")[:2] for line in errors] == [["canary.py", "3"]], result.stdout + result.stderr
    assert result.stderr == "", result.stderr


@pytest.mark.parametrize("name", CHECKERS)
def test_blocks_have_no_error_in(name: str, blocks: Path) -> None:
    diagnostics: list[Diagnostic] = run(CHECKERS[name], PYTHON, blocks)
    errors = [d for d in diagnostics if d.severity == "error"]
    assert [(d.file, d.line) for d in errors] == [("canary.py", 3)], "\n".join(map(str, errors))
