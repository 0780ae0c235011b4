"""The table ``jax-equinox-module`` reads (``mypy_plugin/rules/equinox/equinox_modules.py``,
``FUNCTION_FIELDS``) holds on the installed Equinox: each class, made as its constructor's
defaults leave it, holds a function, so that ``jax.jit`` given it raises ``TypeError``; and made
with modules at the parameters named, it runs."""

from __future__ import annotations

import importlib

import pytest
from cases import UNTRACEABLE_ARGUMENT

from mypy_plugin.rules.equinox import equinox_modules

eqx = pytest.importorskip("equinox")
jax = pytest.importorskip("jax")

MADE = {
    "MLP": lambda cls, **given: cls(2, 1, 4, 1, key=jax.random.key(0), **given),
    "Lambda": lambda cls, **given: cls(given.get("fn", jax.nn.relu)),
    "WeightNorm": lambda cls, **given: cls(eqx.nn.Linear(2, 2, key=jax.random.key(0))),
}
"""How to make each class of the table; a pool takes its kernel size."""


def made(fullname: str, **given: object) -> object:
    module, name = fullname.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    return MADE.get(name, lambda cls, **given: cls(2))(cls, **given)


@pytest.mark.parametrize("fullname", sorted(equinox_modules.FUNCTION_FIELDS))
def test_jit_given_the_module_raises_type_error(fullname: str) -> None:
    with pytest.raises(TypeError, match=UNTRACEABLE_ARGUMENT):
        jax.jit(lambda module: 0)(made(fullname))


@pytest.mark.parametrize("fullname", [name for name, fields in equinox_modules.FUNCTION_FIELDS.items() if fields])
def test_modules_at_the_named_parameters_run(fullname: str) -> None:
    fields = equinox_modules.FUNCTION_FIELDS[fullname]
    jax.jit(lambda module: 0)(made(fullname, **{name: eqx.nn.PReLU() for _, name in fields}))
