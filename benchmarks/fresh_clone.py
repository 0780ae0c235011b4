#!/usr/bin/env python3
"""CI as a new machine runs it: a fresh clone of a revision, ``.ci/run``, timed.

    python benchmarks/fresh_clone.py [--revision HEAD] [--json benchmarks/results/ci.json]

Clones this repository (the committed revision, nothing of the work tree) into a new folder,
runs ``.ci/run`` there, and records its exit status, wall time and CPU time (user + sys of every
process it ran), the stages ``scripts/test`` prints, pytest's summary, the revision and the
machine, and the most disk the run held at once: what the clone's folder (where the run's
temporary files go too: ``TMPDIR``) and ``HOME`` grew by, sampled every ``DISK_SAMPLE_SECONDS``
by this process (not counted in the CPU time). Run it with nothing else running: the figures are
the machine's. It takes as long as CI does (about half an hour on 2 cores) and leaves the clone,
with its environments, in the folder it prints. The README's figures of the test suite come from the result
(``scripts/figures.py``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import provenance

ROOT = Path(__file__).resolve().parent.parent
STAGE = re.compile(r"^scripts/test: (?P<stage>.+?)\s+(?P<wall>\d+) s wall\s+(?P<cpu>\d+) s CPU")
PYTEST = re.compile(r"^=*\s*(?P<summary>\d+ passed.*?) in [\d.]+s")
DISK_SAMPLE_SECONDS = 20


def bytes_under(*folders: Path) -> dict[str, int]:
    """The disk the files under ``folders`` take, each hard-linked file once, by the folder two
    levels down that holds them (``jax-stubs/.venv-test``, ``tmp/pytest-of-root``)."""
    seen: set[tuple[int, int]] = set()
    held: dict[str, int] = {}
    for folder in folders:
        for parent, _, files in os.walk(folder):
            group = "/".join(Path(parent).relative_to(folder.parent).parts[:3])
            for name in files:
                try:
                    stat = os.lstat(os.path.join(parent, name))
                except OSError:  # removed while walking
                    continue
                if (stat.st_dev, stat.st_ino) not in seen:
                    seen.add((stat.st_dev, stat.st_ino))
                    held[group] = held.get(group, 0) + stat.st_blocks * 512
    return held


class PeakDisk:
    """The most that ``folders`` held at once above what they held at the start, sampled on a
    thread: when, and the folders that held the most then."""

    def __init__(self, *folders: Path) -> None:
        self.folders = folders
        self.start = sum(bytes_under(*folders).values())
        self.started = time.monotonic()
        self.peak = 0
        self.peak_at = 0.0
        self.peak_held: dict[str, int] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self) -> None:
        while not self.done.wait(DISK_SAMPLE_SECONDS):
            held = bytes_under(*self.folders)
            grown = sum(held.values()) - self.start
            if grown > self.peak:
                self.peak, self.peak_at, self.peak_held = grown, time.monotonic() - self.started, held

    def stop(self) -> dict[str, object]:
        self.done.set()
        self.thread.join()
        largest = sorted(self.peak_held.items(), key=lambda item: -item[1])[:8]
        return {
            "peak_disk_gb": round(self.peak / 1e9, 1),
            "peak_disk_at_seconds": round(self.peak_at),
            "peak_disk_largest_gb": {group: round(size / 1e9, 2) for group, size in largest},
            "disk_sampled_every_seconds": DISK_SAMPLE_SECONDS,
        }


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
    temporary = clone.parent / "tmp"
    temporary.mkdir()
    home = Path.home()
    disk = PeakDisk(clone.parent, *([] if home in clone.parent.parents else [home]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    run = subprocess.run(["bash", ".ci/run"], cwd=clone, capture_output=True, text=True, env={**os.environ, "TMPDIR": str(temporary)})
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_disk = disk.stop()
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
            **peak_disk,
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
