#!/usr/bin/env python3
"""What the installed JAX raises when a traced value reaches each parameter of its public API.

    python scripts/probe_api.py [--module jax.numpy ...] [--json mypy_plugin/contract/jax-<release>.json]

Run with the Python of an environment that has the JAX release to probe
(``scripts/generate_stubs.py --probe`` does, for the release it targets). For each public
function of ``MODULES`` and each method of ``jax.Array`` it builds sample arguments from the
parameters' names (an array for ``x``, ``0`` for ``axis``, ``(4,)`` for ``shape``, a PRNG key
for ``key``), trying the arrays of ``ARRAYS`` in turn until the call runs under ``jax.jit`` with
every argument concrete (traced and lowered, not compiled: what a traced value makes JAX raise,
it raises while tracing, and the tables of 0.4.31, 0.7.2 and 0.10.2 came out the same as with
each call compiled and run, in a quarter of the time); then it passes one parameter at a time
as an argument of the jitted function, so that it arrives traced (a shape's first size, ``(n, ...)``, as users write it), and
records what the call raises. A parameter that raises traced is also given a list where it was
given a tuple or a number (``list``: what a list there raises, concrete: whether it must be
hashable), and a tracer written the other way users write it (``traced in a tuple`` for an
axis, ``traced alone`` for a shape); a function that takes ``size=`` is called traced without
it (``traced without size``). Each entry also says which keywords the function accepts at run
time (``accepts``) and, where it has NumPy's ``out`` parameter, what passing an array there
raises (``out``).

What this cannot decide it says, never guessing: a function none of whose samples run, or one
with a required parameter no name gives a sample for (a callable, dimension numbers, an axis name),
is ``unprobed``; a parameter with no sample or left at its default is recorded as such. The
rules read only the parameters that raise (``analyses/contract.py``).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODULES = (
    "jax.numpy",
    "jax.numpy.fft",
    "jax.numpy.linalg",
    "jax.nn",
    "jax.random",
    "jax.lax",
    "jax.image",
    "jax.ops",
    "jax.scipy.special",
    "jax.scipy.linalg",
    "jax.scipy.signal",
    "jax.scipy.fft",
    "jax.scipy.ndimage",
    "jax.scipy.integrate",
    "jax.scipy.stats.norm",
)
ARRAY_METHODS = "jax.Array"
"""Probed as methods of a concrete array (``x.sum(axis=a)``), under this prefix."""
ARRAY_NAMES = frozenset(
    {"x", "x1", "x2", "a", "b", "arr", "ary", "array", "m", "v", "y", "operand", "lhs", "rhs", "p", "values", "ar", "ar1", "ar2"}
    | {"data", "input", "xp", "fp", "c", "condition", "weights", "logits", "image", "u", "w", "z", "q", "element", "test_elements"}
    | {"prototype", "A", "a1", "a2", "t", "f", "mean", "cov", "loc", "scale", "in1", "in2", "val"}
)
LIST_NAMES = frozenset({"arrays", "tup", "operands", "xs"})
INT_NAMES = frozenset(
    {"axis", "axis1", "axis2", "k", "n", "N", "M", "num", "deg", "size", "repeats", "num_classes", "num_segments", "offset"}
    | {"dimension", "source", "destination", "start", "stop", "step", "indices_or_sections", "reps", "shift", "ndmin"}
    | {"decimals", "slice_size"}
)
SHAPE_NAMES = frozenset({"shape", "new_shape", "newshape", "sizes", "slice_sizes", "axes"})
SIZE_NAMES = INT_NAMES | SHAPE_NAMES
"""Parameters probed even where they have a default: those whose names say they are sizes."""
SCALAR_NAMES = frozenset({"fill_value", "alpha", "negative_slope"})
OTHER_SAMPLES = {
    "start_indices": (0,),
    "limit_indices": (2,),
    "start_index": 0,
    "broadcast_dimensions": (0,),
    "minval": 0,
    "maxval": 4,
    "lower": -1.0,
    "upper": 1.0,
    "dtype": "float32",
}
"""Samples for parameters of ``jax.lax`` and ``jax.random`` whose names say what they take."""
STARTING_AT_ZERO = ("axis", "offset", "k", "source", "destination", "start", "shift", "dimension", "decimals")
ARRAYS = (((4,), "float32"), ((4, 4), "float32"), ((4,), "int32"), ((4, 4), "int32"), ((1, 4), "float32"))
"""The sample arrays, tried in turn: a vector, a square matrix (linear algebra), integers
(bitwise functions), a row (``squeeze``)."""
TIMEOUT_SECONDS = 10
RUNS = "runs"
NO_SAMPLE = "no sample"
DEFAULT = "left at its default"
IN_A_TUPLE = "traced in a tuple"
ALONE = "traced alone"
OTHER_FORM = {True: IN_A_TUPLE, False: ALONE}
"""Where a parameter's sample is an int, what a tracer inside a tuple there raises
(``jnp.sum(x, axis=(a, 1))``); where it is a shape, what a tracer alone raises (``jnp.zeros(n)``)."""
UNTRACEABLE = "not an array"
"""A sample that cannot be made an array (a dtype's name): no tracer can reach the parameter."""


def sample(name: str, array: Any, jax: Any) -> Any:
    """A sample value for the parameter ``name``, or ``inspect.Parameter.empty`` where its name says nothing."""
    if name in SHAPE_NAMES:
        return (0,) if name == "axes" else (4,)
    if name in ARRAY_NAMES:
        return array
    if name in LIST_NAMES:
        return [array, array]
    if name == "key":
        return jax.random.key(0)
    if name in INT_NAMES:
        return 0 if name.startswith(STARTING_AT_ZERO) else 2
    if name == "indices" or name == "segment_ids":
        return jax.numpy.array([0, 0, 1, 1])
    if name in SCALAR_NAMES:
        return 1.0
    return OTHER_SAMPLES.get(name, inspect.Parameter.empty)


def as_list(value: Any) -> Any:
    """The list a user writes for ``value`` (``[4]`` for ``(4,)``, ``[0]`` for ``0``), or None."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    return None


def call_with(call: Callable[..., Any], arguments: dict[str, Any], traced: str | None, jax: Any) -> str:
    """``RUNS``, or the name of what the call raises under ``jax.jit`` with ``traced`` a tracer."""

    def body(value: Any = None) -> Any:
        given = dict(arguments)
        if traced is not None:
            sampled = arguments[traced]
            given[traced] = (value, *sampled[1:]) if isinstance(sampled, tuple) else value
        positional = [given.pop(name) for name in list(given) if name.startswith("*")]
        return call(*positional, **given)

    def alarm(*_: object) -> None:
        raise TimeoutError

    if traced is not None:
        sampled = arguments[traced]
        try:
            traced_value = jax.numpy.asarray(sampled[0] if isinstance(sampled, tuple) else sampled)
        except Exception:  # noqa: BLE001 - a string, a dtype: nothing a user can trace
            return UNTRACEABLE
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(TIMEOUT_SECONDS)
    try:  # traced and lowered, not compiled: JAX raises for a traced value while tracing
        if traced is None:
            jax.jit(body).lower()
        else:
            jax.jit(body).lower(traced_value)
    except Exception as error:  # noqa: BLE001 - what JAX raises is the measurement
        return type(error).__name__
    finally:
        signal.alarm(0)
    return RUNS


def defined_name(function: Any) -> str | None:
    """Where the function is defined, as mypy names it (``jax._src.lax.lax.full``): the module
    of its source file, which is what a re-export resolves to."""
    unwrapped = inspect.unwrap(function)
    try:
        path = Path(inspect.getsourcefile(unwrapped) or "")
    except TypeError:
        return None
    parts = path.with_suffix("").parts
    if "jax" not in parts or not hasattr(unwrapped, "__name__"):
        return None
    module = parts[len(parts) - 1 - parts[::-1].index("jax") :]
    if module[-1] == "__init__":
        module = module[:-1]
    return ".".join((*module, unwrapped.__name__))


def probe_function(function: Callable[..., Any], jax: Any, method: str | None = None) -> dict[str, Any]:
    """The entry of one function (or, with ``method``, of ``jax.Array.<method>``)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return {"unprobed": "no signature"}
    listed = list(signature.parameters.values())[1 if method else 0 :]
    call: Callable[..., Any] = (lambda self, *args, **kwargs: getattr(self, method)(*args, **kwargs)) if method else function
    accepts = {
        "keywords": sorted(p.name for p in listed if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)),
        "any keyword": any(p.kind is p.VAR_KEYWORD for p in listed),
    }
    out = probe_out(function, listed, jax) if not method and any(p.name == "out" for p in listed) else None
    # Where no sample array runs with every size-named parameter given, each optional one is
    # left at its default in turn, keyword-only first (0.4.31's jnp.reshape takes "shape" and
    # the deprecated keyword "newshape", which raise together).
    optional = [p.name for p in sorted(listed, key=lambda p: p.kind is not p.KEYWORD_ONLY) if p.default is not p.empty]
    last = "no sample array runs"
    for left in [frozenset(), *(frozenset({name}) for name in optional if name in SIZE_NAMES)]:
        for shape, dtype in ARRAYS:
            entry = probe_with(call, listed, jax.numpy.ones(shape, dtype), jax, method is not None, left)
            if "unprobed" not in entry or not entry["unprobed"].startswith("the samples raise"):
                return {**entry, "accepts": accepts, **({"out": out} if out else {})}
            last = entry["unprobed"]
    return {"unprobed": last, "accepts": accepts, **({"out": out} if out else {})}


