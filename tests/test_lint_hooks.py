"""``jax-stubs lint`` where projects run their checks: pre-commit (the hook this checkout
defines, tried with ``pre-commit try-repo``, and the hooks of ``docs/lint.md`` as printed) and notebooks
through nbQA, each on a temporary git repository holding the module ported from NumPy of
``tests/lint`` and a notebook. pre-commit installs into environments of its own, from the
package index and the wheel under test (``PIP_FIND_LINKS``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cases import PORTED_FROM_NUMPY, marked_misuses
from environments import built_wheels
from mypy_runs import BIN

from mypy_plugin.install.compat import COMPATIBLE_MYPY

REPO = Path(__file__).resolve().parent.parent
JAX_RELEASE = (REPO / "jax_stubs" / "JAX_VERSION").read_text().strip()
README_HOOKS = re.search(r"```yaml\n(repos:\n  - repo: local\n.*?)```", (REPO / "docs" / "lint.md").read_text(), re.DOTALL)
CELLS = [
    ["import jax\n", "import jax.numpy as jnp\n"],
    ["%matplotlib inline\n", "window = jnp.ones(3)\n", "window[0] = 0.0\n"],
    ["values = jnp.arange(3.0)\n", "values.sort()\n", "values = values.sort()\n"],
    ["shown = jnp.arange(3.0)\n", "shown.sort()\n"],  # the cell's value: shown, not thrown away
]
NOTEBOOK_REPORTS = [
    'smooth.ipynb:cell_2:3:1: error: "Array" does not support item assignment',
    'smooth.ipynb:cell_3:2:1: error: Result of "values.sort" is discarded',
]


def notebook(cells: list[list[str]]) -> str:
    code: list[dict[str, object]] = [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": cell} for cell in cells
    ]
    return json.dumps(
        {
            "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Smoothing\n"]}, *code],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with the ported module and a notebook, staged (pre-commit's
    ``--all-files`` checks what git tracks)."""
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(PORTED_FROM_NUMPY, folder / PORTED_FROM_NUMPY.name)
    (folder / "smooth.ipynb").write_text(notebook(CELLS))
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(["git", "add", "."], cwd=folder, check=True)
    return folder


def pre_commit(project: Path, *args: str, home: Path, find_links: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "JAX_PLATFORMS": "cpu"}
    if find_links is not None:
        env["PIP_FIND_LINKS"] = str(find_links)
    return subprocess.run([str(BIN / "pre-commit"), *args], cwd=project, env=env, capture_output=True, text=True, timeout=1800)


def reported_codes(output: str) -> list[str]:
    return re.findall(r"^\S+\.py:\d+:\d+: error: .*  \[(jax-[\w-]+)\]$", output, re.MULTILINE)


def marked_codes() -> list[str]:
    return [code for _, code in marked_misuses()]


def test_the_hook_of_this_checkout(project: Path, tmp_path: Path) -> None:
    """``pre-commit try-repo`` installs this checkout with the JAX its stubs describe."""
    manifest = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert f'"jax=={JAX_RELEASE}"' in manifest and f'"{COMPATIBLE_MYPY}"' in manifest
    result = pre_commit(project, "try-repo", str(REPO), "jax-stubs", "--all-files", home=tmp_path / "home")
    output = result.stdout + result.stderr
    assert result.returncode == 1 and "jax-stubs lint" in output and "Failed" in output, output
    assert reported_codes(output) == marked_codes(), output
    assert "cell_" not in output, "the Python hook leaves notebooks to nbQA"


def test_the_readme_hooks_as_printed(project: Path, tmp_path: Path) -> None:
    """The documented hooks install the user's JAX and the matching stubs (here the wheel under
    test, found through ``PIP_FIND_LINKS`` as on a private index) and report in modules and in
    notebook cells."""
    assert README_HOOKS is not None, "docs/lint.md shows the hooks"
    (project / ".pre-commit-config.yaml").write_text(README_HOOKS.group(1))
    subprocess.run(["git", "add", ".pre-commit-config.yaml"], cwd=project, check=True)
    wheels = built_wheels(tmp_path / "wheels")
    result = pre_commit(project, "run", "--all-files", home=tmp_path / "home", find_links=wheels)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert reported_codes(output) == marked_codes(), output
    for report in NOTEBOOK_REPORTS:
        assert report in output, output
    assert "cell_4" not in output, "a cell's last value is shown, not thrown away"


def nbqa(folder: Path, command: str) -> subprocess.CompletedProcess[str]:
    """nbQA running ``command`` on ``smooth.ipynb``, as ``docs/lint.md`` shows it."""
    return subprocess.run(
        [str(BIN / "nbqa"), command, "--nbqa-shell", "smooth.ipynb"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
    )


def test_nbqa_maps_each_report_to_its_cell(tmp_path: Path) -> None:
    (tmp_path / "smooth.ipynb").write_text(notebook(CELLS))
    result = nbqa(tmp_path, "jax-stubs lint")
    assert result.returncode == 1, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if ": error: " in line]
    assert len(errors) == len(NOTEBOOK_REPORTS), result.stdout
    for report, line in zip(NOTEBOOK_REPORTS, errors):
        assert line.startswith(report), line
    assert result.stdout.splitlines()[-2].startswith(f"Found {len(NOTEBOOK_REPORTS)} JAX errors in 1 file")
    assert result.stdout.splitlines()[-1] == "2 more with --fix --unsafe-fixes"


def test_nbqa_fixes_a_notebook_in_its_cells(tmp_path: Path) -> None:
    (tmp_path / "smooth.ipynb").write_text(notebook(CELLS))
    result = nbqa(tmp_path, "jax-stubs lint --fix --unsafe-fixes")
    assert result.stdout.splitlines()[-1] == "Fixed 2 JAX errors in 1 file", result.stdout + result.stderr
    cells = ["".join(cell["source"]) for cell in json.loads((tmp_path / "smooth.ipynb").read_text())["cells"]]
    assert cells[1:] == [
        "import jax\nimport jax.numpy as jnp",
        "%matplotlib inline\nwindow = jnp.ones(3)\nwindow = window.at[0].set(0.0)",
        "values = jnp.arange(3.0)\nvalues = values.sort()\nvalues = values.sort()",
        "shown = jnp.arange(3.0)\nshown.sort()",
    ], "the fixes reach their cells, the magic and the shown value stay"
