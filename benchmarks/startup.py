#!/usr/bin/env python3
"""What loading the plugin adds to every mypy run, measured in fresh processes.

    python benchmarks/startup.py [--runs 21] [--json startup.json]

Run it with the Python of an environment where the jax-stubs wheel is installed (the one
``scripts/test`` makes, ``.venv-test``). A warm mypy run of a small module (pre-commit, an
editor's save) is little more than start-up, and whole warm runs are too noisy on these
machines to show a few milliseconds, so each run is a fresh interpreter that first does what
mypy does before it loads plugins (imports ``mypy.main`` and ``mypy.build``, computes the
search folders of ``--python-executable``, which mypy caches), and then times what mypy does
to load the plugin: import ``mypy_plugin``, call its ``plugin(version)`` entry point, and
construct the returned class with mypy's options. The median of ``--runs`` processes is the
figure; it also lists the modules the load imported that the run had not imported already.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

import provenance

ONE_RUN = """
import json, sys, time
import mypy.build, mypy.main, mypy.version
from mypy.modulefinder import get_search_dirs
from mypy.options import Options

options = Options()
get_search_dirs(options.python_executable)  # mypy computes (and caches) it before the plugins
before = set(sys.modules)
began = time.perf_counter()
import mypy_plugin
plugin_class = mypy_plugin.plugin(mypy.version.__version__)
plugin_class(options)
seconds = time.perf_counter() - began
print(json.dumps({"seconds": seconds, "class": plugin_class.__name__,
                  "imported": sorted(set(sys.modules) - before)}))
"""


def one_run(python: str) -> dict[str, object]:
    """One fresh process: its load time, the class it got, the modules the load imported."""
    result = subprocess.run([python, "-c", ONE_RUN], capture_output=True, text=True, check=True, cwd="/")
    if result.stderr:
        raise SystemExit(f"startup: the plugin printed on stderr:\n{result.stderr}")
    measured: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="fresh processes (default 21)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    runs = [one_run(sys.executable) for _ in range(args.runs)]
    milliseconds = sorted(1000 * float(str(run["seconds"])) for run in runs)
    imported = runs[-1]["imported"]
    assert isinstance(imported, list)
    median = statistics.median(milliseconds)
    print(
        f"startup: loading the plugin ({runs[-1]['class']}) takes {median:.1f} ms, median of {len(runs)} "
        f"fresh processes (range {milliseconds[0]:.1f}-{milliseconds[-1]:.1f} ms)"
    )
    print(f"startup: it imported {len(imported)} modules the run had not: {', '.join(imported)}")
    if args.json:
        args.json.write_text(
            json.dumps(provenance.stamped({"runs_ms": milliseconds, "median_ms": median, "imported": imported}), indent=2) + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
