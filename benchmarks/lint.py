#!/usr/bin/env python3
"""What ``jax-stubs lint`` costs next to mypy with the plugin, on the sweep's libraries.

    python benchmarks/lint.py [--reps 5] [--json lint.json]

Run it with the Python of an environment where the jax-stubs wheel is installed with the
``lint`` extra (the one ``scripts/test`` makes, ``.venv-test``). For each library of
``sweep.py`` (and the Pallas kernels), one after another:

1. ``jax-stubs lint <package>``, cold (its cache emptied), then ``--reps`` times warm, the
   sources unchanged;
2. mypy with the plugin and the options linting sets (``check_untyped_defs``,
   ``ignore_missing_imports``, ``follow_imports = silent``), cold (its own cache emptied), then
   ``--reps`` times warm;

and prints each one's cold time and the median of its warm runs, and the ratio of the warm
medians (lint / mypy). What lint reports under the plugin's codes must be the plugin's errors in
mypy's output, line for line: the exit status is 1 if they differ. What it shows for mypy's own
errors (a removed name, a keyword JAX's function lacks) is listed apart.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402
from sweep import fetch_sources, machine  # noqa: E402

BIN = Path(sys.executable).parent
CONFIG = "[mypy]\nplugins = mypy_plugin\ncheck_untyped_defs = True\nignore_missing_imports = True\nfollow_imports = silent\n"
PLUGIN_ERROR = re.compile(r"^(?P<where>[^:]+:\d+(?::\d+)?): error: .*  \[(?P<code>jax-[\w-]+)\]$")


def timed(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise SystemExit(f"lint benchmark: {' '.join(command)} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return time.perf_counter() - began, result


def plugin_errors(output: str) -> list[str]:
    return [f"{found['where']} [{found['code']}]" for line in output.splitlines() if (found := PLUGIN_ERROR.match(line))]


def of_the_plugin(errors: list[str]) -> list[str]:
    """The errors of the plugin's own codes, without those lint shows for mypy's own errors
    (``lint/mypy_errors.py``), which mypy prints under its codes."""
    return [error for error in errors if not error.endswith(("[jax-removed-name]", "[jax-call-signature]"))]


def measure(src: Path, package: str, reps: int) -> dict[str, Any]:
    """Cold and warm runs of lint and of mypy on one package, and what each reported."""
    lint_cache, mypy_cache = src / ".jax_stubs_cache", src / ".mypy_cache"
    shutil.rmtree(lint_cache, ignore_errors=True)
    shutil.rmtree(mypy_cache, ignore_errors=True)
    lint = [str(BIN / "jax-stubs"), "lint", package]
    mypy = [
        str(BIN / "mypy"),
        "--config-file",
        str(src / "lint-benchmark.ini"),
        "--cache-dir",
        str(mypy_cache),
        "--show-column-numbers",
        "--no-error-summary",
        package,
    ]
    lint_cold, linted = timed(lint, src)
    lint_warm = [timed(lint, src)[0] for _ in range(reps)]
    mypy_cold, checked = timed(mypy, src)
    mypy_warm = [timed(mypy, src)[0] for _ in range(reps)]
    return {
        "package": package,
        "lint": {
            "cold": round(lint_cold, 2),
            "warm": [round(t, 2) for t in lint_warm],
            "summary": linted.stdout.splitlines()[-1] if linted.stdout else "",
        },
        "mypy": {"cold": round(mypy_cold, 2), "warm": [round(t, 2) for t in mypy_warm]},
        "warm_ratio": round(statistics.median(lint_warm) / statistics.median(mypy_warm), 3),
        "reported": plugin_errors(linted.stdout),
        "agrees": sorted(of_the_plugin(plugin_errors(linted.stdout))) == sorted(plugin_errors(checked.stdout)),
        "shown for mypy's errors": [error for error in plugin_errors(linted.stdout) if error not in of_the_plugin([error])],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="warm runs of each (default: 5)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    os.environ["JAX_STUBS_CACHE_DIR"] = ""  # cold means cold: lint's shared analysis off (first_run.py times it)
    work = Path(tempfile.mkdtemp(prefix="lint-benchmark-"))
    try:
        packages = fetch_sources(work)
        src = work / "src"
        (src / "lint-benchmark.ini").write_text(CONFIG)
        results = []
        for package in packages:
            result = measure(src, package, max(args.reps, 1))
            results.append(result)
            print(
                f"{package:<18} lint cold {result['lint']['cold']:6.1f} s, warm {statistics.median(result['lint']['warm']):5.2f} s"
                f" | mypy cold {result['mypy']['cold']:6.1f} s, warm {statistics.median(result['mypy']['warm']):5.2f} s"
                f" | warm ratio {result['warm_ratio']:.2f} | {len(result['reported'])} reported"
                f"{'' if result['agrees'] else ', DIFFERS from mypy'}",
                flush=True,
            )
        ratios = [result["warm_ratio"] for result in results]
        print(
            f"lint benchmark: warm lint / warm mypy, median over {len(results)} packages: {statistics.median(ratios):.2f}"
            f" (from {min(ratios):.2f} to {max(ratios):.2f})"
        )
        if args.json:
            args.json.write_text(
                json.dumps(provenance.stamped({"machine": machine(), "reps": args.reps, "packages": results}), indent=1) + "\n"
            )
        return 0 if all(result["agrees"] for result in results) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
