"""The table of Flax's own compact layers that ``jax-linen-unbound`` reads
(``mypy_plugin/rules/flax/flax_linen.py``, ``COMPACT_LAYERS``) is the installed Flax's: each public
``flax.linen`` module class whose ``__call__`` Flax marks compact."""

from __future__ import annotations

import inspect

import pytest

from mypy_plugin.rules.flax import flax_linen, linen_methods

nn = pytest.importorskip("flax.linen")


def test_compact_layers_are_the_installed_flax_ones() -> None:
    found = set()
    for name in dir(nn):
        value = getattr(nn, name)
        if inspect.isclass(value) and issubclass(value, nn.Module) and value is not nn.Module:
            if getattr(value.__call__, "compact", False):
                found.add(f"{value.__module__}.{value.__qualname__}")
    assert found == flax_linen.COMPACT_LAYERS


def test_the_names_jax_linen_submodule_reads_are_the_installed_flax_ones() -> None:
    """``flax.linen.Module`` keys its hook and ``compact_name_scope`` is read off decorators: both
    by their full names in the installed Flax."""
    assert f"{nn.Module.__module__}.{nn.Module.__qualname__}" == linen_methods.LINEN_MODULE
    scope = nn.compact_name_scope
    assert f"{scope.__module__}.{scope.__qualname__}" == linen_methods.NAME_SCOPE
