"""The rules, one module each: its error code, its hooks and its texts (``lib/rule.py`` says
what a module declares). ``main.py`` builds its hook tables from ``hooked.HOOKED``, which
``scripts/generate_hooked.py`` writes from the modules listed here, so that loading the plugin
imports none of them; adding a rule is a module here, its name below, and that script run again
(docs/internals.md, "Adding a rule")."""

from __future__ import annotations

from typing import Final

from mypy_plugin.lib.rule import Rule

RULE_MODULES: Final[tuple[str, ...]] = (
    "to_device",
    "item_assignment",
    "traced_values",
    "jit_boundary",
    "numpy_arguments",
    "random_arguments",
    "discarded_update",
    "lax_structure",
    "donated_buffers",
    "grad_and_vmap",
    "flax_linen",
    "flax_linen_mutable",
    "equinox_modules",
    "flax_nnx",
)
"""Every rule's module, each with its ``RULE``, in the order their hooks run on one name."""


def every_rule() -> tuple[Rule, ...]:
    """Every rule, its module imported (for what needs them all: tests, scripts)."""
    from mypy_plugin.rules.hooked import HOOKED

    return tuple(hooked.rule() for hooked in HOOKED)
