"""Notebooks, as nbQA hands them to ``jax-stubs lint``: a module of the code cells, each cell
after a line ``# %%NBQA-CELL-SEP<hex>``.

A notebook shows the value of a cell's last statement when it is an expression:
``x.sort()`` there displays the sorted copy, it does not throw it away. A
``jax-discarded-update`` report on such a statement is dropped; everywhere else it stands. (A
semicolon after it would hide the value, but nbQA removes it from the module it hands over, so
a cell's last expression is always taken as shown.)
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from pathlib import Path
from typing import Final

CELL: Final = re.compile(r"^# %%NBQA-CELL-SEP\w*$", re.MULTILINE)
SHOWN_CODE: Final = "jax-discarded-update"
"""The code whose report a displayed value makes wrong."""


def displayed_lines(path: Path) -> frozenset[int]:
    """The lines of the statements whose value the notebook shows: the last statement of each
    cell, when it is an expression. Empty for any other module."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return frozenset()
    starts = [text.count("\n", 0, found.start()) + 1 for found in CELL.finditer(text)]
    if not starts:
        return frozenset()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return frozenset()
    last: dict[int, ast.stmt] = {}
    for statement in tree.body:
        last[bisect_right(starts, statement.lineno)] = statement
    return frozenset(
        line
        for statement in last.values()
        if isinstance(statement, ast.Expr)
        for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
    )
