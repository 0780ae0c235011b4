"""JAX's contract as its release behaves: which parameters must be Python values while JAX traces.

The tables are measured, not typed: ``scripts/probe_api.py`` calls every public function of
JAX's modules and every method of ``jax.Array`` under ``jax.jit`` with a tracer in one parameter
at a time and records what each raises; ``contract/jax-<release>.json`` holds the result for each
JAX release the package supports, and ``tests/test_contract.py`` probes the installed JAX again on
every release of the matrix. The table of the package's own release (``release.STUBS``) is read
at the first question, not when mypy loads the plugin.

A parameter that raises traced is either a *shape* (a shape, a size, a count, a length: what the
result's shape is made from; ``jax-traced-shape``) or a *setting* (an axis, an offset, an
exponent, a number of decimals: a Python value the function branches on; ``jax-traced-value``).
The same tables say which keywords each function takes at run time and what NumPy's ``out=``
raises there, and ``contract/removed.json`` (``scripts/removed_names.py``) which names JAX removed
from its public modules, and when (``lint/mypy_errors.py`` reads both).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Final, NamedTuple

from mypy_plugin.lib import release

FOLDER: Final = Path(__file__).resolve().parent.parent / "contract"
ARRAY_METHOD_PREFIX: Final = "jax.Array."
"""The prefix of the table's entries for methods of ``jax.Array`` (``jax.Array.sum``)."""
RUNS: Final = "runs"
ALONE: Final = "traced alone"
IN_A_TUPLE: Final = "traced in a tuple"
NOT_MEASURED: Final = frozenset({RUNS, "no sample", "left at its default", "not an array"})
"""The outcomes of a parameter that say it takes a tracer, or that the probe did not try one."""
SHAPE_PARAMETERS: Final = frozenset(
    {"shape", "new_shape", "newshape", "sizes", "slice_sizes", "slice_size", "size", "N", "M", "n", "num", "num_classes"}
    | {"num_segments", "repeats", "reps", "indices_or_sections", "deg", "start", "stop", "step", "limit_indices", "start_indices"}
)
"""Names of the parameters whose value the result's shape is made from (a count or a length
included: ``jnp.fft.fft(x, n=m)``, ``jnp.polyfit(x, y, deg)``)."""
SETTING_PARAMETERS: Final = frozenset(
    {"axis", "axes", "axis1", "axis2", "source", "destination", "dimension", "broadcast_dimensions", "k", "offset", "decimals"}
)
"""Names of the parameters that are settings: an axis, an offset, a number of decimals."""
SETTINGS_BY_FUNCTION: Final = {
    "jax.numpy.angle": frozenset({"deg"}),
    "jax.numpy.rollaxis": frozenset({"start"}),
    "jax.numpy.linalg.matrix_power": frozenset({"n"}),
}
"""Parameters that are settings where their name says a size elsewhere (``jnp.angle``'s ``deg``
is a flag, ``matrix_power``'s ``n`` an exponent). A parameter in neither set (a new name in a
new release, an array JAX cannot take traced such as ``from_dlpack``'s) is left out: the rules
stay silent on it, and ``tests/test_contract.py`` lists it."""
SIZE_FIXED_BY: Final = {"jax.numpy.repeat": "total_repeat_length", "jax.Array.repeat": "total_repeat_length"}
"""Functions whose shape parameter stops being one when this keyword is given
(``jnp.repeat(x, n, total_repeat_length=6)`` runs): the probe does not pass it, so it is
measured by hand (``tests/test_traced_tables.py``)."""
NOT_SHAPE_MAKING: Final = frozenset({"jax.numpy.where"})
"""Functions that take ``size=`` but make a shape from values only in one form
(``jnp.where(condition)`` alone), which the walk decides by the arguments written."""


class Concrete(NamedTuple):
    """A parameter that must be a Python value while JAX traces."""

    position: int
    """Its index among the positional parameters (a method's without ``self``); -1 for one taken by name only."""
    name: str
    alone: str
    """What JAX raises under ``jax.jit`` when a tracer is given there (``jnp.zeros(n)``); empty
    where that runs."""
    in_tuple: str
    """What JAX raises when a tuple holding a tracer is (``jnp.sum(x, axis=(a, 1))``); empty
    where that runs."""
    shape: bool
    """A shape or a size (``jax-traced-shape``), not a setting (``jax-traced-value``)."""

    def raised_by(self, in_a_tuple: bool) -> str:
        """What a tracer written this way raises there; empty where it runs."""
        return self.in_tuple if in_a_tuple else self.alone


