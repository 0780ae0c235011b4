#!/usr/bin/env python3
"""What the installed JAX raises when a traced value reaches each parameter of its public API.

    python scripts/probe_api.py [--module jax.numpy ...] [--json mypy_plugin/contract/jax-<release>.json]

Run with the Python of an environment that has the JAX release to probe (``scripts/release``
does, for each release). For each public function of the modules probed it builds sample
arguments from the parameters' names (an array for ``x``, ``0`` for ``axis``, ``(2,)`` for
``shape``, a PRNG key for ``key``), checks that the call runs under ``jax.jit`` with every
argument concrete, then passes one parameter at a time as an argument of the jitted function,
so that it arrives traced, and records what the call raises. A function that takes ``size=``
is also called traced without it. What this cannot decide it says: a function whose samples do
not run, a parameter with no sample (a dtype, a callable, a default left as it is) is
``unprobed``, never guessed.
"""

from __future__ import annotations

import argparse
import inspect
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODULES = ("jax.numpy", "jax.numpy.fft", "jax.numpy.linalg", "jax.nn", "jax.random", "jax.lax", "jax.image", "jax.ops")
ARRAY_NAMES = frozenset(
    {"x", "x1", "x2", "a", "b", "arr", "ary", "array", "m", "v", "y", "operand", "lhs", "rhs", "p", "values", "ar", "ar1", "ar2"}
    | {"data", "input", "xp", "fp", "c", "condition", "weights", "logits", "image", "u", "w", "z", "q", "element", "test_elements"}
    | {"prototype", "A"}
)
INT_NAMES = frozenset(
    {"axis", "axis1", "axis2", "k", "n", "N", "M", "num", "deg", "size", "repeats", "num_classes", "num_segments", "offset"}
    | {"dimension", "source", "destination", "start", "stop", "step", "indices_or_sections", "reps", "shift", "ndmin"}
)
SHAPE_NAMES = frozenset({"shape", "new_shape", "newshape", "sizes", "slice_sizes"})
SIZE_NAMES = INT_NAMES | SHAPE_NAMES
"""Parameters probed even where they have a default: those whose names say they are sizes."""
SCALAR_NAMES = frozenset({"fill_value", "alpha", "negative_slope"})
TIMEOUT_SECONDS = 10
RUNS = "runs"


def samples(parameter: inspect.Parameter, jnp: Any, random: Any) -> Any:
    """A sample value for ``parameter``, or ``inspect.Parameter.empty`` where its name says nothing."""
    name = parameter.name
    if name in ARRAY_NAMES:
        return jnp.arange(1.0, 5.0)
    if name == "key":
        return random.key(0)
    if name in INT_NAMES:
        return 0 if name.startswith(("axis", "offset", "k", "source", "destination", "start", "shift", "dimension")) else 2
    if name in SHAPE_NAMES:
        return (4,)
    if name in SCALAR_NAMES:
        return 1.0
    return inspect.Parameter.empty


def call_with(function: Callable[..., Any], arguments: dict[str, Any], traced: str | None, jax: Any) -> str:
    """``RUNS``, or the name of what the call raises under ``jax.jit`` with ``traced`` a tracer."""

    def body(value: Any = None) -> Any:
        given = dict(arguments)
        if traced is not None:
            given[traced] = value
        positional = [given.pop(name) for name in list(given) if name.startswith("*positional")]
        return function(*positional, **given)

    def alarm(*_: object) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(TIMEOUT_SECONDS)
    try:
        if traced is None:
            jax.block_until_ready(jax.jit(body)())
        else:
            value = arguments[traced]
            jax.block_until_ready(jax.jit(body)(jax.numpy.asarray(value)))
    except Exception as error:  # noqa: BLE001 - what JAX raises is the measurement
        return type(error).__name__
    finally:
        signal.alarm(0)
    return RUNS


def probe_function(function: Callable[..., Any], jax: Any) -> dict[str, Any]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return {"unprobed": "no signature"}
    arguments: dict[str, Any] = {}
    unprobed: dict[str, str] = {}
    for index, parameter in enumerate(signature.parameters.values()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        sample = samples(parameter, jax.numpy, jax.random)
        if sample is inspect.Parameter.empty:
            if parameter.default is parameter.empty:
                return {"unprobed": f"no sample for {parameter.name!r}"}
            unprobed[parameter.name] = "no sample"
            continue
        if parameter.default is not parameter.empty and parameter.name not in SIZE_NAMES:
            unprobed[parameter.name] = "left at its default"
            continue
        key = f"*positional{index}" if parameter.kind is parameter.POSITIONAL_ONLY else parameter.name
        arguments[key] = sample
    baseline = call_with(function, arguments, None, jax)
    if baseline != RUNS:
        return {"unprobed": f"the samples raise {baseline} with every argument concrete"}
    parameters: dict[str, str] = dict(unprobed)
    for key in arguments:
        parameters[key.removeprefix("*positional")] = call_with(function, arguments, key, jax)
    result: dict[str, Any] = {"parameters": parameters}
    if "size" in arguments:
        without_size = {key: value for key, value in arguments.items() if key != "size"}
        first_array = next((key for key, value in without_size.items() if hasattr(value, "shape")), None)
        if first_array is not None:
            result["traced without size"] = call_with(function, without_size, first_array, jax)
    return result


def probe(modules: tuple[str, ...]) -> dict[str, Any]:
    import importlib

    import jax

    functions: dict[str, Any] = {}
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name in sorted(getattr(module, "__all__", None) or dir(module)):
            if name.startswith("_"):
                continue
            function = getattr(module, name, None)
            if not callable(function) or isinstance(function, type):
                continue
            functions[f"{module_name}.{name}"] = probe_function(function, jax)
    return {"jax": jax.__version__, "modules": list(modules), "functions": functions}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", help="a module to probe (default: all of MODULES)")
    parser.add_argument("--json", type=Path, help="write the table here")
    args = parser.parse_args()
    table = probe(tuple(args.module or MODULES))
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
