#!/usr/bin/env python3
"""The figures the documentation prints, each read from the benchmark result that measured it.

    python scripts/figures.py [--write]

A figure in ``README.md``, ``docs/*.md`` or ``benchmarks/README.md`` is written between two
markers, ``<!-- figure:<key> -->0.27 %<!-- /figure -->``, and ``FIGURES`` says which result of
``benchmarks/results/`` holds it and how it is printed. Without ``--write`` this exits 1 when a
document prints another value than its result holds, or names a key no result has
(``tests/test_docs.py`` runs it); with ``--write`` it writes the results' values in. A benchmark
run that writes a new result is followed by ``--write``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
MARK = re.compile(r"<!-- figure:(?P<key>[\w.]+) -->(?P<value>.*?)<!-- /figure -->")


def minutes(seconds: float) -> str:
    return str(round(seconds / 60))


def lsp(which: str) -> Callable[[dict[str, Any]], str]:
    """The slowest of the modules timed, in seconds."""
    return lambda result: f"{max(module[which] for module in result['results']):.2f} s"


def not_followed(kind: str) -> Callable[[dict[str, Any]], str]:
    """How many calls given tracers the walk did not follow, for one reason."""
    return lambda result: str(result["calls given tracers, not followed"].get(kind, 0))


def contract_figure(path: tuple[str, ...]) -> Callable[[dict[str, Any]], str]:
    """A count of the contract table of the package's own JAX release."""

    def printed(result: dict[str, Any]) -> str:
        found: Any = result["releases"][result["package release"]]
        for key in path:
            found = found.get(key, 0)
        return str(found)

    return printed


FIGURES: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "ci.wall_minutes": ("ci.json", lambda result: minutes(result["wall_seconds"])),
    "ci.cpu_minutes": ("ci.json", lambda result: minutes(result["cpu_seconds"])),
    "ci.pytest": ("ci.json", lambda result: result["pytest"]),
    "ci.revision": ("ci.json", lambda result: result["revision"][:7]),
    "sweep.plugin_share": ("sweep.json", lambda result: f"{100 * result['plugin_time']['estimated_share']:.2f} %"),
    "sweep.unexplained": ("sweep.json", lambda result: str(len(result["unexplained"]))),
    "sweep.jit_uses": ("sweep.json", lambda result: str(result["size"]["jit_uses"])),
    "startup.median_ms": ("startup.json", lambda result: f"{result['median_ms']:.1f} ms"),
    "lsp.open_cold": ("lsp.json", lsp("open_cold")),
    "lsp.open_warm": ("lsp.json", lsp("open_warm")),
    "lsp.change": ("lsp.json", lsp("change")),
    "lsp.save": ("lsp.json", lsp("save")),
    **{f"first_run.{which}": ("first_run.json", lsp(which)) for which in ("off", "first", "second", "warm", "lsp_first", "lsp_second")},
    "walk.functions": ("walk.json", lambda result: str(result["functions walked"])),
    "walk.reports": ("walk.json", lambda result: str(sum(sum(codes.values()) for codes in result["reports of the plugin"].values()))),
    "walk.helpers": ("walk.json", lambda result: str(result["helpers followed"])),
    "walk.not_followed": ("walk.json", lambda result: str(sum(result["calls given tracers, not followed"].values()))),
    **{
        f"walk.not_followed.{kind}": ("walk.json", not_followed(kind))
        for kind in ("method", "callable", "imported", "star", "dynamic", "class", "decorated", "other")
    },
    "precision.repositories": ("precision.json", lambda result: str(len(result["repositories"]))),
    "precision.reports": ("precision.json", lambda result: str(result["totals"].get("reports", 0))),
    "precision.true": ("precision.json", lambda result: str(result["totals"].get("true", 0))),
    "precision.false": ("precision.json", lambda result: str(result["totals"].get("false", 0))),
    "precision.unjudged": ("precision.json", lambda result: str(result["totals"].get("unjudged", 0))),
    "precision.revision": ("precision.json", lambda result: result["revision"][:7]),
    "accelerator.device": ("accelerator.json", lambda result: result["machine"]["device"]),
    "accelerator.passed": ("accelerator.json", lambda result: str(result["counts"]["passed"])),
    "accelerator.failed": ("accelerator.json", lambda result: str(result["counts"]["failed"] + result["counts"]["errors"])),
    "accelerator.skipped": ("accelerator.json", lambda result: str(result["counts"]["skipped"])),
    "accelerator.own_outcome": ("accelerator.json", lambda result: str(len(result["checked against the platform's own outcome"]))),
    "accelerator.jax": ("accelerator.json", lambda result: result["machine"]["jax"]),
    "accelerator.revision": ("accelerator.json", lambda result: result["revision"][:7]),
    "share.percent": ("share.json", lambda result: f"{100 * result['share']:.2f} %"),
    "share.hooks": ("share.json", lambda result: f"{result['hooks_s']:.2f} s"),
    "share.run": ("share.json", lambda result: f"{result['run_s']:.1f} s"),
    **{
        f"contract.{key}": ("contract.json", contract_figure(path))
        for key, path in (
            ("functions", ("functions",)),
            ("probed", ("probed",)),
            ("no_sample", ("unprobed", "no sample for a required parameter")),
            ("not_running", ("unprobed", "samples do not run")),
            ("tried", ("parameters tried",)),
            ("take_a_tracer", ("parameters", "take a tracer")),
            ("shapes", ("parameters", "shape")),
            ("settings", ("parameters", "setting")),
            ("undecided", ("parameters", "undecided")),
            ("need_size", ("need size",)),
        )
    },
    "contract.release": ("contract.json", lambda result: result["package release"]),
    "contract.removed": ("contract.json", lambda result: str(result["removed names"])),
    "contract.removed_replaced": ("contract.json", lambda result: str(result["removed names with a replacement"])),
}
"""Each figure's key: the result file it is read from, and how it is printed."""


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]


def value_of(key: str, loaded: dict[str, dict[str, Any]]) -> str | None:
    """The figure ``key`` as its result holds it; None for a key ``FIGURES`` does not know."""
    if key not in FIGURES:
        return None
    name, printed = FIGURES[key]
    if name not in loaded:
        loaded[name] = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    return printed(loaded[name])


def differences(write: bool = False) -> list[str]:
    """Where a document prints a figure other than its result's (each made right with ``write``)."""
    loaded: dict[str, dict[str, Any]] = {}
    found = []
    for document in documents():
        text = document.read_text(encoding="utf-8")

        def replaced(match: re.Match[str], document: Path = document) -> str:
            value = value_of(match["key"], loaded)
            if value is None:
                found.append(f"{document.relative_to(ROOT)}: no result holds the figure {match['key']!r}")
                return match[0]
            if value != match["value"]:
                found.append(f"{document.relative_to(ROOT)}: {match['key']} is {match['value']!r}, its result says {value!r}")
            return f"<!-- figure:{match['key']} -->{value}<!-- /figure -->"

        new = MARK.sub(replaced, text)
        if write and new != text:
            document.write_text(new, encoding="utf-8")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the results' values into the documents")
    args = parser.parse_args()
    found = differences(write=args.write)
    for line in found:
        print(f"figures: {line}", file=sys.stderr)
    return 1 if found and not args.write else 0


if __name__ == "__main__":
    raise SystemExit(main())