class Contract(NamedTuple):
    release: str
    """The JAX release the table was measured on."""
    concrete: dict[str, tuple[Concrete, ...]]
    """For each function (by every name mypy may give it) and each ``jax.Array.<method>``."""
    shape_making: frozenset[str]
    """Functions (and ``jax.Array.<method>`` entries) that raise traced without ``size=``."""
    accepts: dict[str, tuple[frozenset[str], bool]]
    """For each function: the keywords it takes at run time, and whether it takes any (``**kwargs``)."""
    out: dict[str, str]
    """For each function with NumPy's ``out`` parameter that raises given an array there: what it raises."""


class Removed(NamedTuple):
    """A name JAX removed from a public module (``scripts/removed_names.py``)."""

    fullname: str
    release: str
    """The first release without it."""
    replacement: str
    """JAX's own text of what replaced it (its ``_deprecations`` entry), or the changelog's; may be empty."""


def table_file(stubs: tuple[int, ...] = release.STUBS) -> Path | None:
    """The table of ``stubs``'s release, or of the newest release before it that has one."""
    measured = sorted(
        (release.parse_version(path.stem.removeprefix("jax-"))[:3], path) for path in FOLDER.glob("jax-*.json") if path.is_file()
    )
    before = [path for version, path in measured if version <= stubs]
    return before[-1] if before else None


@functools.cache
def contract() -> Contract:
    """The table of the package's release, read once; empty where it is missing or unreadable,
    so that the rules stay silent rather than guess."""
    path = table_file()
    try:
        table = json.loads(path.read_text(encoding="utf-8")) if path is not None else {}
    except (OSError, ValueError):
        table = {}
    functions: dict[str, Any] = table.get("functions", {}) if isinstance(table, dict) else {}
    concrete: dict[str, tuple[Concrete, ...]] = {}
    shape_making: set[str] = set()
    accepts: dict[str, tuple[frozenset[str], bool]] = {}
    out: dict[str, str] = {}
    for name, entry in functions.items():
        taken = entry.get("accepts")
        if isinstance(taken, dict):
            accepts[name] = (frozenset(taken.get("keywords", ())), bool(taken.get("any keyword", True)))
        if entry.get("out", RUNS) not in NOT_MEASURED:
            out[name] = entry["out"]
        parameters = read_parameters(entry.get("parameters", {}), SETTINGS_BY_FUNCTION.get(name, frozenset()))
        names = [name, *([entry["defined"]] if "defined" in entry else [])]
        if parameters:
            concrete.update(dict.fromkeys(names, parameters))
        if entry.get("traced without size", RUNS) != RUNS and name not in NOT_SHAPE_MAKING:
            shape_making.update(names)
    return Contract(str(table.get("jax", "")), concrete, frozenset(shape_making), accepts, out)


def read_parameters(parameters: dict[str, Any], settings: frozenset[str]) -> tuple[Concrete, ...]:
    """The parameters measured to raise traced, each a shape or a setting by its name, with what
    each way of writing a tracer there raises (the probe gave an axis an int and a shape a
    tuple, and measured the other way too: ``IN_A_TUPLE``, ``ALONE``)."""
    found = []
    for name, measured in parameters.items():
        raises = measured.get("traced", RUNS)
        kind = kind_of(name, settings)
        if raises in NOT_MEASURED or kind is None:
            continue
        alone, in_tuple = (written_so(str(measured.get(form, raises)), raises) for form in (ALONE, IN_A_TUPLE))
        found.append(Concrete(int(measured.get("position", -1)), name, alone, in_tuple, kind == SHAPE))
    return tuple(found)


def written_so(outcome: str, raises: str) -> str:
    """What a tracer written one way raises: empty where it runs; the sample's own outcome where
    that way was not tried."""
    return "" if outcome == RUNS else raises if outcome in NOT_MEASURED else outcome


