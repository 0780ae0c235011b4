#!/usr/bin/env python3
"""What the traced-value walk enters in released JAX libraries, and what it reports there.

Fetches each library's wheel with pip (the sources are only read), checks its package with mypy
and the plugin in this process (``check_untyped_defs``, imports not installed ignored), and
counts, with a hook around ``tracing.Walk``: the transformed functions walked (each once, by
transform), the parameters taken as traced or as pytrees of tracers, the helpers followed,
where the walk gives up (each call given tracers that it neither knows nor follows, by why:
``calls.not_followed``), and every report of the plugin by code (each printed to stderr, to be
explained). Run it with the
Python of the environment ``scripts/test`` builds:

    .venv-test/bin/python benchmarks/walk_count.py chex==0.1.92 optax==0.2.8 ... [--json out.json]

Each library is checked with a fresh cache, so a change of the plugin is always seen.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import provenance
from mypy import api
from mypy.nodes import CallExpr

from mypy_plugin.analyses.sites import Site
from mypy_plugin.analyses.values import Env, State
from mypy_plugin.rules.traced import calls, tracing

REPORT = re.compile(r"error: .*  \[(jax-[\w-]+)\]$")
"""An error of the plugin, with its code."""
CONFIG = """[mypy]
plugins = mypy_plugin
check_untyped_defs = True
ignore_missing_imports = True
follow_imports = silent
"""


class Counts:
    """What the walk entered, over every library checked."""

    def __init__(self) -> None:
        self.functions: set[tuple[str, str, int, int]] = set()
        self.by_transform: collections.Counter[str] = collections.Counter()
        self.parameters = 0
        self.helpers: set[tuple[str, str]] = set()
        self.gave_up: dict[tuple[str, int, int], str] = {}
        self.reports: dict[str, dict[str, int]] = {}

    def install(self) -> None:
        """Wrap ``Walk.run`` (each transformed function), ``Calls.follow`` (each helper) and
        ``Calls.gave_up`` (each call not followed)."""
        run, follow = tracing.Walk.run, calls.Calls.follow
        counts = self

        def counted_run(walk: tracing.Walk) -> list[Site]:
            function = walk.transformed.function
            key = (walk.module, getattr(function, "_fullname", ""), function.line, function.column)
            if key not in counts.functions:
                counts.functions.add(key)
                counts.by_transform[walk.transformed.transform] += 1
                counts.parameters += len(walk.transformed.traced_parameters | walk.transformed.leaf_parameters)
            return run(walk)

        def counted_follow(reader: calls.Calls, node: CallExpr, args: list[State], env: Env) -> tuple[State] | None:
            found = follow(reader, node, args, env)
            if found is not None:
                counts.helpers.add((reader.trace.module, getattr(node.callee, "fullname", "")))
            return found

        def counted_gave_up(reader: calls.Calls, node: CallExpr) -> None:
            module = reader.trace.module
            counts.gave_up.setdefault((module, node.line, node.column), calls.not_followed(node, module))

        calls.Calls.gave_up = counted_gave_up  # type: ignore[method-assign,assignment]
        tracing.Walk.run = counted_run  # type: ignore[method-assign,assignment]
        calls.Calls.follow = counted_follow  # type: ignore[method-assign,assignment]


def package_dirs(unpacked: Path) -> list[str]:
    """The top-level packages of an unpacked wheel (folders with an ``__init__.py``)."""
    return sorted(path.parent.name for path in unpacked.glob("*/__init__.py"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("requirements", nargs="+", help="libraries to fetch and check (name==version)")
    parser.add_argument("--json", help="write the counts to this file")
    options = parser.parse_args()
    counts = Counts()
    counts.install()
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        for requirement in options.requirements:
            wheels = root / "wheels" / requirement
            pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", requirement, "-d", str(wheels)]
            subprocess.run(pip, check=True)
            unpacked = root / "src" / requirement
            for wheel in wheels.glob("*.whl"):
                zipfile.ZipFile(wheel).extractall(unpacked)
            (root / "mypy.ini").write_text(CONFIG)
            packages = [name for name in package_dirs(unpacked) if not name.endswith("_src")]
            found: collections.Counter[str] = collections.Counter()
            for package in packages:
                cache = root / "cache" / requirement / package
                command = ["--config-file", str(root / "mypy.ini"), "--cache-dir", str(cache), str(unpacked / package)]
                out, _, _ = api.run(command)
                reports = [line for line in out.splitlines() if REPORT.search(line)]
                found.update(match.group(1) for line in reports for match in [REPORT.search(line)] if match)
                for line in reports:
                    print(f"{requirement}: {line}", file=sys.stderr)
            counts.reports[requirement] = dict(found)
            print(f"{requirement}: {sum(found.values())} reports of the plugin", file=sys.stderr)
    result = provenance.stamped(
        {
            "functions walked": len(counts.functions),
            "by transform": dict(counts.by_transform.most_common()),
            "parameters traced or pytrees of tracers": counts.parameters,
            "helpers followed": len(counts.helpers),
            "calls given tracers, not followed": dict(collections.Counter(counts.gave_up.values()).most_common()),
            "reports of the plugin": counts.reports,
        }
    )
    print(json.dumps(result, indent=2))
    if options.json:
        Path(options.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
