"""``jax-stubs lint --fix``, ``--unsafe-fixes`` and ``--diff`` from the installed wheel.

Every fix the lint sample (``tests/lint/ported_from_numpy.py``) and the YAML cases offer is
applied to a copy; then the copy is linted again (each fixed report gone, no report it did not
have) and run: a function or case that raised from the reported line now runs. A statement a fix
writes is the one the report's note quotes, whose result ``tests/test_rewrites_in_place.py``
compares with NumPy's in-place code. Comments on a fixed line stay.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cases import PORTED_FROM_NUMPY, Case, call_reported, load_cases, rule_for, run_snippet
from test_lint import ARGUMENTS, lint, sample_project

QUOTED = re.compile(r': "([^"]*(?:"[^"]*"[^"]*)*?)"$')
"""The statement a note quotes at its end: ``...: "x = x.at[0].set(1.0)"``."""


def json_reports(folder: Path, *args: str) -> list[dict[str, Any]]:
    done = lint(folder, "--output", "json", *args)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def kinds(reports: list[dict[str, Any]], file: str) -> Counter[tuple[str, str]]:
    return Counter((report["code"], report["message"]) for report in reports if report["file"] == file)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    """The lint sample in a project: its reports before, and the fixing run."""
    folder = sample_project(tmp_path_factory.mktemp("fix-sample"))
    before = json_reports(folder)
    return folder, before, lint(folder, "--fix", "--unsafe-fixes")


def test_the_sample_offers_safe_and_unsafe_fixes(sample: tuple[Path, list[dict[str, Any]], subprocess.CompletedProcess[str]]) -> None:
    _, before, _ = sample
    offered = {report["code"]: report["fix"]["safe"] for report in before if report["fix"] is not None}
    assert offered == {
        "jax-immutable-array": False,
        "jax-discarded-update": False,
        "jax-unsupported-argument": True,
        "jax-inplace-default": False,
    }


def test_fixes_applied_leave_no_fixed_report_and_bring_none(
    sample: tuple[Path, list[dict[str, Any]], subprocess.CompletedProcess[str]],
) -> None:
    folder, before, fixing = sample
    fixed = [report for report in before if report["fix"] is not None]
    assert fixing.returncode == 1, fixing.stdout + fixing.stderr  # the reports without a fix are left
    assert fixing.stdout.splitlines()[-1] == f"Fixed {len(fixed)} JAX errors in 1 file"
    after = json_reports(folder)
    name = PORTED_FROM_NUMPY.name
    assert kinds(after, name) == kinds(before, name) - kinds(fixed, name)
    lines = (folder / name).read_text(encoding="utf-8").splitlines()
    for report in fixed:
        line = lines[report["line"] - 1]
        assert line.rstrip().endswith(f"# {report['code']}"), "the comment on the fixed line stays"
        if not report["fix"]["safe"]:
            quoted = QUOTED.search(report["notes"][0])
            assert quoted is not None and line.strip().startswith(quoted.group(1) + "  #"), (line, report["notes"])


def test_the_fixed_sample_runs_where_it_raised(sample: tuple[Path, list[dict[str, Any]], subprocess.CompletedProcess[str]]) -> None:
    folder, before, _ = sample
    after = json_reports(folder)
    reported = {report["line"]: rule_for(report["code"], report["message"]) for report in after}
    returned, unreported = call_reported(folder / PORTED_FROM_NUMPY.name, reported, ARGUMENTS)
    fixed_lines = {report["line"] for report in before if report["fix"] is not None}
    assert len(unreported) == 4 + len(fixed_lines), "each fixed function now runs"
    assert float(returned["place_peaks"][1]) == 1.0, "the fixed jnp.put returns the updated array"


def test_safe_fixes_alone_and_the_diff(tmp_path: Path) -> None:
    shutil.copy(PORTED_FROM_NUMPY, tmp_path / PORTED_FROM_NUMPY.name)
    original = (tmp_path / PORTED_FROM_NUMPY.name).read_text(encoding="utf-8")
    diff = lint(tmp_path, "--diff")
    assert diff.returncode == 1, diff.stdout + diff.stderr
    assert (tmp_path / PORTED_FROM_NUMPY.name).read_text(encoding="utf-8") == original, "--diff changes nothing"
    changed = [line for line in diff.stdout.splitlines() if line.startswith(("-", "+")) and not line.startswith(("---", "+++"))]
    assert changed == [
        '-    return jnp.sort(jnp.asarray(signal), kind="mergesort")  # jax-unsupported-argument',
        "+    return jnp.sort(jnp.asarray(signal), stable=True)  # jax-unsupported-argument",
    ]
    assert diff.stdout.splitlines()[-1] == "Would fix 1 JAX error in 1 file"
    fixing = lint(tmp_path, "--fix")
    assert fixing.stdout.splitlines()[-1] == "Fixed 1 JAX error in 1 file; 3 more with --fix --unsafe-fixes", fixing.stdout
    assert lint(tmp_path, "--fix").stdout.splitlines()[-1] == "3 more with --fix --unsafe-fixes"


CASES = [case for case in load_cases() if not case.skipped and case.uses_plugin and not case.files and not case.mypy_config]


@pytest.fixture(scope="module")
def fixed_cases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], list[dict[str, Any]]]:
    """Every YAML case as a module of one project, its reports before, fixed, and after."""
    folder = tmp_path_factory.mktemp("fix-cases")
    for index, case in enumerate(CASES):
        (folder / f"case_{index}.py").write_text(case.main, encoding="utf-8")
    before = json_reports(folder)
    fixing = lint(folder, "--fix", "--unsafe-fixes")
    assert "left as it was" not in fixing.stderr, fixing.stderr
    return folder, before, json_reports(folder)


def test_every_fix_of_the_cases_leaves_no_fixed_report_and_runs(
    fixed_cases: tuple[Path, list[dict[str, Any]], list[dict[str, Any]]], tmp_path: Path
) -> None:
    folder, before, after = fixed_cases
    fixed = [report for report in before if report["fix"] is not None]
    offered = {"jax-immutable-array", "jax-discarded-update", "jax-unsupported-argument", "jax-traced-value", "jax-jit-call"}
    assert {report["code"] for report in fixed} >= offered
    for file in sorted({report["file"] for report in fixed}):
        assert kinds(after, file) == kinds(before, file) - kinds(fixed, file), file
        lines = (folder / file).read_text(encoding="utf-8").splitlines()
        for report in (found for found in fixed if found["file"] == file and not found["fix"]["safe"]):
            for edit in report["fix"]["edits"]:  # what a note quotes, written where the edit was
                assert any(f'"{edit["text"]}"' in note or f'"@{edit["text"]}"' in note for note in report["notes"]), report
                assert edit["text"] in lines[edit["line"] - 1], (file, report["notes"])
        case: Case = CASES[int(file.removeprefix("case_").removesuffix(".py"))]
        if len(case.misuses) == 1 and case.runtime is None:
            error = run_snippet(case, tmp_path, (folder / file).read_text(encoding="utf-8"))
            assert error is None, f"{case.name}, fixed, raised {error!r}"


def keyword_fix(line: int, column: int, end_line: int, end_column: int, name: str, new: str = "", value: str = "") -> dict[str, Any]:
    """A fix as the plugin records it: the call at the span (mypy's: columns in UTF-8 bytes)."""
    span = {"line": line, "column": column, "end_line": end_line, "end_column": end_column}
    return {"title": "", "safe": True, "edits": [{"kind": "keyword", **span, "text": new, "name": name, "value": value}]}


def decorator_fix(line: int, column: int, end_column: int, text: str) -> dict[str, Any]:
    """``@jax.jit`` rewritten, as the plugin records it (a setting made static)."""
    span = {"line": line, "column": column, "end_line": line, "end_column": end_column}
    return {"title": "", "safe": False, "edits": [{"kind": "expression", **span, "text": text, "name": "jax.jit", "value": ""}]}


STATIC = 'partial(jax.jit, static_argnames=("t",))'


@pytest.mark.parametrize(
    ("text", "fix", "expected"),
    [
        # a decorator rewritten: the comment after it and the function below stay
        (
            "@jax.jit  # compiled once\ndef f(x, t):\n    return x\n",
            decorator_fix(1, 1, 8, STATIC),
            f"@{STATIC}  # compiled once\ndef f(x, t):\n    return x\n",
        ),
        # the decorator is no longer the one checked: nothing applied
        ("@jax.vmap\ndef f(x, t):\n    return x\n", decorator_fix(1, 1, 9, STATIC), None),
        # a call over lines in a file with Windows line endings: found, the endings kept
        (
            'y = jnp.array(\r\n    x,\r\n    order="F",\r\n)\r\n',
            keyword_fix(1, 4, 4, 1, "order"),
            "y = jnp.array(\r\n    x,\r\n)\r\n",
        ),
        # a form feed ends no line for mypy or LibCST
        (
            '# one\x0c two\ny = jnp.sort(x, kind="stable")\n',
            keyword_fix(2, 4, 2, 30, "kind", "stable", "True"),
            "# one\x0c two\ny = jnp.sort(x, stable=True)\n",
        ),
        # a comment after the comma before the keyword dropped: left as it is
        ('y = jnp.array(\n    x,  # the data\n    order="F"\n)\n', keyword_fix(1, 4, 4, 1, "order"), None),
        # text that does not parse (an editor's buffer while typing): nothing applied
        ('y = jnp.sort(x, kind="stable"\n', keyword_fix(1, 4, 1, 29, "kind", "stable", "True"), None),
        # the node at the span is not the one checked (the text changed since): nothing applied
        ('y = jnp.sort(z, kind="stable")\nw = 1\n', keyword_fix(2, 4, 2, 30, "kind", "stable", "True"), None),
    ],
)
def test_fixes_apply_to_the_node_as_written_or_not_at_all(text: str, fix: dict[str, Any], expected: str | None) -> None:
    from mypy_plugin.lint import fixing

    assert fixing.applied(text, [fix]) == ((text, 0) if expected is None else (expected, 1))