SHAPE: Final = "shape"
SETTING: Final = "setting"


def kind_of(name: str, settings: frozenset[str] = frozenset()) -> str | None:
    """``SHAPE`` or ``SETTING`` for a parameter's name (``settings``: the function's own
    exceptions, ``SETTINGS_BY_FUNCTION``); None for a name neither table decides."""
    if name in settings or name in SETTING_PARAMETERS:
        return SETTING
    return SHAPE if name in SHAPE_PARAMETERS else None


def concrete_parameters(fullname: str) -> tuple[Concrete, ...]:
    """The parameters of the JAX function ``fullname`` that must be concrete (none for a name
    the table does not hold)."""
    return contract().concrete.get(fullname, ())


def method_parameters(method: str) -> tuple[Concrete, ...]:
    """The parameters of ``jax.Array.<method>`` that must be concrete."""
    return contract().concrete.get(ARRAY_METHOD_PREFIX + method, ())


def makes_shape(fullname: str) -> bool:
    """Whether the JAX function ``fullname`` raises traced unless ``size=`` is given."""
    return fullname in contract().shape_making


def method_makes_shape(method: str) -> bool:
    return ARRAY_METHOD_PREFIX + method in contract().shape_making


def rejects_keyword(fullname: str, keyword: str) -> bool:
    """Whether the public JAX function ``fullname`` (``jax.numpy.reshape``) raises ``TypeError``
    for ``keyword`` on every call: its signature at run time has no such parameter and no
    ``**kwargs``. False where the table does not know the function."""
    taken = contract().accepts.get(fullname)
    return taken is not None and keyword not in taken[0] and not taken[1]


def out_raises(fullname: str) -> str | None:
    """What the public JAX function ``fullname`` raises given an array as NumPy's ``out=``."""
    return contract().out.get(fullname)


@functools.cache
def removed_names() -> dict[str, Removed]:
    """The names JAX removed by the package's release, read once (empty where the table is
    missing or unreadable)."""
    try:
        table = json.loads((FOLDER / "removed.json").read_text(encoding="utf-8"))
        entries = table["removed"].items()
    except (OSError, ValueError, KeyError, AttributeError):
        return {}
    return {
        fullname: Removed(fullname, str(entry["removed"]), str(entry.get("replacement", "")))
        for fullname, entry in entries
        if isinstance(entry, dict) and "removed" in entry and release.parse_version(str(entry["removed"]))[:3] <= release.STUBS
    }


def removed(fullname: str) -> Removed | None:
    """The removal of ``fullname`` (``jax.tree_map``) by the package's release, or None."""
    return removed_names().get(fullname)


class RemovedModule(NamedTuple):
    """A public module JAX removed (``scripts/removed_names.py``)."""

    name: str
    release: str
    """The first release without it."""
    parent_binds: bool
    """Whether the parent package still binds the name (``jax.config``, now an object): then
    ``from jax import config`` runs, and only imports of the module itself raise."""
    replacement: str
    """What replaced it (JAX's changelog); may be empty."""


@functools.cache
def removed_modules() -> dict[str, RemovedModule]:
    """The modules JAX removed by the package's release, read once (empty where the table is
    missing or unreadable)."""
    try:
        table = json.loads((FOLDER / "removed.json").read_text(encoding="utf-8"))
        entries = table["removed_modules"].items()
    except (OSError, ValueError, KeyError, AttributeError):
        return {}
    return {
        name: RemovedModule(name, str(entry["removed"]), bool(entry.get("parent_binds")), str(entry.get("replacement", "")))
        for name, entry in entries
        if isinstance(entry, dict) and "removed" in entry and release.parse_version(str(entry["removed"]))[:3] <= release.STUBS
    }


def removed_module(name: str) -> RemovedModule | None:
    """The removal of module ``name`` or of the package that held it (``jax.experimental.
    host_callback`` for ``jax.experimental.host_callback.call``), or None."""
    parts = name.split(".")
    for end in range(len(parts), 1, -1):
        found = removed_modules().get(".".join(parts[:end]))
        if found is not None:
            return found
    return None
