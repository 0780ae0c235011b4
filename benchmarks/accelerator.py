#!/usr/bin/env python3
"""The runtime truth on an accelerator: the suite's runtime tests, run where JAX picks a TPU or GPU.

    python benchmarks/accelerator.py [--json benchmarks/results/accelerator.json] [--revision REV]

The suite proves on the CPU what each YAML case does at run time (``tests/test_runtime_truth.py``),
the tables the traced-value rules read (``tests/test_traced_tables.py``), JAX's contract
(``tests/test_contract.py``) and Equinox's (``tests/test_equinox_modules.py``). Users run on GPUs
and TPUs: this runs the same tests there, in this one process (one program holds a TPU at a
time), against the installed wheel as the suite does (``tests/conftest.py`` refuses anything
else), with JAX_PLATFORMS left as the machine sets it. A case whose outcome differs on the
platform states it (``on_platform:`` in its YAML) and is checked against that.

Writes the counts, each failure, the cases checked against a platform's own outcome, the
machine (platform, device, releases) and the revision and command that made it; exits 1 where a
test failed or the platform is the CPU (nothing measured that the suite does not).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import provenance

ROOT = Path(__file__).resolve().parent.parent
RUNTIME_TESTS = ["tests/test_runtime_truth.py", "tests/test_traced_tables.py", "tests/test_contract.py", "tests/test_equinox_modules.py"]
LIBRARIES = ["jax", "jaxlib", "numpy", "mypy", "flax", "equinox"]


def outcomes(junit: Path) -> tuple[dict[str, int], list[dict[str, str]]]:
    """The counts of a JUnit XML report, and each failed or erroring test with its message."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    failures = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        failed, erred = case.find("failure"), case.find("error")
        said = failed if failed is not None else erred
        if said is not None:
            counts["failed" if failed is not None else "errors"] += 1
            failures.append({"test": test, "message": (said.get("message") or "").partition("\n")[0][:300]})
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the result here")
    parser.add_argument("--revision", help="the commit of this tree, where it has no .git")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (-x, -k ...)")
    args = parser.parse_args()
    import pytest

    with tempfile.TemporaryDirectory() as folder:
        junit = Path(folder) / "junit.xml"
        tests = [str(ROOT / test) for test in RUNTIME_TESTS]
        status = pytest.main(["-q", "-p", "no:randomly", f"--junitxml={junit}", *tests, *args.pytest_args])
        counts, failures = outcomes(junit)
    import jax  # after the tests, in the process that already holds the device

    sys.path.insert(0, str(ROOT / "tests"))
    from cases import load_cases

    device = jax.devices()[0]
    on_platform = sorted(case.name for case in load_cases() if jax.default_backend() in case.on_platform)
    result = provenance.stamped(
        {
            "machine": {
                "platform": jax.default_backend(),
                "device": device.device_kind,
                "devices": jax.device_count(),
                **provenance.versions(LIBRARIES),
            },
            "tests": RUNTIME_TESTS,
            "counts": counts,
            "failures": failures,
            "checked against the platform's own outcome": on_platform,
            "pytest exit status": int(status),
        },
        given_revision=args.revision,
    )
    text = json.dumps(result, indent=2) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    print(text)
    return 0 if status == 0 and jax.default_backend() != "cpu" else 1


if __name__ == "__main__":
    raise SystemExit(main())
