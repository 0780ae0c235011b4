"""Every rewrite the jax-immutable-array notes suggest runs, and gives what NumPy's in-place
code gives: the statement runs on NumPy arrays, the rewrite mypy printed runs on JAX arrays
holding the same values, and every array the statement touched must come out equal.

The statements are written once for both libraries (``xp`` is ``numpy`` or ``jax.numpy``);
mypy checks them all in one run, each in a function of its own. A masked assignment's second
note (``jnp.where``) is run too, eagerly and under ``jax.jit``.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from mypy_runs import run_mypy

# (setup, statement, the names it changes)
STATEMENTS = [
    ("x = xp.arange(6.0)", "x[0] = 10.0", ["x"]),
    ("x = xp.arange(6.0)", "x[1:] += 2.0", ["x"]),
    ("x = xp.arange(6.0)", "x[...] *= 3.0", ["x"]),
    ("x = xp.arange(6.0)", "x[0] -= 1.0", ["x"]),
    ("x = xp.arange(6.0)", "x[2] /= 4.0", ["x"]),
    ("x = xp.arange(6.0)", "x[-1] **= 2.0", ["x"]),
    ("x = xp.arange(6.0)", "x[2] //= 4.0", ["x"]),
    ("x = xp.arange(6.0)", "x[3] %= 2.0", ["x"]),
    ("x = xp.arange(6.0)", "x[::2] -= x[1::2]", ["x"]),
    ("m = xp.arange(9.0).reshape(3, 3)", "m[0, 1] = 5.0", ["m"]),
    ("m = xp.arange(9.0).reshape(3, 3)", "m[:, 0] = 5.0", ["m"]),
    ("m = xp.arange(9.0).reshape(3, 3)", "m[1] += xp.ones(3)", ["m"]),
    ("m = xp.arange(9.0).reshape(3, 3)", "m[xp.array([0, 2])] = 5.0", ["m"]),
    ("x = xp.arange(6.0)", "x[x > 2.0] = 0.0", ["x"]),
    ("x = xp.arange(6.0)", "x[x > 2.0] *= 2.0", ["x"]),
    ("m = xp.arange(6.0).reshape(2, 3)", "m.T[0] = 5.0", ["m"]),
    ("m = xp.arange(6.0).reshape(2, 3)", "m.T[1:] += 1.0", ["m"]),
    ("params = {'w': xp.arange(3.0)}", "params['w'][0] = 1.0", ["params"]),
    ("arrays = [xp.arange(3.0), xp.ones(3)]", "arrays[1][2] *= 4.0", ["arrays"]),
]
AT = re.compile(r'^main\.py:(\d+): note: Use "\.at\[\]", which returns an updated copy: "(.*)"$', re.MULTILINE)
WHERE = re.compile(r'^main\.py:(\d+): note: Under jax\.jit a boolean mask cannot index; for a scalar value write "(.*)"$', re.MULTILINE)


def module() -> tuple[str, list[int]]:
    """All statements for mypy, on JAX arrays, and the line of each statement."""
    lines = ["import jax", "import jax.numpy as jnp", "xp = jnp", ""]
    statement_lines = []
    for index, (setup, statement, _) in enumerate(STATEMENTS):
        lines += [f"def case_{index}() -> None:", f"    {setup}"]
        statement_lines.append(len(lines) + 1)
        lines += [f"    {statement}", ""]
    return "\n".join(lines) + "\n", statement_lines


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[str, str | None]]:
    """The rewrite (and the jit-friendly one, if any) that mypy suggests for each statement."""
    folder = tmp_path_factory.mktemp("rewrites")
    text, statement_lines = module()
    (folder / "main.py").write_text(text)
    result = run_mypy(folder, "main.py")
    at = {int(line): rewrite for line, rewrite in AT.findall(result.stdout)}
    where = {int(line): rewrite for line, rewrite in WHERE.findall(result.stdout)}
    assert sorted(at) == statement_lines, result.stdout
    return {index: (at[line], where.get(line)) for index, line in enumerate(statement_lines)}


def run(setup: str, statement: str, library: Any, names: list[str]) -> list[Any]:
    namespace: dict[str, Any] = {"xp": library, "jnp": jnp, "jax": jax}
    exec(textwrap.dedent(f"{setup}\n{statement}\n"), namespace)
    return [namespace[name] for name in names]


def assert_same(jax_value: Any, numpy_value: Any) -> None:
    """Equal arrays, in equal containers."""
    if isinstance(numpy_value, dict):
        assert jax_value.keys() == numpy_value.keys()
        for key in numpy_value:
            assert_same(jax_value[key], numpy_value[key])
    elif isinstance(numpy_value, list):
        assert len(jax_value) == len(numpy_value)
        for jax_item, numpy_item in zip(jax_value, numpy_value):
            assert_same(jax_item, numpy_item)
    else:
        assert isinstance(jax_value, jax.Array)
        np.testing.assert_allclose(np.asarray(jax_value), numpy_value)


@pytest.mark.parametrize("index", range(len(STATEMENTS)), ids=[s for _, s, _ in STATEMENTS])
def test_rewrite_gives_numpys_result(index: int, notes: dict[int, tuple[str, str | None]]) -> None:
    setup, statement, names = STATEMENTS[index]
    rewrite, where = notes[index]
    expected = run(setup, statement, np, names)
    with pytest.raises(TypeError, match="JAX arrays are immutable"):
        run(setup, statement, jnp, names)
    for form in filter(None, [rewrite, where]):
        for actual, wanted in zip(run(setup, form, jnp, names), expected):
            assert_same(actual, wanted)


@pytest.mark.parametrize("index", [i for i, (_, s, _) in enumerate(STATEMENTS) if " > " in s])
def test_masked_rewrite_runs_under_jit(index: int, notes: dict[int, tuple[str, str | None]]) -> None:
    setup, statement, names = STATEMENTS[index]
    _, where = notes[index]
    assert where is not None, "a boolean mask gets the jnp.where form"
    [expected] = run(setup, statement, np, names)
    body = textwrap.indent(f"{where}\nreturn {names[0]}", "    ")
    namespace: dict[str, Any] = {"jnp": jnp}
    exec(f"def update({names[0]}):\n{body}\n", namespace)
    [start] = run(setup, "", jnp, names)
    assert_same(jax.jit(namespace["update"])(start), expected)
