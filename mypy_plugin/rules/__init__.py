"""The rules, one module each: its error code, its hooks and its texts (``lib/rule.py`` says
what a module declares). ``main.py`` builds its hook tables from ``RULES``; adding a rule is a
module here and one line below (README, "Adding a rule")."""

from __future__ import annotations

from typing import Final

from mypy_plugin.lib.rule import Rule
from mypy_plugin.rules import discarded_update, item_assignment, jit_boundary, numpy_arguments, random_arguments, to_device, traced_values

RULES: Final[tuple[Rule, ...]] = (
    to_device.RULE,
    item_assignment.RULE,
    traced_values.RULE,
    jit_boundary.RULE,
    numpy_arguments.RULE,
    random_arguments.RULE,
    discarded_update.RULE,
)
