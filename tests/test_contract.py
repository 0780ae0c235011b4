"""JAX's contract as ``analyses/contract.py`` reads it holds on the installed JAX.

- The table is the installed release's own, and every row a rule reads (a parameter that must be
  concrete, a function that needs ``size=``) is what ``scripts/probe_api.py`` measures again here:
  the JAX x mypy matrix runs this file on every JAX release it tests.
- Calls as users write them (a shape as ``(n,)``, an axis by keyword, the calls of the threads
  the rules were built from) raise under ``jax.jit`` what the table says, and run with a Python
  value: a witness of the table that the probe did not write.
- Every parameter a checked-in table measured raising is decided: a shape or a setting.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from mypy_plugin.analyses import contract
from mypy_plugin.lib import release

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import probe_api  # noqa: E402

TABLE_PATH = contract.table_file()
TABLE: dict[str, Any] = json.loads(TABLE_PATH.read_text()) if TABLE_PATH is not None else {}
ENTRIES: dict[str, Any] = TABLE.get("functions", {})
READ = sorted(
    name
    for name, entry in ENTRIES.items()
    if contract.concrete_parameters(name) or entry.get("traced without size", contract.RUNS) != contract.RUNS
)
"""The rows a rule reads, by their public names."""
UNDECIDED = {"jax.numpy.from_dlpack": {"x"}}
"""Parameters measured raising traced that are neither a shape nor a setting: ``from_dlpack``
takes an object with ``__dlpack__``, which a tracer has not (no rule reports there)."""
X = jnp.arange(1.0, 5.0)
KEY = jax.random.key(0)


def function_of(name: str) -> tuple[Callable[..., Any], str | None]:
    """The function of the table's entry ``name``, and the method's name for ``jax.Array``'s."""
    if name.startswith(contract.ARRAY_METHOD_PREFIX):
        method = name.removeprefix(contract.ARRAY_METHOD_PREFIX)
        return getattr(jax.Array, method), method
    module, _, attribute = name.rpartition(".")
    return getattr(importlib.import_module(module), attribute), None


def measured(entry: dict[str, Any]) -> dict[str, str]:
    return {name: outcome["traced"] for name, outcome in entry.get("parameters", {}).items() if "traced" in outcome}


def forms(entry: dict[str, Any], names: set[str]) -> dict[str, tuple[str, ...]]:
    """For each parameter of ``names``, what each way of writing a tracer there raised."""
    keys = ("traced", contract.ALONE, contract.IN_A_TUPLE)
    return {name: tuple(outcome.get(key, "") for key in keys) for name, outcome in entry.get("parameters", {}).items() if name in names}


def test_the_table_is_the_installed_releases() -> None:
    assert TABLE_PATH is not None and TABLE.get("jax") == jax.__version__, (TABLE_PATH, jax.__version__)
    assert contract.contract().release == jax.__version__
    assert release.parse_version(jax.__version__)[:3] == release.STUBS


@pytest.mark.parametrize("name", READ)
def test_every_row_a_rule_reads_is_what_jax_raises(name: str) -> None:
    function, method = function_of(name)
    again = probe_api.probe_function(function, jax, method=method)
    every = set(ENTRIES[name].get("parameters", {}))  # those the table says run too: a wrong "runs" fails here
    assert forms(again, every) == forms(ENTRIES[name], every)
    assert again.get("traced without size") == ENTRIES[name].get("traced without size")


def test_the_rules_read_many_rows() -> None:
    """The probe reached the families the rules are for: sizes, axes, offsets, lengths."""
    kinds = {(parameter.name, parameter.shape) for name in READ for parameter in contract.concrete_parameters(name)}
    assert {("shape", True), ("axis", False), ("k", False), ("n", True), ("size", True)} <= kinds
    assert len(READ) > 150, len(READ)


