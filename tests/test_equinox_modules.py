"""The tables the Equinox rules read hold on the installed Equinox. ``jax-equinox-module``'s
(``equinox_modules.FUNCTION_FIELDS``): each class, made as its constructor's defaults leave it,
holds a function, so that ``jax.jit`` given it raises ``TypeError``; and made with modules at
the parameters named, it runs. ``jax-equinox-frozen``'s (``frozen_fields.UNDECLARED_RAISES``):
what the installed release raises where ``__init__`` sets a name that is not a field (the
suite's Equinox 0.13, the matrix's oldest cell's 0.11.10)."""

from __future__ import annotations

import importlib
import importlib.metadata

import pytest
from cases import UNTRACEABLE_ARGUMENT

from mypy_plugin.lib import libraries
from mypy_plugin.lib.release import parse_version
from mypy_plugin.rules.equinox import equinox_modules, frozen_fields

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


def test_a_name_that_is_not_a_field_raises_what_the_table_says(monkeypatch: pytest.MonkeyPatch) -> None:
    class Undeclared(eqx.Module):  # type: ignore[misc,name-defined]
        weight: object

        def __init__(self) -> None:
            self.weight = jax.numpy.ones(2)
            self.hidden = 3

    monkeypatch.setattr(libraries.INSTALLED, "equinox", parse_version(importlib.metadata.version("equinox"))[:3])
    expected = frozen_fields.undeclared_raises()
    with pytest.raises(Exception) as raised:
        Undeclared()
    assert type(raised.value).__name__ == expected


def test_a_module_made_raises_frozen_instance_error_for_any_name() -> None:
    layer = eqx.nn.Linear(2, 2, key=jax.random.key(0))
    for name in ("weight", "other"):
        with pytest.raises(Exception) as raised:
            setattr(layer, name, 0)
        assert type(raised.value).__name__ == "FrozenInstanceError"
