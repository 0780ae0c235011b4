#!/usr/bin/env python3
"""The figures the documentation prints, each read from the benchmark result that measured it.

    python scripts/figures.py [--write]

A figure in ``README.md``, ``docs/*.md`` or ``benchmarks/README.md`` is written between two
markers, ``<!-- figure:<key> -->0.27 %<!-- /figure -->``, and ``FIGURES`` says which result of
``benchmarks/results/`` holds it and how it is printed. Without ``--write`` this exits 1 when a
document prints another value than its result holds, or names a key no result has
(``tests/test_docs.py`` runs it); with ``--write`` it writes the results' values in. A benchmark
run that writes a new result is followed by ``--write``.

Every result records the revision it measured (``benchmarks/provenance.py``). A result that
records none fails; one older than a commit that changed what it measures (``MEASURES``) fails
unless the paragraph printing its figure also prints its revision (``<stem>.revision``).
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
sys.path.insert(0, str(ROOT / "benchmarks"))
import provenance  # noqa: E402  (the results' revisions, read with the same git helper that wrote them)

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
    "ci.peak_disk_gb": ("ci.json", lambda result: f"{result['peak_disk_gb']:.1f}"),
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
    "accelerator.device": ("accelerator.json", lambda result: result["machine"]["device"]),
    "accelerator.passed": ("accelerator.json", lambda result: str(result["counts"]["passed"])),
    "accelerator.failed": ("accelerator.json", lambda result: str(result["counts"]["failed"] + result["counts"]["errors"])),
    "accelerator.skipped": ("accelerator.json", lambda result: str(result["counts"]["skipped"])),
    "accelerator.own_outcome": ("accelerator.json", lambda result: str(len(result["checked against the platform's own outcome"]))),
    "accelerator.jax": ("accelerator.json", lambda result: result["machine"]["jax"]),
    "held_out_walk.functions": ("held_out_walk.json", lambda result: str(result["functions walked"])),
    "held_out_walk.helpers": ("held_out_walk.json", lambda result: str(result["helpers followed"])),
    "held_out_walk.reports": (
        "held_out_walk.json",
        lambda result: str(sum(sum(codes.values()) for codes in result["reports of the plugin"].values())),
    ),
    "held_out_share.percent": ("held_out_share.json", lambda result: f"{100 * result['share']:.2f} %"),
    "held_out_share.hooks": ("held_out_share.json", lambda result: f"{result['hooks_s']:.2f} s"),
    "held_out_share.run": ("held_out_share.json", lambda result: f"{result['run_s']:.1f} s"),
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


MEASURES: dict[str, tuple[str, ...]] = {
    "ci.json": (".",),
    "sweep.json": ("mypy_plugin", "jax_stubs", "benchmarks/sweep.py", "benchmarks/findings.py"),
    "share.json": ("mypy_plugin", "benchmarks/plugin_share.py"),
    "held_out_share.json": ("mypy_plugin", "benchmarks/plugin_share.py"),
    "walk.json": ("mypy_plugin/analyses", "mypy_plugin/rules", "benchmarks/walk_count.py"),
    "held_out_walk.json": ("mypy_plugin/analyses", "mypy_plugin/rules", "benchmarks/walk_count.py"),
    "startup.json": ("mypy_plugin/__init__.py", "mypy_plugin/main.py", "mypy_plugin/rules/hooked.py", "benchmarks/startup.py"),
    "lsp.json": ("mypy_plugin/lint", "benchmarks/lsp_latency.py"),
    "first_run.json": ("mypy_plugin/lint", "benchmarks/first_run.py"),
    "precision.json": ("mypy_plugin", "benchmarks/precision.py", "benchmarks/precision"),
    "contract.json": ("mypy_plugin/contract", "benchmarks/contract_coverage.py"),
    "accelerator.json": ("mypy_plugin", "tests/typecheck", "tests/cases.py", "tests/test_runtime_truth.py", "benchmarks/accelerator.py"),
}
"""What each result measures: a commit that changes one of these paths after the result's
revision makes its figures older than what they measure. Such a figure is printed only in a
paragraph that also prints the result's revision (``<stem>.revision``), so the reader knows
which code it describes."""


def revision_key(result: str) -> str:
    """The figure key of a result's revision: ``sweep.revision`` for ``sweep.json``."""
    return result.removesuffix(".json") + ".revision"


def outdated(name: str, result: dict[str, Any]) -> str | None:
    """Why the result ``name`` is older than what it measures (a commit since its revision
    changed a path it measures, or it records no revision); None where it is current or git
    cannot tell."""
    recorded = result.get("revision")
    if not isinstance(recorded, str) or recorded == "unknown":
        return "records no revision: run its script again"
    commit = recorded.removesuffix("-dirty")
    if provenance.git("cat-file", "-e", f"{commit}^{{commit}}") is None:
        return None
    changes = provenance.git("rev-list", "--count", f"{commit}..HEAD", "--", *MEASURES.get(name, (".",)))
    if changes is None or changes == "0" and not recorded.endswith("-dirty"):
        return None
    uncommitted = " with changes not committed" if recorded.endswith("-dirty") else ""
    return f"it measured {commit[:7]}{uncommitted}, and {changes} commits changed what it measures since"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]


def figure(key: str) -> tuple[str, Callable[[dict[str, Any]], str]] | None:
    """The result a figure is read from and how it is printed: ``FIGURES``, and every result's
    ``<stem>.revision``; None for a key neither knows."""
    if key in FIGURES:
        return FIGURES[key]
    stem, _, last = key.rpartition(".")
    if last == "revision" and (RESULTS / f"{stem}.json").exists():
        return f"{stem}.json", lambda result: str(result.get("revision", "unknown"))[:7]
    return None


def value_of(key: str, loaded: dict[str, dict[str, Any]]) -> str | None:
    """The figure ``key`` as its result holds it; None for a key no result has."""
    found = figure(key)
    if found is None:
        return None
    name, printed = found
    return printed(load(name, loaded))


def load(name: str, loaded: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if name not in loaded:
        loaded[name] = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    return loaded[name]


def unstated_revisions(document: Path, text: str, loaded: dict[str, dict[str, Any]]) -> list[str]:
    """Each figure of an outdated result printed in a paragraph that does not print the
    result's revision."""
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        keys = {match["key"] for match in MARK.finditer(paragraph)}
        for name in sorted({read[0] for key in keys if (read := figure(key)) is not None}):
            why = outdated(name, load(name, loaded))
            shown = ", ".join(sorted(key for key in keys if (figure(key) or ("",))[0] == name and key != revision_key(name)))
            if why is not None and "revision" not in load(name, loaded):
                found.append(f"{document.relative_to(ROOT)}: {shown}: benchmarks/results/{name} {why}")
            elif why is not None and revision_key(name) not in keys:
                found.append(f"{document.relative_to(ROOT)}: {shown} printed without {revision_key(name)}: {why}")
    return found


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
        found.extend(unstated_revisions(document, new, loaded))
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
