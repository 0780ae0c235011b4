"""Every stub-reading checker reports each misuse, and the stubs change nothing else it says.

One folder of samples is checked once per checker with the stubs installed and once in an
environment without them:

- the misuse samples are the YAML cases whose misuse mypy reports and whose stream has a
  concrete type (the runtime-truth test runs them all under JAX and sees them raise);
- the regression samples are ordinary JAX code (``tests/checkers/regression``, also run under
  JAX here) and every YAML case without a misuse.

The stubs may add exactly one error per misuse sample, on the misuse line, and nothing else.
"""

from __future__ import annotations

import hashlib
import runpy
import shutil
from pathlib import Path

import pytest
from cases import Case, load_cases
from checkers import CHECKERS, PYREFLY_CONFIG, Diagnostic, run
from environments import OUR_PACKAGE, linked_environment
from mypy_runs import PYTHON

REGRESSION = Path(__file__).parent / "checkers" / "regression"


def concrete_misuse(case: Case) -> bool:
    return case.seen_by_stubs


def sample_cases() -> tuple[list[Case], list[Case]]:
    # Extra files, silenced misuses and "type: ignore" comments mean different things per checker.
    usable = [c for c in load_cases() if not c.files and not c.runtime_reason and "type: ignore" not in c.main]
    misuse = [c for c in usable if concrete_misuse(c)]
    regression = [c for c in usable if not concrete_misuse(c)]
    return misuse, regression


MISUSE, REGRESSION_CASES = sample_cases()


def file_name(case: Case) -> str:
    """A module name for the case: its name, cut short, and a digest that keeps it unique."""
    readable = "".join(ch if ch.isalnum() else "_" for ch in case.name).strip("_")[:80]
    return f"case_{readable}_{hashlib.sha256(case.name.encode()).hexdigest()[:10]}.py"


@pytest.fixture(scope="session")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("samples").resolve()
    for case in MISUSE + REGRESSION_CASES:
        (root / file_name(case)).write_text(case.main)
    for sample in REGRESSION.glob("*.py"):
        shutil.copy(sample, root / sample.name)
    (root / "pyrefly.toml").write_text(PYREFLY_CONFIG)
    return root


@pytest.fixture(scope="session")
def without_stubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return linked_environment(tmp_path_factory.mktemp("env-without-stubs"), leave_out=OUR_PACKAGE)


@pytest.fixture(scope="session")
def outputs(samples: Path, without_stubs: Path) -> dict[str, tuple[list[Diagnostic], list[Diagnostic]]]:
    """Each checker's diagnostics on the samples: (with the stubs, without them)."""
    return {name: (run(checker, PYTHON, samples), run(checker, without_stubs, samples)) for name, checker in CHECKERS.items()}


@pytest.mark.parametrize("name", CHECKERS)
def test_stubs_add_one_error_per_misuse_and_nothing_else(name: str, outputs: dict[str, tuple[list[Diagnostic], list[Diagnostic]]]) -> None:
    with_stubs, without = outputs[name]
    added = [d for d in with_stubs if d not in without]
    removed = [d for d in without if d not in with_stubs]
    assert removed == [], "the stubs must not hide anything the checker said"
    expected = sorted((file_name(c), c.misuse_lines[0]) for c in MISUSE)
    assert sorted((d.file, d.line) for d in added) == expected, "\n".join(map(str, added))
    for diagnostic in added:
        assert diagnostic.severity == CHECKERS[name].error
        assert "stream" in diagnostic.message or "None" in diagnostic.message, str(diagnostic)


@pytest.mark.parametrize("name", CHECKERS)
def test_regression_samples_are_checked(name: str, outputs: dict[str, tuple[list[Diagnostic], list[Diagnostic]]], samples: Path) -> None:
    """The comparison means something only if the checker really read the samples."""
    with_stubs, _ = outputs[name]
    assert any(d.file.startswith("case_") for d in with_stubs)
    assert len({p.name for p in samples.glob("*.py")}) == len(MISUSE) + len(REGRESSION_CASES) + len(list(REGRESSION.glob("*.py")))


@pytest.mark.parametrize("sample", sorted(p.name for p in REGRESSION.glob("*.py")))
def test_regression_sample_runs_under_jax(sample: str) -> None:
    runpy.run_path(str(REGRESSION / sample), run_name="__main__")


def test_samples_cover_the_misuse_shapes() -> None:
    assert len(MISUSE) >= 30 and len(REGRESSION_CASES) >= 5
