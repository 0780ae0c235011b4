"""``lib/evaluated.py`` against Python itself: each form of ``scripts/probe_annotations.py`` is run
under the suite's Python, with the future import and without, and where the run raises the
annotation must count as running (a removed name there is reported), where it runs, not."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import probe_annotations  # noqa: E402

from mypy_plugin.lib import evaluated  # noqa: E402

CHEAP_READERS = ("typing.NamedTuple", "dataclasses.dataclass", "functools.singledispatch register")
"""Readers of annotations in the standard library, probed here too (the libraries' are in the
probe's table, ``benchmarks/results/annotations.json``)."""


def stand_in_position(code: str) -> tuple[int, int]:
    """Where the code names ``gone.Removed`` (in a string too: the string's position)."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Attribute) and node.attr == "Removed":
            return node.lineno, node.col_offset
        if isinstance(node, ast.Constant) and node.value == "gone.Removed":
            return node.lineno, node.col_offset
    raise AssertionError(code)


CODES = [(name, code) for name, code in probe_annotations.FORMS.items()] + [
    (name, probe_annotations.READERS[name][1]) for name in CHEAP_READERS
]


@pytest.mark.parametrize("future", [False, True], ids=["plain", "postponed"])
@pytest.mark.parametrize(("name", "code"), CODES, ids=[name for name, _ in CODES])
def test_decided_as_python_runs_it(name: str, code: str, future: bool) -> None:
    program = (probe_annotations.FUTURE if future else "") + probe_annotations.STAND_IN + code
    outcome = probe_annotations.outcome(sys.executable, program)
    assert outcome in ("runs", "AttributeError"), outcome
    source = evaluated.Source(program, (sys.version_info[0], sys.version_info[1]))
    assert source.runs(*stand_in_position(program)) == (outcome == "AttributeError"), (name, outcome)
