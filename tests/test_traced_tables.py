"""The tables of ``mypy_plugin/lib/tracing.py`` hold under real JAX on the CPU: each function
that makes a value-dependent shape raises under ``jax.jit`` without ``size=`` and runs with it,
each function the walk takes for a mask returns booleans, each NumPy converter raises, and no
attribute it takes for a Python value gives a tracer. The YAML cases prove the sites; these
prove every name the tables hold (the JAX x mypy matrix runs this file on every JAX release
it tests)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mypy_plugin.lib import fullnames, tracing

X = jnp.array([0.0, 1.0, 2.0, 1.0])


def short(fullname: str) -> str:
    return fullname.rpartition(".")[2]


def shape_call(name: str, **size: int) -> Callable[[jax.Array], Any]:
    """A call of ``jnp.<name>`` on traced data, with the arguments the function takes."""
    function = getattr(jnp, name)
    if name in ("union1d", "setdiff1d"):
        return lambda x: function(x, x + 1, **size)
    if name in ("extract", "compress"):
        return lambda x: function(x > 0, x, **size)
    return lambda x: function(x, **size)


@pytest.mark.parametrize("fullname", sorted(tracing.SHAPE_MAKING_FUNCTIONS))
def test_shape_making_functions_need_size(fullname: str) -> None:
    name = short(fullname)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(shape_call(name))(X)
    jax.jit(shape_call(name, size=4))(X)


def test_one_argument_where_and_nonzero_method_need_size() -> None:
    assert short(fullnames.JAX_NUMPY_WHERE) == "where"
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: jnp.where(x > 0))(X)
    jax.jit(lambda x: jnp.where(x > 0, size=4))(X)
    for method in tracing.SHAPE_MAKING_METHODS:
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.jit(lambda x, method=method: getattr(x, method)())(X)
        jax.jit(lambda x, method=method: getattr(x, method)(size=4))(X)


@pytest.mark.parametrize("fullname", sorted(tracing.MASK_FUNCTIONS))
def test_mask_functions_return_booleans(fullname: str) -> None:
    name = short(fullname)
    function = getattr(jnp, name)
    binary = (
        name.startswith("logical_")
        and name != "logical_not"
        or name in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "isclose", "isin")
    )
    result = function(X, X) if binary else function(X)
    assert result.dtype == jnp.bool_


@pytest.mark.parametrize("name", sorted(tracing.NUMPY_CONVERTERS))
def test_numpy_converters_raise(name: str) -> None:
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(lambda x: getattr(np, name)(x))(X)


@pytest.mark.parametrize("method", sorted(tracing.CONVERTING_METHODS))
def test_converting_methods_raise(method: str) -> None:
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: getattr(x.sum(), method)())(X)


@pytest.mark.parametrize("name", sorted(tracing.CONCRETE_ATTRIBUTES))
def test_concrete_attributes_are_not_tracers(name: str) -> None:
    """An attribute the walk takes for a Python value is one while JAX traces (or does not exist
    on a tracer, which the walk need not know)."""
    seen: list[object] = []

    def read(x: jax.Array) -> jax.Array:
        try:
            seen.append(getattr(x, name))
        except Exception:  # not available on a tracer
            seen.append(None)
        return x

    jax.jit(read)(X)
    assert seen and not isinstance(seen[0], jax.core.Tracer), seen
