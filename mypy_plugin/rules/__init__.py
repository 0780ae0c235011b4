"""The rules, one module each: its error code, its hooks and its texts (``lib/rule.py`` says
what a module declares). ``main.py`` builds its hook tables from ``hooked.HOOKED``, which
``scripts/generate_hooked.py`` writes from the modules listed here, so that loading the plugin
imports none of them; adding a rule is a module here, its name below, and that script run again
(docs/internals.md, "Adding a rule")."""

from __future__ import annotations

import importlib
from typing import Final, NamedTuple

from mypy_plugin.lib.rule import HOOK_KINDS, Rule

RULE_MODULES: Final[tuple[str, ...]] = (
    "arrays.to_device",
    "arrays.item_assignment",
    "traced.traced_values",
    "jit.jit_boundary",
    "arrays.numpy_arguments",
    "arrays.float_shapes",
    "arrays.dtype_arguments",
    "prng.random_arguments",
    "arrays.discarded_update",
    "transform_arguments.lax_structure",
    "jit.donated_buffers",
    "transform_arguments.grad_and_vmap",
    "flax.flax_linen",
    "flax.flax_linen_mutable",
    "equinox.equinox_modules",
    "equinox.frozen_fields",
    "flax.flax_nnx",
    "flax.linen_frozen",
    "flax.linen_submodules",
)
"""Every rule's module, each with its ``RULE``, in the order their hooks run on one name."""


def every_rule() -> tuple[Rule, ...]:
    """Every rule, its module imported (for what needs them all: tests, scripts)."""
    return tuple(importlib.import_module(f"mypy_plugin.rules.{module}").RULE for module in RULE_MODULES)


class Hooked(NamedTuple):
    """One rule as ``rules/hooked.py`` records it (``scripts/generate_hooked.py`` writes it):
    where the ``Rule`` is, its codes, and the keys of its hooks of each kind. Enough to answer
    which names have hooks without importing the rule."""

    module: str
    """The rule's module in ``mypy_plugin.rules``."""
    attribute: str
    """The module's ``Rule`` (``RULE``, or another such as ``jit_boundary.TYPED_CALLS``)."""
    codes: tuple[str, ...]
    method_signature_hooks: tuple[str, ...] = ()
    method_hooks: tuple[str, ...] = ()
    function_signature_hooks: tuple[str, ...] = ()
    function_hooks: tuple[str, ...] = ()
    attribute_hooks: tuple[str, ...] = ()
    constructor_hooks: tuple[str, ...] = ()

    def rule(self) -> Rule:
        """The rule itself, its module imported on first use."""
        rule: Rule = getattr(importlib.import_module(f"mypy_plugin.rules.{self.module}"), self.attribute)
        return rule

    @classmethod
    def of(cls, module: str, attribute: str, rule: Rule) -> Hooked:
        """The record of ``rule``, found as ``attribute`` of ``module``."""
        return cls(
            module,
            attribute,
            tuple(code.code for code in (rule.code, *rule.other_codes)),
            *(tuple(sorted(getattr(rule, kind))) for kind in HOOK_KINDS),
        )