@pytest.mark.parametrize("path", sorted(contract.FOLDER.glob("jax-*.json")), ids=lambda path: path.stem)
def test_every_parameter_that_raises_is_a_shape_or_a_setting(path: Path) -> None:
    table = json.loads(path.read_text())
    assert table["jax"] == path.stem.removeprefix("jax-")
    undecided = {
        (name, parameter)
        for name, entry in table["functions"].items()
        for parameter, raises in measured(entry).items()
        if raises not in contract.NOT_MEASURED
        and contract.kind_of(parameter, contract.SETTINGS_BY_FUNCTION.get(name, frozenset())) is None
        and parameter not in UNDECIDED.get(name, set())
    }
    assert not undecided


USER_CALLS: dict[str, tuple[str, bool, Callable[[Any], Any]]] = {
    "jax.numpy.zeros": ("shape", False, lambda n: jnp.zeros(n)),
    "jax.numpy.ones": ("shape", True, lambda n: jnp.ones((n, 3))),
    "jax.numpy.full": ("shape", False, lambda n: jnp.full(n, 1.0)),
    "jax.numpy.zeros_like": ("shape", False, lambda n: jnp.zeros_like(X, shape=n)),
    "jax.numpy.full_like": ("shape", False, lambda n: jnp.full_like(X, 1.0, shape=n)),
    "jax.numpy.eye": ("N", False, lambda n: jnp.eye(n)),
    "jax.numpy.identity": ("n", False, lambda n: jnp.identity(n)),
    "jax.numpy.tri": ("N", False, lambda n: jnp.tri(n)),
    "jax.numpy.reshape": ("shape newshape", True, lambda n: jnp.reshape(X, (n, -1))),  # "newshape" before 0.4.28
    "jax.numpy.broadcast_to": ("shape", True, lambda n: jnp.broadcast_to(X, (n, 4))),
    "jax.numpy.arange": ("start", False, lambda n: jnp.arange(n)),
    "jax.numpy.linspace": ("num", False, lambda n: jnp.linspace(0.0, 1.0, n)),
    "jax.numpy.split": ("indices_or_sections", False, lambda n: jnp.split(X, n)),
    "jax.numpy.tile": ("reps", False, lambda n: jnp.tile(X, n)),
    "jax.numpy.repeat": ("repeats", False, lambda n: jnp.repeat(X, n)),
    "jax.numpy.resize": ("new_shape", True, lambda n: jnp.resize(X, (n,))),
    "jax.numpy.vander": ("N", False, lambda n: jnp.vander(X, N=n)),
    "jax.numpy.polyfit": ("deg", False, lambda n: jnp.polyfit(X, X, n)),
    "jax.numpy.fft.fft": ("n", False, lambda n: jnp.fft.fft(X, n=n)),
    "jax.numpy.diag": ("k", False, lambda n: jnp.diag(X, n)),
    "jax.numpy.cumsum": ("axis", False, lambda n: jnp.cumsum(X, axis=n)),
    "jax.numpy.argmax": ("axis", False, lambda n: jnp.argmax(X, axis=n)),
    "jax.numpy.sum": ("axis", False, lambda n: jnp.sum(X, axis=n)),
    "jax.numpy.mean": ("axis", True, lambda n: jnp.mean(X[None], axis=(n, 1))),  # jax-ml/jax#7952
    "jax.numpy.expand_dims": ("axis", False, lambda n: jnp.expand_dims(X, n)),
    "jax.nn.softmax": ("axis", False, lambda n: jax.nn.softmax(X, axis=n)),
    "jax.nn.one_hot": ("num_classes", False, lambda n: jax.nn.one_hot(jnp.arange(2), n)),
    "jax.random.normal": ("shape", True, lambda n: jax.random.normal(KEY, (n,))),
    "jax.random.gamma": ("shape", True, lambda n: jax.random.gamma(KEY, 1.0, (n,))),
    "jax.random.randint": ("shape", True, lambda n: jax.random.randint(KEY, (n,), 0, 3)),
    "jax.random.split": ("num", False, lambda n: jax.random.split(KEY, n)),
    "jax.ops.segment_sum": ("num_segments", False, lambda n: jax.ops.segment_sum(X, jnp.array([0, 0, 1, 1]), n)),
    "jax.lax.full": ("shape", True, lambda n: jax.lax.full((n,), 1.0)),
    "jax.lax.dynamic_slice": ("slice_sizes", True, lambda n: jax.lax.dynamic_slice(X, (0,), (n,))),
    "jax.lax.slice": ("limit_indices", True, lambda n: jax.lax.slice(X, (0,), (n,))),
}
"""Calls as users write them, each with the parameter it gives ``n`` (inside a tuple or alone);
the threads' samples
(``jnp.diag(x, k)``, ``jnp.cumsum(x, axis=a)``, ``jnp.fft.fft(x, n=m)``, ``jnp.vander(x, N=m)``,
``jnp.polyfit(x, y, deg)``, ``jax.random.gamma(key, a, (n,))``) among them."""


