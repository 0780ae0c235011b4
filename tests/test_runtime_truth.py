"""Every YAML case runs under real JAX on the CPU, and the runtime agrees with the type check.

- a line reported as a misuse raises JAX's own exception for it (``tests/cases.py``, ``RULES``:
  ``NotImplementedError("stream argument of array.to_device()")``, ``TypeError("JAX arrays are
  immutable ...")``, the exception a ``jax-traced-*`` or ``jax-jit-*`` error names) from that
  very line, or, for a declaration no value can satisfy, from a call of it on a later line;
- a line reported as a discarded update runs, and the array it meant to update is the same
  before and after it (equal values; for a traced value, the same tracer);
- a case with no diagnostic runs to the end;
- anything else (another library's error, a silenced line, a Pallas ref annotated as an array)
  states its outcome in the case (``runtime:``) and, where the type check and the runtime
  disagree, says why (``runtime_reason:``).

The suite runs it on the CPU; ``benchmarks/accelerator.py`` runs it on a TPU or GPU, where a case
whose outcome differs there states it (``on_platform:``) and is checked against that.
"""

from __future__ import annotations

import ast
import re
import traceback
from pathlib import Path

import jax
import numpy as np
import pytest
from cases import (
    KEEP,
    PLATFORM_OUTCOME,
    PLATFORMS,
    RULES,
    SNAPSHOT,
    TYPECHECK,
    Case,
    assigned_array,
    in_place_of_statement,
    load_cases,
    probes,
    reported_statement,
    run_snippet,
)

CASES = load_cases()
PLATFORM = jax.default_backend()
"""Where the snippets run: ``cpu`` in the suite, ``tpu`` or ``gpu`` on an accelerator."""
UNCHANGED = "runs, changing nothing"
"""The outcome of a discarded update."""


def expected_outcome(case: Case) -> str:
    """``runs``, ``UNCHANGED`` or an exception class name, derived from the type check's output."""
    if case.misuses:
        [(_, rule)] = case.misuses
        if case.runtime == "runs":
            assert case.runtime_reason, "a reported line that runs needs a runtime_reason"
            return "runs"
        assert case.runtime in (None, rule.exception), "a reported misuse raises JAX's exception"
        return rule.exception or UNCHANGED
    if not case.out and case.runtime not in (None, "runs"):
        assert case.runtime_reason, "an accepted call that fails needs a runtime_reason"
    if case.runtime is None:
        assert not case.out, "a case with other diagnostics must state its runtime outcome"
        return "runs"
    return case.runtime


def lines_on_the_traceback(error: BaseException, main: Path) -> list[int]:
    """The lines of ``main`` on the traceback, outermost first."""
    return [f.lineno or 0 for f in traceback.extract_tb(error.__traceback__) if f.filename == str(main)]


def raising_line(error: BaseException, main: Path) -> int | None:
    """The last line of ``main`` on the traceback: where the snippet called into JAX."""
    lines = lines_on_the_traceback(error, main)
    return lines[-1] if lines else None


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_runtime_agrees_with_the_type_check(case: Case, tmp_path: Path) -> None:
    assert len(case.misuses) <= 1, "one misuse per case, so each one is run"
    if case.skipped:
        pytest.skip(case.skip_reason)
    case = case.on(PLATFORM)
    expected = expected_outcome(case)
    if expected == UNCHANGED:
        assert_unchanged(case, tmp_path)
        return
    error = run_snippet(case, tmp_path)
    if expected == "runs":
        assert error is None, f"accepted by the type check but raised {error!r}"
        return
    assert error is not None, f"expected {expected} at run time, but the snippet ran"
    subclasses = bool(case.misuses) and case.misuses[0][1].or_subclass
    instead = dict(case.misuses[0][1].or_instead) if case.misuses else {}
    raised = [kind.__name__ for kind in type(error).__mro__] if subclasses else [type(error).__name__]
    assert expected in raised or type(error).__name__ in instead, repr(error)
    main = tmp_path / "main.py"
    if case.misuses:
        [(line, reported)] = case.misuses
        message = instead.get(type(error).__name__, reported.message)
        assert message is not None and message.search(str(error)), repr(error)
        if reported.on_the_traceback:
            assert line in lines_on_the_traceback(error, main), "the reported line calls what raises"
        elif reported.raised_by_a_call:
            assert (raising_line(error, main) or 0) > line, "raised by a call after the declaration"
            said = case.said_to_raise_at(reported)
            assert said is None or said in lines_on_the_traceback(error, main), f"the report says line {said} raises: {error!r}"
        else:
            assert raising_line(error, main) == line
        return
    # No report names the line (the user silenced it, or only mypy's own errors show it): the
    # case states where it raises and, where no rule's pattern is for it, what it says.
    assert case.runtime_line is not None, "a case that raises where nothing reports it states runtime_line:"
    assert raising_line(error, main) == case.runtime_line, repr(error)
    rule = next((rule for rule in RULES if rule.exception == expected), None)
    pattern = re.compile(case.runtime_message) if case.runtime_message else rule.message if rule is not None else None
    assert pattern is not None, "a case whose exception no rule's pattern is for states runtime_message:"
    assert pattern.search(str(error)), repr(error)


def assert_unchanged(case: Case, folder: Path) -> None:
    """The reported statement runs, each time it runs, and the array it meant to update is the
    same before and after it."""
    line = case.misuse_lines[0]
    statement = reported_statement(case.main, line)
    target = ast.unparse(assigned_array(statement))
    probe = f"{KEEP}({target}); {SNAPSHOT}()"
    with probes() as probed:
        error = run_snippet(
            case, folder, in_place_of_statement(case.main, line, f"{probe}; {ast.get_source_segment(case.main, statement)}; {probe}")
        )
    assert error is None, f"a discarded update must run, but it raised {error!r}"
    assert probed.snapshots and len(probed.snapshots) % 2 == 0, "the statement ran to its end"
    for turn in range(0, len(probed.snapshots), 2):
        before, after = probed.snapshots[turn : turn + 2]
        if before is None:  # traced: the name still holds the very tracer it held
            assert probed.kept[turn] is probed.kept[turn + 1], f"{target} was rebound"
        else:
            assert before.shape == after.shape and np.array_equal(before, after, equal_nan=True), (before, after)


def test_every_case_file_is_loaded() -> None:
    assert len(CASES) >= 50
    assert {c.name.split("::")[0] for c in CASES} == {path.stem for path in TYPECHECK.glob("*.yml")}
    assert {rule.code for case in CASES for _, rule in case.misuses} == {rule.code for rule in RULES}


def test_every_rule_of_the_plugin_has_its_runtime_truth() -> None:
    """Each rule in ``mypy_plugin.rules.RULES`` names, in ``cases.RULES``, what JAX raises."""
    from mypy_plugin.rules import every_rule

    codes = {code.code for rule in every_rule() for code in (rule.code, *rule.other_codes)}
    assert {rule.code for rule in RULES} == codes


def test_outcomes_stated_for_a_platform_say_why() -> None:
    """An ``on_platform`` outcome names a platform JAX runs on, states only an outcome, and
    says why the runtime differs there."""
    stated = [case for case in CASES if case.on_platform]
    for case in stated:
        for platform, outcome in case.on_platform.items():
            assert platform in PLATFORMS and platform != "cpu", (case.name, platform)
            assert set(outcome) <= set(PLATFORM_OUTCOME) and outcome.get("runtime_reason"), (case.name, outcome)
