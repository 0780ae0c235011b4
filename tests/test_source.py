"""Expressions printed back as source (``lib/source.py``) mean what was written: each text the
notes may print parses to the same Python as the expression mypy read, f-strings included (mypy's
parser turns them into ``''.join([...])`` of ``'{:{}}'.format(value, spec)`` parts); what cannot be
printed faithfully gives None, never mypy's rewrite of it."""

from __future__ import annotations

import ast

import pytest
from mypy.errors import Errors
from mypy.nodes import AssignmentStmt, Expression
from mypy.options import Options
from mypy.parse import parse

from mypy_plugin.lib.source import source

PRINTED = [
    'f"block_{i}"',
    "f'{i!r:>4} and {d[1]:.2f} {{x}}'",
    "f'{i}'",
    "f'{x.shape!s}-{len(d):03d}'",
    "''.join(['x', 'y'])",
    "''.join(['block_', '{}'.format(i)])",
    "nn.Dense(4, name=f'layer_{i}')",
    "Dense(x.shape[-1], name=f'block_{i}')",
]
"""Expressions printed back: each means what was written."""
NOT_PRINTED = [
    'f"{i}\'s \\"head\\""',
    'f"{i}\\n"',
    "f'{i:.{i}f}'",
]
"""f-strings that need what is not printed here (both quotes, an escape, a nested spec): None."""


def parsed(text: str) -> Expression:
    """``text`` as mypy's parser reads it."""
    options = Options()
    tree = parse(f"value = {text}\n", "case.py", "case", Errors(options), options, eager=True)
    (statement,) = tree.defs
    assert isinstance(statement, AssignmentStmt)
    return statement.rvalue


@pytest.mark.parametrize("text", PRINTED)
def test_printed_source_means_what_was_written(text: str) -> None:
    printed = source(parsed(text))
    assert printed is not None
    assert ast.dump(ast.parse(printed, mode="eval")) == ast.dump(ast.parse(text, mode="eval")), printed


@pytest.mark.parametrize("text", NOT_PRINTED)
def test_what_cannot_be_printed_as_written_is_not_printed(text: str) -> None:
    assert source(parsed(text)) is None


def test_a_format_call_like_an_f_strings_part_prints_with_the_same_value() -> None:
    """mypy's tree cannot tell ``'{:{}}'.format(i, '')`` from ``f'{i}'``: it prints as the f-string,
    whose value is the same."""
    printed = source(parsed("'{:{}}'.format(i, '>3')"))
    assert printed == "f'{i:>3}'"
    assert eval(printed, {"i": 7}) == "{:{}}".format(7, ">3")


def test_an_f_string_prints_as_one() -> None:
    assert source(parsed('f"block_{i}"')) == "f'block_{i}'"
