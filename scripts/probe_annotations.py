#!/usr/bin/env python3
"""Which annotations Python evaluates, and what evaluates the ones it does not: measured.

    python scripts/probe_annotations.py [--python PYTHON ...] [--json benchmarks/results/annotations.json]

A removed JAX name raises only where the code that names it runs. Annotations are code that
often does not run: a string, one under ``from __future__ import annotations`` (PEP 563), a
local variable's (PEP 526), one under ``if TYPE_CHECKING:``, and from Python 3.14 every
annotation until something reads it (PEP 649). Each form below is run in a fresh interpreter
of each Python given, twice (with the future import and without), with the annotation naming
an attribute whose access raises ``AttributeError`` (a stand-in for ``jax.random.KeyArray``);
the row says whether defining and using the code raised, and what. The libraries that read
annotations at run time (dataclass makers, runtime type checkers) are run with the Python this
script runs under, where they are installed (absent ones are left out of the table).

``mypy_plugin/lib/evaluated.py`` decides the same forms from a module's source; the test
(``tests/test_evaluated.py``) runs the forms under the suite's Python and compares. A reader
that evaluates a deferred annotation raises from its own line (the decorator, the class
statement), which is where lint reports it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

STAND_IN = textwrap.dedent(
    """
    import sys, types
    class _Gone(types.ModuleType):
        def __getattr__(self, name):
            raise AttributeError(f"module 'gone' has no attribute {name!r}")
    sys.modules["gone"] = _Gone("gone")
    import gone
    """
)
"""A module ``gone`` whose every attribute raises AttributeError, as a removed JAX name does."""

FORMS: dict[str, str] = {
    "parameter": "def f(x: gone.Removed) -> None: pass\nf(1)",
    "return": "def f() -> gone.Removed: return 1\nf()",
    "local variable": "def f():\n    y: gone.Removed = 1\n    return y\nf()",
    "local variable, no value": "def f():\n    y: gone.Removed\n    return 1\nf()",
    "attribute in a method": "class C:\n    def __init__(self):\n        self.y: gone.Removed = 1\nC()",
    "module variable": "y: gone.Removed = 1",
    "module variable, no value": "y: gone.Removed",
    "class variable": "class C:\n    y: gone.Removed = 1\nC()",
    "class variable, no value": "class C:\n    y: gone.Removed\nC()",
    "string parameter": "def f(x: 'gone.Removed') -> None: pass\nf(1)",
    "string in a subscript": "from typing import Optional\ndef f(x: Optional['gone.Removed'] = None) -> None: pass\nf()",
    "string class variable": "class C:\n    y: 'gone.Removed' = 1\nC()",
    "under if TYPE_CHECKING": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    Alias = gone.Removed",
    "default value": "def f(x=gone.Removed) -> None: pass",
}
"""Forms Python decides alone: the code, run as a module's body."""

READERS: dict[str, tuple[str, str]] = {
    "typing.get_type_hints": ("typing", "import typing\ndef f(x: gone.Removed) -> None: pass\ntyping.get_type_hints(f)"),
    "dataclasses.dataclass": (
        "dataclasses",
        "import dataclasses\n@dataclasses.dataclass\nclass C:\n    y: gone.Removed = 1\nC()",
    ),
    "typing.NamedTuple": ("typing", "import typing\nclass C(typing.NamedTuple):\n    y: gone.Removed = 1\nC()"),
    "functools.singledispatch register": (
        "functools",
        "import functools\n@functools.singledispatch\ndef f(x): pass\n@f.register\ndef _(x: gone.Removed): pass",
    ),
    "flax.struct.dataclass": (
        "flax",
        "from flax import struct\n@struct.dataclass\nclass C:\n    y: gone.Removed = 1\nC()",
    ),
    "flax.linen.Module": (
        "flax",
        "import flax.linen as nn\nclass C(nn.Module):\n    y: gone.Removed = 1\n    @nn.compact\n"
        "    def __call__(self, x):\n        return x\nC().init({}, 1)",
    ),
    "flax.nnx.Module": (
        "flax",
        "from flax import nnx\nclass C(nnx.Module):\n    y: gone.Removed\n    def __init__(self):\n        self.y = 1\nC()",
    ),
    "equinox.Module": ("equinox", "import equinox as eqx\nclass C(eqx.Module):\n    y: gone.Removed = 1\nC()"),
    "chex.dataclass": ("chex", "import chex\n@chex.dataclass\nclass C:\n    y: gone.Removed = 1\nC()"),
    "jaxtyping.jaxtyped with beartype": (
        "beartype",
        "from beartype import beartype\nfrom jaxtyping import jaxtyped\n"
        "@jaxtyped(typechecker=beartype)\ndef f(x: gone.Removed) -> None: pass\nf(1)",
    ),
    "beartype.beartype": ("beartype", "from beartype import beartype\n@beartype\ndef f(x: gone.Removed) -> None: pass\nf(1)"),
    "typeguard.typechecked": (
        "typeguard",
        "from typeguard import typechecked\n@typechecked\ndef f(x: gone.Removed) -> None: pass\nf(1)",
    ),
    "pydantic.BaseModel": ("pydantic", "import pydantic\nclass C(pydantic.BaseModel):\n    y: gone.Removed = 1\nC()"),
}
"""Code that reads annotations at run time, each with the module it needs."""

FUTURE = "from __future__ import annotations\n"
RUNNER = textwrap.dedent(
    """
    import sys
    code = sys.stdin.read()
    try:
        exec(compile(code, "probe", "exec"), {"__name__": "probe"})
    except BaseException as error:
        print(type(error).__name__)
    else:
        print("runs")
    """
)


def outcome(python: str, code: str) -> str:
    """``runs``, or the name of the exception the code raised, in a fresh ``python``."""
    done = subprocess.run([python, "-c", RUNNER], input=code, capture_output=True, text=True, timeout=300, check=False)
    lines = done.stdout.strip().splitlines()
    return lines[-1] if done.returncode == 0 and lines else f"probe failed: {done.stderr.strip().splitlines()[-1:]}"


def version(python: str) -> str:
    done = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def available(module: str) -> bool:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, check=False)
    return done.returncode == 0


def probe(pythons: list[str]) -> dict[str, object]:
    forms: dict[str, dict[str, dict[str, str]]] = {}
    for python in pythons:
        release = version(python)
        for name, code in FORMS.items():
            row = forms.setdefault(name, {})
            row[release] = {"plain": outcome(python, STAND_IN + code), "future": outcome(python, FUTURE + STAND_IN + code)}
    readers: dict[str, dict[str, str]] = {}
    for name, (module, code) in READERS.items():
        if not available(module):
            continue
        readers[name] = {"future": outcome(sys.executable, FUTURE + STAND_IN + code), "plain": outcome(sys.executable, STAND_IN + code)}
    libraries = {
        name: found for name in ("flax", "equinox", "chex", "jaxtyping", "beartype", "typeguard", "pydantic") if (found := installed(name))
    }
    return {"python": version(sys.executable), "libraries": libraries, "forms": forms, "readers": readers}


def installed(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as distribution_version

    try:
        return distribution_version(name)
    except PackageNotFoundError:
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", help="an interpreter to run the forms with (repeatable; default: this one)")
    parser.add_argument("--json", type=Path, help="write the table here")
    args = parser.parse_args()
    table = probe(args.python or [sys.executable])
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    command = "python scripts/probe_annotations.py " + " ".join(f"--python python{version(python)}" for python in args.python or [])
    table = {"revision": revision or "unknown", "command": command.strip(), **table}
    text = json.dumps(table, indent=1, sort_keys=True)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
