#!/usr/bin/env python3
"""CI as a new machine runs it: a fresh clone of a revision, ``.ci/run``, timed.

    python benchmarks/fresh_clone.py [--revision HEAD] [--json benchmarks/results/ci.json]

Clones this repository (the committed revision, nothing of the work tree) into a new folder,
runs ``.ci/run`` there, and records its exit status, wall time and CPU time (user + sys of every
process it ran), the stages ``scripts/test`` prints, pytest's summary, the revision and the
machine. Run it with nothing else running: the figures are the machine's. It takes as long as
CI does (about half an hour on 2 cores) and leaves the clone, with its environments, in the
folder it prints. The README's figures of the test suite come from the result
(``scripts/figures.py``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import provenance

ROOT = Path(__file__).resolve().parent.parent
STAGE = re.compile(r"^scripts/test: (?P<stage>.+?)\s+(?P<wall>\d+) s wall\s+(?P<cpu>\d+) s CPU")
PYTEST = re.compile(r"^=*\s*(?P<summary>\d+ passed.*?) in [\d.]+s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--revision", default="HEAD")
    parser.add_argument("--json", type=Path, help="write the result here")
    args = parser.parse_args()
    revision = subprocess.run(["git", "rev-parse", args.revision], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    clone = Path(tempfile.mkdtemp(prefix="fresh-clone-")) / "jax-stubs"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "--quiet", revision], cwd=clone, check=True)
    print(f"fresh_clone: {revision[:7]} in {clone}", file=sys.stderr)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    run = subprocess.run(["bash", ".ci/run"], cwd=clone, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = run.stdout + run.stderr
    (clone.parent / "ci.log").write_text(output)
    stages = {
        m["stage"].strip(): {"wall_seconds": int(m["wall"]), "cpu_seconds": int(m["cpu"])}
        for m in map(STAGE.match, output.splitlines())
        if m
    }
    summaries = [m["summary"] for m in map(PYTEST.match, output.splitlines()) if m]
    result = provenance.stamped(
        {
            "date": datetime.date.today().isoformat(),
            "exit_status": run.returncode,
            "wall_seconds": round(wall),
            "cpu_seconds": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)),
            "stages": stages,
            "pytest": summaries[0] if summaries else "",
        },
        given_revision=revision,
    )
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return run.returncode


if __name__ == "__main__":
    raise SystemExit(main())
