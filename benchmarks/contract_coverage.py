#!/usr/bin/env python3
"""How much of JAX's API the contract tables cover: functions and parameters probed, decided, left undecided.

    python benchmarks/contract_coverage.py [--json benchmarks/results/contract.json]

Reads the checked-in tables (``mypy_plugin/contract/jax-<release>.json``, written by
``scripts/probe_api.py``; ``removed.json``, by ``scripts/removed_names.py``) and counts, per
release: the functions and methods listed, those the probe ran (and why the rest were not:
no sample for a required parameter, or samples that do not run), the parameters tried traced,
those that raise (each a shape or a setting, which the rules read, or undecided, which they do
not), and the functions that need ``size=``. Nothing is run: the figures are the tables'.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import provenance  # noqa: E402

from mypy_plugin.analyses import contract  # noqa: E402


def coverage(table: dict[str, Any]) -> dict[str, Any]:
    functions: dict[str, Any] = table["functions"]
    unprobed: Counter[str] = Counter()
    parameters: Counter[str] = Counter()
    for name, entry in functions.items():
        if "unprobed" in entry:
            reason = entry["unprobed"]
            unprobed["no sample for a required parameter" if reason.startswith("no sample") else "samples do not run"] += 1
            continue
        settings = contract.SETTINGS_BY_FUNCTION.get(name, frozenset())
        for parameter, measured in entry["parameters"].items():
            outcome = measured.get("traced")
            if outcome in ("no sample", "left at its default", "not an array"):
                parameters["not tried"] += 1
            elif outcome == contract.RUNS:
                parameters["take a tracer"] += 1
            else:
                parameters[contract.kind_of(parameter, settings) or "undecided"] += 1
    probed = len(functions) - sum(unprobed.values())
    return {
        "functions": len(functions),
        "probed": probed,
        "unprobed": dict(unprobed),
        "parameters tried": sum(count for outcome, count in parameters.items() if outcome != "not tried"),
        "parameters": dict(parameters),
        "need size": sum(entry.get("traced without size", contract.RUNS) != contract.RUNS for entry in functions.values()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the result here")
    args = parser.parse_args()
    releases = {
        path.stem.removeprefix("jax-"): coverage(json.loads(path.read_text(encoding="utf-8")))
        for path in sorted(contract.FOLDER.glob("jax-*.json"))
    }
    removed = json.loads((contract.FOLDER / "removed.json").read_text(encoding="utf-8"))["removed"]
    result = provenance.stamped(
        {
            "package release": (ROOT / "jax_stubs" / "JAX_VERSION").read_text(encoding="utf-8").strip(),
            "releases": releases,
            "removed names": len(removed),
            "removed names with a replacement": sum(bool(entry["replacement"]) for entry in removed.values()),
        }
    )
    text = json.dumps(result, indent=2)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