@pytest.mark.parametrize("name", sorted(USER_CALLS))
def test_a_traced_value_raises_there_what_the_table_says(name: str) -> None:
    parameter, in_a_tuple, call = USER_CALLS[name]
    function, _ = function_of(name)
    defined = probe_api.defined_name(function)
    rows = {entry.name: entry for entry in contract.concrete_parameters(name)}
    parameter = next((spelled for spelled in parameter.split() if spelled in rows), parameter)  # as this release names it
    assert parameter in rows, (name, sorted(rows))
    assert defined is None or contract.concrete_parameters(defined) == contract.concrete_parameters(name)
    raises = rows[parameter].raised_by(in_a_tuple)
    expected = getattr(jax.errors, raises, None) or getattr(__import__("builtins"), raises)
    value = 2 if rows[parameter].shape else 0  # a size, or an axis every sample has
    with pytest.raises(expected):
        jax.jit(call)(value)
    call(value)


@pytest.mark.parametrize("name", ["jax.numpy.argwhere", "jax.numpy.flatnonzero", "jax.numpy.setdiff1d", "jax.numpy.unique"])
def test_a_traced_call_without_size_raises_and_runs_with_it(name: str) -> None:
    assert contract.makes_shape(name)
    function, _ = function_of(name)

    def call(x: jax.Array, **size: int) -> Any:
        return function(x, x + 1, **size) if name.endswith("1d") else function(x, **size)

    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(call)(X)
    jax.jit(lambda x: call(x, size=4))(X)


def test_repeat_needs_total_repeat_length() -> None:
    """The probe does not pass ``total_repeat_length``: ``SIZE_FIXED_BY`` is measured here."""
    assert contract.SIZE_FIXED_BY == {"jax.numpy.repeat": "total_repeat_length", "jax.Array.repeat": "total_repeat_length"}
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda n: jnp.repeat(X, n))(2)  # type: ignore[jax-traced-shape]
    jax.jit(lambda n: jnp.repeat(X, n, total_repeat_length=8))(2)
    jax.jit(lambda n: X.repeat(n, total_repeat_length=8))(2)


def test_an_unreadable_table_leaves_the_rules_silent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "jax-0.4.31.json").write_text("{not json")
    monkeypatch.setattr(contract, "FOLDER", tmp_path)
    contract.contract.cache_clear()
    try:
        assert contract.concrete_parameters("jax.numpy.zeros") == ()
        assert not contract.makes_shape("jax.numpy.argwhere")
    finally:
        contract.contract.cache_clear()


REMOVED = sorted(contract.removed_names())


@pytest.mark.parametrize("fullname", REMOVED)
def test_every_removed_name_raises_attribute_error(fullname: str) -> None:
    """Each name the table holds as removed by this release is gone from its module."""
    module, _, name = fullname.rpartition(".")
    with pytest.raises(AttributeError):
        getattr(importlib.import_module(module), name)


