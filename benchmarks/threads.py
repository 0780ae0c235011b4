#!/usr/bin/env python3
"""How many failures from users' threads ``jax-stubs lint`` reports at the line that raises.

    python benchmarks/threads.py [--json threads.json] [CODE ...]

Run it with the Python of an environment where the jax-stubs wheel and JAX are installed (the
one ``scripts/test`` makes, ``.venv-test``). ``benchmarks/threads/<code>/`` holds, for each
thread, the failing code reduced to a runnable file (``<thread>.py``, its docstring naming the
thread) and the version the thread shows fixed (``<thread>_fixed.py``). For each code asked
(every folder by default):

1. each file runs under JAX on the CPU: a thread's file must raise, its fixed version must run
   (the exit status is 1 where one does not: the corpus itself is wrong);
2. ``jax-stubs lint --output json`` checks the folder once;
3. a thread counts as reported where a report of the code is on the line the exception is
   raised from (the last frame of the traceback in that file); a report on a fixed version is
   a false one.

It prints one line per thread and the totals, and writes them to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402

THREADS = HERE / "threads"
BIN = Path(sys.executable).parent
FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)', re.MULTILINE)
FIXED = "_fixed"
EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))\b", re.MULTILINE)


def raised(path: Path) -> tuple[str, int | None] | None:
    """What running ``path`` raises, and the line of ``path`` it is raised from; None where it runs."""
    environment = {**os.environ, "JAX_PLATFORMS": "cpu", "JAX_TRACEBACK_FILTERING": "off"}
    result = subprocess.run([sys.executable, path.name], cwd=path.parent, capture_output=True, text=True, timeout=300, env=environment)
    if result.returncode == 0:
        return None
    raised_lines = [found[1] for found in EXCEPTION.finditer(result.stderr)]
    exception = raised_lines[-1] if raised_lines else "?"
    frames = [int(found["line"]) for found in FRAME.finditer(result.stderr) if Path(found["file"]).name == path.name]
    return exception, (frames[-1] if frames else None)


def linted(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """``jax-stubs lint``'s reports on every file of ``folder``, by file name."""
    result = subprocess.run(
        [str(BIN / "jax-stubs"), "lint", "--output", "json", "."], cwd=folder, capture_output=True, text=True, timeout=1800
    )
    if result.returncode not in (0, 1):
        raise SystemExit(f"threads: jax-stubs lint failed ({result.returncode}):\n{result.stderr[-3000:]}")
    found: dict[str, list[dict[str, Any]]] = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            report = json.loads(line)
            found.setdefault(Path(report["file"]).name, []).append(report)
    return found


def measured(code: str) -> dict[str, Any]:
    """Every thread of ``code``: raised where, reported there, its fix silent and running."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / code.replace("-", "_")
        shutil.copytree(THREADS / code, folder)
        reports = linted(folder)
        threads = []
        for path in sorted(folder.glob("*.py")):
            if path.stem.endswith(FIXED):
                continue
            fixed = path.with_name(path.stem + FIXED + ".py")
            outcome = raised(path)
            if outcome is None:
                raise SystemExit(f"threads: {code}/{path.name} runs; a thread's file must raise")
            if fixed.exists() and raised(fixed) is not None:
                raise SystemExit(f"threads: {code}/{fixed.name} raises; a fixed version must run")
            exception, line = outcome
            at_line = [r for r in reports.get(path.name, []) if r["code"] == code and r["line"] == line]
            threads.append(
                {
                    "thread": path.stem,
                    "raises": exception,
                    "line": line,
                    "reported": bool(at_line),
                    "reports_elsewhere": len(reports.get(path.name, [])) - len(at_line),
                    "fixed_reports": len(reports.get(fixed.name, [])) if fixed.exists() else None,
                }
            )
    return {
        "code": code,
        "threads": threads,
        "reported": sum(thread["reported"] for thread in threads),
        "total": len(threads),
        "fixed_reports": sum(thread["fixed_reports"] or 0 for thread in threads),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("codes", nargs="*", help="the codes to measure (default: every folder of benchmarks/threads)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    codes = args.codes or sorted(path.name for path in THREADS.iterdir() if path.is_dir())
    results = []
    for code in codes:
        result = measured(code)
        results.append(result)
        for thread in result["threads"]:
            seen = "reported" if thread["reported"] else "missed"
            where = f"{thread['raises']} at line {thread['line']}"
            print(f"{code} {thread['thread']:<28} {where}: {seen}; fixed: {thread['fixed_reports']} reports")
        totals = f"{result['reported']} of {result['total']} reported at the line that raises"
        print(f"{code}: {totals}; {result['fixed_reports']} reports on the fixed versions")
    if args.json:
        args.json.write_text(json.dumps(provenance.stamped({"codes": results}), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
