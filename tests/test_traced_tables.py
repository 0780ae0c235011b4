"""The tables of ``mypy_plugin/analyses/sites.py`` hold under real JAX on the CPU: one-argument
``jnp.where`` and ``.nonzero()`` raise under ``jax.jit`` without ``size=`` and run with it,
each function the walk takes for a mask returns booleans, each NumPy converter raises, and no
attribute it takes for a Python value gives a tracer. The YAML cases prove the sites; these
prove every name the tables hold (the JAX x mypy matrix runs this file on every JAX release
it tests). The parameters JAX needs concrete are measured from JAX itself:
``tests/test_contract.py``."""

from __future__ import annotations

import builtins
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mypy_plugin.analyses import sites
from mypy_plugin.lib import fullnames

X = jnp.array([0.0, 1.0, 2.0, 1.0])
TWIN_TOLERANCE = 1e-5 if jax.default_backend() == "cpu" else 1e-3
"""How far a twin's float32 value may be from ``math``'s, relatively, on the CPU and on an accelerator:
a TPU v5e's ``jnp.log1p(0.5)`` is off by 1.5e-4 of the value and its ``tanh`` by 1.0e-5
(JAX 0.10.2, ``benchmarks/accelerator.py``); another function is off by far more."""


def short(fullname: str) -> str:
    return fullname.rpartition(".")[2]


def test_one_argument_where_and_nonzero_method_need_size() -> None:
    assert short(fullnames.JAX_NUMPY_WHERE) == "where"
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: jnp.where(x > 0))(X)  # type: ignore[jax-traced-shape]
    jax.jit(lambda x: jnp.where(x > 0, size=4))(X)
    for method in ("nonzero",):
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.jit(lambda x, method=method: getattr(x, method)())(X)
        jax.jit(lambda x, method=method: getattr(x, method)(size=4))(X)


@pytest.mark.parametrize("fullname", sorted(sites.MASK_FUNCTIONS))
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


@pytest.mark.parametrize("name", sorted(sites.NUMPY_CONVERTERS))
def test_numpy_converters_raise(name: str) -> None:
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(lambda x: getattr(np, name)(x))(X)


@pytest.mark.parametrize("method", sorted(sites.CONVERTING_METHODS))
def test_converting_methods_raise(method: str) -> None:
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: getattr(x.sum(), method)())(X)


@pytest.mark.parametrize("name", sorted(sites.MATH_FUNCTIONS))
def test_math_functions_raise_and_have_a_jax_numpy_twin(name: str) -> None:
    function = getattr(math, name)
    arity = 2 if name in ("atan2", "pow", "hypot", "copysign", "fmod") else 1
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: function(*[x.sum()] * arity))(X)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.grad(lambda x: x * function(*[x] * arity))(0.5)
    twin = getattr(jnp, sites.MATH_FUNCTIONS[name])
    assert np.allclose(twin(*[0.5] * arity), function(*[0.5] * arity), rtol=TWIN_TOLERANCE)


def test_int_and_item_run_under_grad_and_the_other_conversions_raise() -> None:
    assert sites.RUN_UNDER_GRAD == {'"int()"', '".item()"'}
    jax.grad(lambda x: x * int(x) * x.item())(2.0)
    for convert in (float, complex, lambda x: x.tolist()):
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.grad(lambda x, convert=convert: x * abs(convert(x)))(2.0)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.grad(lambda x: x * np.asarray(x))(2.0)
    jax.grad(lambda x: x * 2 if x > 0 else -x)(2.0)  # control flow runs


@pytest.mark.parametrize("name", sorted(sites.CONCRETE_ATTRIBUTES))
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


def test_reshape_method_with_a_traced_size_raises_type_error() -> None:
    assert sites.SHAPE_METHODS == {"reshape"}
    with pytest.raises(TypeError):
        jax.jit(lambda x, n: x.reshape(n, -1))(X, 2)  # type: ignore[jax-traced-shape]
    jax.jit(lambda x: x.reshape(x.shape[0] // 2, -1))(X)


@pytest.mark.parametrize("fullname", sorted(sites.COMPARING_BUILTINS))
def test_comparing_builtins_raise_on_every_shape(fullname: str) -> None:
    builtin = getattr(builtins, short(fullname))
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda x: builtin(x > 0))(X)
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        jax.jit(lambda x: builtin(x > 0))(X[0])
    with pytest.raises(ValueError, match="truth value of an array with more than one element"):
        jax.jit(lambda x: builtin(x > 0))(jnp.ones((2, 2)))
    if fullname in ("builtins.min", "builtins.max"):
        with pytest.raises(jax.errors.TracerBoolConversionError):
            jax.jit(lambda x: builtin(x.sum(), 0.0))(X)
    one, two = sites.COMPARING_BUILTINS[fullname]
    jax.jit(getattr(jnp, one))(X > 0)
    if one != two:
        jax.jit(getattr(jnp, two))(X, 0.0)


def test_a_format_spec_of_a_tracer_raises_and_none_runs() -> None:
    with pytest.raises(TypeError, match="unsupported format string"):
        jax.jit(lambda x: len(f"{x.sum():.3f}") + x)(X)  # type: ignore[jax-traced-value]
    with pytest.raises(TypeError, match="unsupported format string"):
        jax.vmap(lambda x: len(f"{x:.3f}") + x)(X)  # type: ignore[jax-traced-value]
    jax.jit(lambda x: len(f"{x.sum()}") + x)(X)
