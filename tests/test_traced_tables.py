"""The tables of ``mypy_plugin/lib/sites.py`` hold under real JAX on the CPU: each function
that makes a value-dependent shape raises under ``jax.jit`` without ``size=`` and runs with it,
each function the walk takes for a mask returns booleans, each NumPy converter raises, and no
attribute it takes for a Python value gives a tracer. The YAML cases prove the sites; these
prove every name the tables hold (the JAX x mypy matrix runs this file on every JAX release
it tests)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mypy_plugin.analyses import sites
from mypy_plugin.lib import fullnames

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


@pytest.mark.parametrize("fullname", sorted(sites.SHAPE_MAKING_FUNCTIONS))
def test_shape_making_functions_need_size(fullname: str) -> None:
    name = short(fullname)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(shape_call(name))(X)
    jax.jit(shape_call(name, size=4))(X)


def test_one_argument_where_and_nonzero_method_need_size() -> None:
    assert short(fullnames.JAX_NUMPY_WHERE) == "where"
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: jnp.where(x > 0))(X)  # type: ignore[jax-traced-shape]
    jax.jit(lambda x: jnp.where(x > 0, size=4))(X)
    for method in sites.SHAPE_MAKING_METHODS:
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
    assert np.allclose(twin(*[0.5] * arity), function(*[0.5] * arity))


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


KEY = jax.random.key(0)
SIZE_CALLS: dict[str, tuple[Callable[..., Any], Callable[[Any], Any]]] = {
    "zeros": (jnp.zeros, lambda n: jnp.zeros(n)),
    "ones": (jnp.ones, lambda n: jnp.ones(n)),
    "empty": (jnp.empty, lambda n: jnp.empty(n)),
    "full": (jnp.full, lambda n: jnp.full(n, 1.0)),
    "zeros_like": (jnp.zeros_like, lambda n: jnp.zeros_like(X, shape=n)),
    "ones_like": (jnp.ones_like, lambda n: jnp.ones_like(X, shape=n)),
    "empty_like": (jnp.empty_like, lambda n: jnp.empty_like(X, shape=n)),
    "full_like": (jnp.full_like, lambda n: jnp.full_like(X, 1.0, shape=n)),
    "eye": (jnp.eye, lambda n: jnp.eye(n)),
    "identity": (jnp.identity, lambda n: jnp.identity(n)),
    "tri": (jnp.tri, lambda n: jnp.tri(n)),
    "reshape": (jnp.reshape, lambda n: jnp.reshape(X, (n, -1))),
    "broadcast_to": (jnp.broadcast_to, lambda n: jnp.broadcast_to(X, (n, 4))),
    "arange": (jnp.arange, lambda n: jnp.arange(n)),
    "linspace": (jnp.linspace, lambda n: jnp.linspace(0.0, 1.0, n)),
    "logspace": (jnp.logspace, lambda n: jnp.logspace(0.0, 1.0, n)),
    "geomspace": (jnp.geomspace, lambda n: jnp.geomspace(1.0, 2.0, n)),
    "split": (jnp.split, lambda n: jnp.split(X, n)),
    "array_split": (jnp.array_split, lambda n: jnp.array_split(X, n)),
    "tile": (jnp.tile, lambda n: jnp.tile(X, n)),
    "normal": (jax.random.normal, lambda n: jax.random.normal(KEY, (n,))),
    "uniform": (jax.random.uniform, lambda n: jax.random.uniform(KEY, (n,))),
    "randint": (jax.random.randint, lambda n: jax.random.randint(KEY, (n,), 0, 3)),
    "bernoulli": (jax.random.bernoulli, lambda n: jax.random.bernoulli(KEY, 0.5, (n,))),
    "categorical": (jax.random.categorical, lambda n: jax.random.categorical(KEY, jnp.zeros(3), shape=(n,))),
    "truncated_normal": (jax.random.truncated_normal, lambda n: jax.random.truncated_normal(KEY, -1.0, 1.0, (n,))),
    "random.split": (jax.random.split, lambda n: jax.random.split(KEY, n)),
    "one_hot": (jax.nn.one_hot, lambda n: jax.nn.one_hot(jnp.arange(2), n)),
    "segment_sum": (jax.ops.segment_sum, lambda n: jax.ops.segment_sum(X, jnp.array([0, 0, 1, 1]), n)),
    "segment_max": (jax.ops.segment_max, lambda n: jax.ops.segment_max(X, jnp.array([0, 0, 1, 1]), n)),
    "lax.full": (jax.lax.full, lambda n: jax.lax.full((n,), 1.0)),
    "iota": (jax.lax.iota, lambda n: jax.lax.iota(jnp.int32, n)),
    "dynamic_slice": (jax.lax.dynamic_slice, lambda n: jax.lax.dynamic_slice(X, (0,), (n,))),
    "dynamic_slice_in_dim": (jax.lax.dynamic_slice_in_dim, lambda n: jax.lax.dynamic_slice_in_dim(X, 0, n)),
    "repeat": (jnp.repeat, lambda n: jnp.repeat(X, n)),
    "resize": (jnp.resize, lambda n: jnp.resize(X, (n,))),
    "slice": (jax.lax.slice, lambda n: jax.lax.slice(X, (0,), (n,))),
    "broadcast": (jax.lax.broadcast, lambda n: jax.lax.broadcast(X, (n,))),
    "broadcast_in_dim": (jax.lax.broadcast_in_dim, lambda n: jax.lax.broadcast_in_dim(X, (n, 4), (1,))),
}
"""For each entry of ``sites.SIZE_PARAMETERS`` (by its short name, a module's where two share
one): the function, and a call of it with ``n`` as its shape or size."""


def size_entry(fullname: str) -> str:
    """The key of ``SIZE_CALLS`` for a full name of the table."""
    name = short(fullname)
    if name == "split" and "random" in fullname:
        return "random.split"
    if name == "full" and fullname.startswith(fullnames.LAX_CORE):
        return "lax.full"
    return name


def stub_text(relative: str) -> str:
    """A file of the installed stub folder, or nothing where the release has no such stub."""
    from mypy_plugin.install.diagnosis import Diagnosis

    folder = Diagnosis.of_this_environment().folder
    path = folder / relative if folder is not None else None
    return path.read_text() if path is not None and path.is_file() else ""


def defined_as(function: Callable[..., Any]) -> str:
    """Where a function is defined, as mypy names it: ``jax.numpy`` for what JAX's stubs declare."""
    name: str = function.__name__
    if getattr(jnp, name, None) is function:  # declared in JAX's stub of jax.numpy
        return fullnames.JNP + name
    inner = getattr(function, "__wrapped__", function)
    return f"{inner.__module__}.{inner.__name__}"


