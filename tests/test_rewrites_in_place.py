"""Every rewrite a rule prints type-checks and runs where it is written.

mypy checks every YAML case (``tests/typecheck``) once, and each rewrite its notes print (the
``.at[]`` form, the ``jnp.where`` form) is written in place of the reported statement, with the
imports the note says it needs on the same line. Then:

1. mypy with the plugin reports nothing on that line (every rewritten case in one run);
2. where the reported line is a real misuse (it raises under JAX, or runs and throws its
   update away), the rewritten case runs, and the updated array, read where the note says it is
   (``then use "t_updated" for "t"``), equals what NumPy's in-place statement leaves in that
   place: the original case run with ``jax.numpy`` replaced by NumPy, the target read right
   after the statement. For a discarded update, NumPy's in-place statement is the one the JAX
   call stands for (``numpy_in_place``), and it must change the array: otherwise nothing was
   lost.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import jax
import numpy as np
import pytest
from cases import (
    KEEP,
    RULES,
    SNAPSHOT,
    Case,
    assigned_array,
    in_place_of_statement,
    load_cases,
    probes,
    reported_statement,
    run_snippet,
    updated_by_at,
)
from mypy_runs import assert_no_crash, run_mypy

CASES = load_cases()
NOTE = re.compile(
    r"^(?P<module>case_\d+)\.py:(?P<line>\d+): note: "
    r'(?:Use "\.at\[\]", which returns an updated copy(?:; .*, so keep it under a new name)?: '
    r"|Under jax\.jit a boolean mask cannot index; for a scalar value write "
    r'|(?:Pass "inplace=False" and use the array it returns|Or write the update with "\.at\[\]"'
    r"|Assign the (?:updated|sorted) copy)"
    r"(?:; .*, so keep it under a new name)?: )"
    r'"(?P<statement>.*?)"(?:, then use "(?P<new>[^"]+)" for "(?P<old>[^"]+)")?(?: \(needs (?P<imports>.*)\))?$',
    re.MULTILINE,
)
ERROR = re.compile(r"^(?P<module>case_\d+_\d+)\.py:(?P<line>\d+): error: (?P<message>.*)$", re.MULTILINE)
NO_NUMPY_RUN = {
    "test_item_assignment::item_assignment_inside_jit": "under jax.jit the function receives tracers, not NumPy arrays",
    "test_item_assignment::item_assignment_inside_vmap": "under jax.vmap the function receives tracers, not NumPy arrays",
    "test_rewrite_places::rewrite_of_a_mask_without_jax_numpy_imported": "its array comes from jax.random",
    "test_jit_boundary::typed_result_item_assignment": "its array comes out of a jitted function, a JAX array",
    "test_numpy_arguments::place_inplace_true": "NumPy's place has no inplace parameter",
    "test_discarded_update::discarded_update_inside_jit": "under jax.jit the function receives tracers, not NumPy arrays",
    "test_discarded_update::discarded_update_inside_vmap": "under jax.vmap the function receives tracers, not NumPy arrays",
}
"""Cases whose original statement cannot run on NumPy arrays: their rewrite runs, uncompared."""


@dataclass(frozen=True)
class Rewrite:
    """One printed rewrite of one case, and the case written with it."""

    case: Case
    line: int
    statement: str
    imports: tuple[str, ...]
    renamed: tuple[str, str] | None
    module: str

    @property
    def name(self) -> str:
        return f"{self.case.name}:{self.line}:{self.statement}"

    @property
    def target(self) -> str:
        """The array the original statement changes, as source (``x``, ``p.b``, ``x.T``)."""
        return ast.unparse(assigned_array(reported_statement(self.case.main, self.line)))

    @property
    def updated(self) -> str:
        """Where the updated array is after the rewrite: the target, or the new name for it."""
        if self.renamed is None:
            return self.target
        new, old = self.renamed
        assert self.target.startswith(old), (self.target, old)
        return new + self.target[len(old) :]

    def written(self, *, probe: bool = False) -> str:
        """The case with the rewrite in place of the reported statement."""
        code = "; ".join([*self.imports, self.statement] + ([f"{SNAPSHOT}({self.updated})"] if probe else []))
        return in_place_of_statement(self.case.main, self.line, code)

    @property
    def discards(self) -> bool:
        """Whether the reported statement runs and throws its update away."""
        return any(line == self.line and rule.exception is None for line, rule in self.case.misuses)

    def numpy_original(self) -> str:
        """The case as written (for a discarded update, the NumPy statement it stands for),
        taking snapshots of the target right before and right after the statement."""
        statement = reported_statement(self.case.main, self.line)
        original = numpy_in_place(statement) if self.discards else ast.get_source_segment(self.case.main, statement) or ""
        return in_place_of_statement(self.case.main, self.line, f"{KEEP}({self.target}); {SNAPSHOT}(); {original}; {SNAPSHOT}()")


NUMPY = "__import__('numpy')"
UFUNCS = {
    "add": "add",
    "subtract": "subtract",
    "mul": "multiply",
    "multiply": "multiply",
    "divide": "divide",
    "power": "power",
    "min": "minimum",
    "max": "maximum",
}
"""The NumPy ufunc whose ``at`` does in place what each ``.at[]`` method returns."""


def numpy_in_place(statement: ast.stmt) -> str:
    """NumPy's in-place statement for a discarded JAX update: ``x[i] = v`` for
    ``x.at[i].set(v)``, ``np.add.at(x, np.s_[i], v)`` for ``x.at[i].add(v)`` (repeated indices
    accumulate, as in JAX), ``x[i] = f(x[i])`` for ``.apply(f)``; ``x.sort()`` and the in-place
    functions as written, less ``inplace=``."""
    assert isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
    call = statement.value
    at = updated_by_at(call)
    if at is None:
        kept = [keyword for keyword in call.keywords if keyword.arg != "inplace"]
        return ast.unparse(ast.Call(call.func, call.args, kept))
    array, index, method = (ast.unparse(part) if isinstance(part, ast.AST) else part for part in at)
    [value] = [ast.unparse(argument) for argument in call.args]
    if method == "set":
        return f"{array}[{index}] = {value}"
    if method == "apply":
        return f"{array}[{index}] = ({value})({array}[{index}])"
    return f"{NUMPY}.{UFUNCS[method]}.at({array}, {NUMPY}.s_[{index}], {value})"


def groups() -> dict[str, list[int]]:
    """The cases by their mypy configuration (cases that bring files of their own are left out:
    none of them prints a rewrite, and their files would meet in one folder)."""
    found: dict[str, list[int]] = {}
    for index, case in enumerate(CASES):
        if not case.files:
            found.setdefault(case.config, []).append(index)
    return found


def rewrites_in(folder: Path) -> list[Rewrite]:
    """Every rewrite the notes print for the cases that apply here: read from each case's
    expected output, which ``tests/typecheck`` holds to what mypy with the plugin prints, or,
    for a case whose output is a pattern (it differs by JAX release), from one mypy run per
    configuration of those cases."""
    printed: dict[str, list[str]] = {}
    for config, indexes in groups().items():
        patterned = [index for index in indexes if CASES[index].regex and not CASES[index].skipped]
        if patterned:
            group = folder / f"group_{patterned[0]}"
            group.mkdir()
            for index in patterned:
                (group / f"case_{index}.py").write_text(CASES[index].main, encoding="utf-8")
            result = run_mypy(group, *(f"case_{index}.py" for index in patterned), plugin=False, extra=config)
            assert_no_crash(result)
            printed[config] = result.stdout.splitlines()
        for index in indexes:
            if not CASES[index].regex and not CASES[index].skipped:
                expected = [f"case_{index}.py:{line[len('main:') :]}" for line in CASES[index].out_lines if line.startswith("main:")]
                printed.setdefault(config, []).extend(expected)
    found: list[Rewrite] = []
    for config, lines in printed.items():
        for match in NOTE.finditer("\n".join(lines)):
            index = int(match["module"].split("_")[1])
            imports = tuple(re.findall(r'"([^"]+)"', match["imports"] or ""))
            renamed = (match["new"], match["old"]) if match["new"] else None
            found.append(Rewrite(CASES[index], int(match["line"]), match["statement"], imports, renamed, config))
    return found


@pytest.fixture(scope="module")
def rewrites(tmp_path_factory: pytest.TempPathFactory) -> list[Rewrite]:
    return rewrites_in(tmp_path_factory.mktemp("originals"))


@pytest.fixture(scope="module")
def errors_on_rewritten_lines(rewrites: list[Rewrite], tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[str]]:
    """mypy's errors on each rewritten line, by the rewrite's position in ``rewrites``."""
    folder = tmp_path_factory.mktemp("rewritten")
    found: dict[int, list[str]] = {index: [] for index in range(len(rewrites))}
    for config in {rewrite.module for rewrite in rewrites}:
        group = folder / f"group_{len(list(folder.iterdir()))}"
        group.mkdir()
        names = []
        for index, rewrite in enumerate(rewrites):
            if rewrite.module == config:
                names.append(f"case_{index}_0.py")
                (group / names[-1]).write_text(rewrite.written(), encoding="utf-8")
        result = run_mypy(group, *names, plugin=False, extra=config)
        assert_no_crash(result)  # a rule that crashed would report nothing: the line would look clean
        for match in ERROR.finditer(result.stdout):
            index = int(match["module"].split("_")[1])
            if int(match["line"]) == rewrites[index].line:
                found[index].append(match["message"])
    return found


def test_rewrites_are_found(rewrites: list[Rewrite]) -> None:
    """The notes of the YAML cases print rewrites, of every kind the places module knows."""
    statements = [rewrite.statement for rewrite in rewrites]
    assert len(rewrites) >= 60
    for form in ["._replace(", ".replace(", " = (", "_updated = ", ".where(", ".at[0].set(1.0).at[1]", "inplace=False)", ".add("]:
        assert any(form in statement for statement in statements), form
    assert any(rewrite.imports for rewrite in rewrites)


def test_every_rewrite_type_checks_in_place(rewrites: list[Rewrite], errors_on_rewritten_lines: dict[int, list[str]]) -> None:
    wrong = {rewrites[index].name: messages for index, messages in errors_on_rewritten_lines.items() if messages}
    assert not wrong


@contextmanager
def numpy_for_jax_numpy() -> Iterator[None]:
    """``jax.numpy`` is NumPy while the block runs: the case's arrays are NumPy's, mutable."""
    saved = sys.modules["jax.numpy"], jax.numpy
    sys.modules["jax.numpy"] = np
    jax.numpy = np
    try:
        yield
    finally:
        sys.modules["jax.numpy"], jax.numpy = saved


def real_misuse(rewrite: Rewrite) -> bool:
    """Whether the reported line is a misuse under JAX: it raises, or runs and throws its
    update away (not a Pallas ref)."""
    return any(line == rewrite.line and rewrite.case.runtime in (None, rule.exception) for line, rule in rewrite.case.misuses)


def test_every_rewrite_runs_as_numpy_does(rewrites: list[Rewrite], tmp_path: Path) -> None:
    compared, failures = set(), []
    for index, rewrite in enumerate(rewrites):
        if not real_misuse(rewrite):
            continue
        folder = tmp_path / f"case_{index}"
        folder.mkdir()
        with probes() as rewritten:
            error = run_snippet(rewrite.case, folder, rewrite.written(probe=True))
        if error is not None or not rewritten.snapshots:
            failures.append(f"{rewrite.name}: raised {error!r}")
            continue
        with numpy_for_jax_numpy(), probes() as on_numpy:
            run_snippet(rewrite.case, folder, rewrite.numpy_original())
        after_rewrite = rewritten.snapshots[0]
        if len(on_numpy.snapshots) < 2 or after_rewrite is None:
            if rewrite.case.name.split("[")[0] not in NO_NUMPY_RUN:
                failures.append(f"{rewrite.name}: the original did not run on NumPy arrays")
            continue
        before, after_numpy = on_numpy.snapshots[:2]
        if after_rewrite.shape != after_numpy.shape or not np.allclose(after_rewrite, after_numpy):
            failures.append(f"{rewrite.name}: {after_rewrite} after the rewrite, {after_numpy} with NumPy")
        if rewrite.discards and before.shape == after_numpy.shape and np.allclose(before, after_numpy):
            failures.append(f"{rewrite.name}: NumPy's in-place statement leaves {before} as it was: no update is lost")
        compared.add(rewrite.case.name)
    assert not failures, "\n".join(failures)
    assert len(compared) >= 50
    assert len({rewrite.case.name for rewrite in rewrites if rewrite.discards} & compared) >= 20
    unused = set(NO_NUMPY_RUN) - {rewrite.case.name.split("[")[0] for rewrite in rewrites}
    assert not unused, unused


def test_the_rule_of_every_rewrite_is_known(rewrites: list[Rewrite]) -> None:
    codes = {rule.code for rewrite in rewrites for line, rule in rewrite.case.misuses if line == rewrite.line}
    assert codes <= {rule.code for rule in RULES} and codes