def probe_out(function: Callable[..., Any], listed: list[inspect.Parameter], jax: Any) -> str:
    """What the function raises given NumPy's ``out=`` (an array to write into), called as
    NumPy code calls it: with its array arguments (a ufunc's ``nin`` of them), not traced."""
    array = jax.numpy.ones((4,))
    count = getattr(function, "nin", None)
    if count is None:
        required = [p for p in listed if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if any(p.name not in ARRAY_NAMES for p in required):
            return NO_SAMPLE
        count = len(required)
    try:
        function(*[array] * count, out=array)
    except Exception as error:  # noqa: BLE001 - what JAX raises is the measurement
        return type(error).__name__
    return RUNS


def probe_with(
    call: Callable[..., Any], listed: list[inspect.Parameter], array: Any, jax: Any, is_method: bool, left: frozenset[str]
) -> dict[str, Any]:
    """The entry from one sample array, the parameters named in ``left`` left at their default."""
    arguments: dict[str, Any] = {"*self": array} if is_method else {}
    parameters: dict[str, dict[str, Any]] = {}
    position = 0
    for parameter in listed:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            position = -1
            continue
        place = position if parameter.kind is not parameter.KEYWORD_ONLY and position >= 0 else -1
        if position >= 0 and parameter.kind is not parameter.KEYWORD_ONLY:
            position += 1
        value = sample(parameter.name, array, jax)
        if value is inspect.Parameter.empty:
            if parameter.default is parameter.empty:
                return {"unprobed": f"no sample for {parameter.name!r}"}
            parameters[parameter.name] = {"position": place, "traced": NO_SAMPLE}
            continue
        if parameter.default is not parameter.empty and (parameter.name not in SIZE_NAMES or parameter.name in left):
            parameters[parameter.name] = {"position": place, "traced": DEFAULT}
            continue
        key = f"*{parameter.name}" if parameter.kind is parameter.POSITIONAL_ONLY else parameter.name
        arguments[key] = value
        parameters[parameter.name] = {"position": place}
    baseline = call_with(call, arguments, None, jax)
    if baseline != RUNS:
        return {"unprobed": f"the samples raise {baseline} with every argument concrete"}
    for key, value in arguments.items():
        if key == "*self":
            continue
        name = key.removeprefix("*")
        outcome = call_with(call, arguments, key, jax)
        parameters[name]["traced"] = outcome
        listed_value = as_list(value)
        if outcome != RUNS and listed_value is not None:
            parameters[name]["list"] = call_with(call, {**arguments, key: listed_value}, None, jax)
        if outcome != RUNS and isinstance(value, (int, tuple)) and not isinstance(value, bool) and value != ():
            # the other way users write it: "(n,)" for an int, "n" for a shape; its error may differ
            alone, in_tuple = (value, (value,)) if isinstance(value, int) else (value[0], value)
            other = in_tuple if isinstance(value, int) else alone
            parameters[name][OTHER_FORM[isinstance(value, int)]] = call_with(call, {**arguments, key: other}, key, jax)
    result: dict[str, Any] = {"parameters": parameters}
    if "size" in arguments:
        without_size = {key: value for key, value in arguments.items() if key != "size"}
        first_array = next((key for key, value in without_size.items() if hasattr(value, "shape")), None)
        if first_array is not None:
            result["traced without size"] = call_with(call, without_size, first_array, jax)
    return result


def probe(modules: tuple[str, ...], methods: bool = True) -> dict[str, Any]:
    import jax

    functions: dict[str, Any] = {}
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in sorted(getattr(module, "__all__", None) or dir(module)):
            function = getattr(module, name, None)
            if name.startswith("_") or not callable(function) or isinstance(function, type):
                continue
            entry = probe_function(function, jax)
            defined = defined_name(function)
            if defined is not None and defined != f"{module_name}.{name}":
                entry["defined"] = defined
            functions[f"{module_name}.{name}"] = entry
    if methods:
        for name in sorted(dir(jax.Array)):
            method = getattr(jax.Array, name, None)
            if not name.startswith("_") and callable(method) and not isinstance(method, type):
                functions[f"{ARRAY_METHODS}.{name}"] = probe_function(method, jax, method=name)
    return {"jax": jax.__version__, "modules": [*modules, *([ARRAY_METHODS] if methods else [])], "functions": functions}


CONTRACT = Path(__file__).resolve().parent.parent / "mypy_plugin" / "contract"


def table_path(release: str) -> Path:
    """Where the checkout keeps the table of ``release`` (``analyses/contract.py`` reads it)."""
    return CONTRACT / f"jax-{release}.json"


def probe_release(release: str, python: str, scratch: Path) -> Path:
    """Install JAX ``release`` into a virtual environment of its own (made with ``python``, one
    that release supports) under ``scratch``, probe it there and write its table into the
    checkout; the table's path. Raises ``RuntimeError`` with pip's or the probe's last line."""
    import subprocess

    environment = scratch / f"probe-{release}"
    steps = [
        [python, "-m", "venv", str(environment)],
        [str(environment / "bin" / "python"), "-m", "pip", "install", "--quiet", f"jax=={release}"],
        [str(environment / "bin" / "python"), __file__, "--json", str(table_path(release))],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            raise RuntimeError(f"probing jax {release}: {' '.join(step[:3])} failed: {last}")
    return table_path(release)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", help="a module to probe (default: all of MODULES and jax.Array's methods)")
    parser.add_argument("--json", type=Path, help="write the table here")
    args = parser.parse_args()
    table = probe(tuple(args.module or MODULES), methods=not args.module)
    text = json.dumps(table, indent=1, sort_keys=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    functions = table["functions"].values()
    probed = sum("parameters" in entry for entry in functions)
    print(f"probe_api: {probed} of {len(table['functions'])} functions probed on JAX {table['jax']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
