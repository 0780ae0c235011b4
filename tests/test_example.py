"""The README's demo: mypy reports the shipped example exactly as the README shows, the
example fails at run time on the line mypy reports, and the other checkers report nothing
else in it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checkers import CHECKERS, PYREFLY_CONFIG, run
from mypy_runs import BIN, PYTHON

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "ported_from_torch.py"


def mypy_on_examples() -> subprocess.CompletedProcess[str]:
    """The README's demo as printed: ``mypy examples/`` with this repository's configuration."""
    return subprocess.run(
        [str(BIN / "mypy"), "examples/"], cwd=REPO, capture_output=True, text=True
    )


def test_demo_output_is_what_the_readme_shows() -> None:
    result = mypy_on_examples()
    assert result.returncode == 1, result.stdout + result.stderr
    readme = (REPO / "README.md").read_text()
    shown = re.search(r"```\n(examples/ported_from_torch\.py:.*?)```", readme, re.DOTALL)
    assert shown is not None, "the README shows the demo's output"
    assert result.stdout == shown.group(1)
    assert result.stdout.count("[jax-to-device-stream]") == 2


def test_example_raises_where_mypy_reports() -> None:
    reported = [int(n) for n in re.findall(r"ported_from_torch\.py:(\d+): error", mypy_on_examples().stdout)]
    run = subprocess.run([str(PYTHON), str(EXAMPLE)], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.rstrip().endswith("NotImplementedError: stream argument of array.to_device()")
    raising = [int(n) for n in re.findall(rf'File "{re.escape(str(EXAMPLE))}", line (\d+)', run.stderr)]
    assert raising[-1] == reported[0]


@pytest.mark.parametrize("name", CHECKERS)
def test_other_checkers_report_only_the_concretely_typed_misuse(name: str, tmp_path: Path) -> None:
    """A stub-reading checker sees the stream typed ``int | None``, not the one typed ``Any``,
    and nothing else in the example is an error to it."""
    reported = re.findall(r'ported_from_torch\.py:(\d+): error: .*\(got "(.*?)"\)', mypy_on_examples().stdout)
    concrete = [int(line) for line, got in reported if got != "Any"]
    assert len(concrete) == 1 and len(reported) == 2, reported
    shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name)
    (tmp_path / "pyrefly.toml").write_text(PYREFLY_CONFIG)
    errors = [d for d in run(CHECKERS[name], PYTHON, tmp_path) if d.severity == "error"]
    assert [(d.file, d.line) for d in errors] == [(EXAMPLE.name, concrete[0])], "\n".join(map(str, errors))