@pytest.mark.parametrize("fullname", sorted(sites.SIZE_PARAMETERS))
def test_a_traced_size_raises_what_the_table_says(fullname: str) -> None:
    """Under ``jax.jit`` a traced ``n`` there raises the table's exception; a Python int runs;
    the function is where the table says (for the module it names on this release), and the
    parameter names are the installed JAX's own."""
    import inspect

    raises, places = sites.SIZE_PARAMETERS[fullname]
    function, call = SIZE_CALLS[size_entry(fullname)]
    where = defined_as(function)
    if fullname.rpartition(".")[0] + "." in fullnames.RANDOM_MODULES and where != fullname:
        assert where.rpartition(".")[0] + "." in fullnames.RANDOM_MODULES, where  # the table's other module for jax.random
        pytest.skip(f"jax.random is defined in {where.rpartition('.')[0]} on this release")
    if fullname in fullnames.NN_ONE_HOT:
        stubbed = fullnames.NN_ONE_HOT[0] if "def one_hot" in stub_text("nn/__init__.pyi") else fullnames.NN_ONE_HOT[1]
        if fullname != stubbed:
            pytest.skip(f"mypy names one_hot {stubbed} on this release")
        where = stubbed if stubbed == fullnames.NN_ONE_HOT[0] else where
    assert where == fullname
    expected = getattr(jax.errors, raises, None) or getattr(__import__("builtins"), raises)
    with pytest.raises(expected):
        jax.jit(call)(2)
    call(2)
    parameters = inspect.signature(function).parameters
    assert any(keyword in parameters for _, keyword in places), (fullname, list(parameters))


def test_every_size_entry_has_a_call() -> None:
    assert {size_entry(fullname) for fullname in sites.SIZE_PARAMETERS} == set(SIZE_CALLS)


def test_repeat_needs_total_repeat_length() -> None:
    assert sites.SIZE_FIXED_BY == {fullnames.JNP + "repeat": "total_repeat_length"}
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda n: jnp.repeat(X, n))(2)  # type: ignore[jax-traced-shape]
    jax.jit(lambda n: jnp.repeat(X, n, total_repeat_length=8))(2)


def test_reshape_method_with_a_traced_size_raises_type_error() -> None:
    assert sites.SHAPE_METHODS == {"reshape"}
    with pytest.raises(TypeError):
        jax.jit(lambda x, n: x.reshape(n, -1))(X, 2)  # type: ignore[jax-traced-shape]
    jax.jit(lambda x: x.reshape(x.shape[0] // 2, -1))(X)