def test_the_removed_names_of_the_threads_are_held_with_their_replacement() -> None:
    """Each held from the release that removed it; before it, the name is there."""
    for fullname, (removed_in, replaced_by) in {
        "jax.tree_map": ("0.6.0", "jax.tree_util.tree_map"),
        "jax.numpy.DeviceArray": ("0.4.14", "jax.Array"),
        "jax.ops.index_update": ("0.3.2", ".at["),
        "jax.partial": ("0.2.21", "functools.partial"),
    }.items():
        gone = contract.removed(fullname)
        module, _, name = fullname.rpartition(".")
        if release.STUBS < release.parse_version(removed_in):
            assert gone is None and hasattr(importlib.import_module(module), name), fullname
            continue
        assert gone is not None and gone.release == removed_in and replaced_by in gone.replacement, (fullname, gone)
    assert len(REMOVED) > 300, len(REMOVED)


REMOVED_MODULES = sorted(contract.removed_modules())


@pytest.mark.parametrize("name", REMOVED_MODULES)
def test_every_removed_module_raises_module_not_found_error(name: str) -> None:
    """Each module the table holds as removed by this release: no file of it in the installed
    JAX, its import raises ModuleNotFoundError, and ``from <package> import <it>`` raises
    ImportError unless the package still binds the name (``parent_binds``, as ``jax`` binds
    ``config``)."""
    relative = Path(*name.split(".")[1:])
    jax_folder = Path(jax.__file__).parent
    assert not (jax_folder / relative).with_suffix(".py").exists() and not (jax_folder / relative / "__init__.py").exists()
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(name)
    parent, _, last = name.rpartition(".")
    try:
        package = importlib.import_module(parent)
    except ImportError:
        return  # the package is gone too, or needs what is not installed (jax2tf needs TensorFlow)
    assert hasattr(package, last) == contract.removed_modules()[name].parent_binds, name


def test_the_removed_modules_of_the_threads_are_held() -> None:
    for name, removed_in in {"jax.experimental.host_callback": "0.8.0", "jax.config": "0.4.29", "jax.experimental.maps": "0.4.31"}.items():
        gone = contract.removed_module(name)
        if release.STUBS < release.parse_version(removed_in):
            assert gone is None, name
            continue
        assert gone is not None and gone.release == removed_in, (name, gone)
    assert contract.removed_module("jax.experimental.host_callback.call") == contract.removed_module("jax.experimental.host_callback")


OUT = sorted(contract.contract().out)


@pytest.mark.parametrize("name", OUT)
def test_out_raises_what_the_table_says(name: str) -> None:
    import inspect

    function, _ = function_of(name)
    parameters = list(inspect.signature(function).parameters.values())
    assert probe_api.probe_out(function, parameters, jax) == contract.out_raises(name)


def test_a_keyword_the_function_lacks_raises_type_error() -> None:
    """``newshape``, deprecated in 0.4.28, raises from the release that removed it; where the
    table says the function takes it, it runs."""
    if contract.rejects_keyword("jax.numpy.reshape", "newshape"):
        with pytest.raises(TypeError, match="newshape"):
            jnp.reshape(X, newshape=(2, 2))  # type: ignore[call-arg]
    else:
        assert release.STUBS < (0, 7, 0)  # gone by 0.7.2
        jnp.reshape(X, newshape=(2, 2))  # type: ignore[call-arg, unused-ignore]
    assert contract.rejects_keyword("jax.numpy.reshape", "no_such_keyword")
    with pytest.raises(TypeError):
        jnp.reshape(X, (2, 2), no_such_keyword=1)  # type: ignore[call-arg]
    assert not contract.rejects_keyword("jax.numpy.no_such_function", "x")
    assert "jax.numpy.sum" in OUT
    import inspect

    ufunc_out = "out" in inspect.signature(jnp.maximum).parameters  # a ufunc, with NumPy's out=, on later releases
    assert ("jax.numpy.maximum" in OUT) == ufunc_out
