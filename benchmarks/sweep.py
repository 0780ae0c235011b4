#!/usr/bin/env python3
"""Real-code sweep: the plugin and stubs on released JAX libraries, and what they cost.

    python benchmarks/sweep.py [--reps 3] [--warm-reps 15] [--json results.json]

Run it with the Python of an environment where the jax-stubs wheel is installed (the one
``scripts/test`` makes, ``.venv-test``). It fetches pinned wheels of real JAX libraries with
pip (only their sources are read; nothing is installed) and

1. runs mypy over their sources without the package, with the stubs only, and with the stubs
   and the plugin, and reports every diagnostic that changes and every targeted error;
2. runs pyright over them without and with the stubs, and reports what changes;
3. times mypy with and without the plugin (same installed stubs), cold (empty cache) and warm
   (the cache of a previous run), interleaved (``--reps`` cold and ``--warm-reps`` warm runs
   each), and prints the medians and their ratio, and how many modules a warm run re-parses.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from environments import OUR_PACKAGE, linked_environment  # noqa: E402

LIBRARIES = {"flax": "0.12.8", "optax": "0.2.8", "equinox": "0.13.8"}
BIN = Path(sys.executable).parent
MYPY_LINE = re.compile(r"^(?P<file>[^:]+\.py):(?P<line>\d+): (?P<severity>\w+): (?P<message>.*)$")
BASE_CONFIG = "[mypy]\nignore_missing_imports = True\n"


def fetch_sources(work: Path) -> list[str]:
    """Unpack each library's wheel into ``work/src``; return the package folders."""
    wheels, src = work / "wheels", work / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={version}" for name, version in LIBRARIES.items()]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), *pins], check=True
    )
    shutil.rmtree(src, ignore_errors=True)
    for wheel in wheels.glob("*.whl"):
        if wheel.name.split("-")[0] in LIBRARIES:
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(src)
    return sorted(name for name in LIBRARIES if (src / name).is_dir())


def mypy_run(python: Path, src: Path, packages: list[str], plugin: bool, cache: Path,
             verbose: bool = False) -> tuple[float, subprocess.CompletedProcess[str]]:
    config = src.parent / f"mypy-{'plugin' if plugin else 'plain'}.ini"
    config.write_text(BASE_CONFIG + ("plugins = mypy_plugin\n" if plugin else ""))
    command = [str(python), "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache),
               "--no-error-summary", *(["-v"] if verbose else []), *packages]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=src, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1) or "INTERNAL ERROR" in result.stdout + result.stderr:
        raise SystemExit(f"sweep: mypy failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return elapsed, result


def diagnostics(output: str) -> set[str]:
    return {line for line in output.splitlines() if MYPY_LINE.match(line)}


def pyright_run(python: Path, src: Path, packages: list[str]) -> set[str]:
    result = subprocess.run(
        [str(BIN / "pyright"), "--outputjson", "--pythonpath", str(python), *packages],
        cwd=src, capture_output=True, text=True,
    )
    report = json.loads(result.stdout)
    return {
        f"{Path(d['file']).relative_to(src)}:{d['range']['start']['line'] + 1}: {d['severity']}: {d['message']}"
        for d in report["generalDiagnostics"]
    }


def rechecked_modules(verbose_log: str) -> int:
    """Modules a run parsed again instead of taking from the cache."""
    return sum(1 for line in verbose_log.splitlines() if line.startswith("LOG:  Parsing "))


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mypy_version = subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": str(os.cpu_count()), "python": platform.python_version(), "mypy": mypy_version}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="cold runs per setup")
    parser.add_argument("--warm-reps", type=int, default=15, help="warm runs per setup")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--cost-only", action="store_true", help="skip the diagnostics sweep (1 and 2)")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="sweep-"))
    packages = fetch_sources(work)
    src = work / "src"
    with_package = Path(sys.executable)
    without_package = linked_environment(work / "env-without-package", leave_out=OUR_PACKAGE)
    print(f"sweep: {', '.join(f'{n} {LIBRARIES[n]}' for n in packages)}; {machine()}", flush=True)

    changes: dict[str, list[str]] = {}
    targeted: list[str] = []
    pyright_changes: dict[str, list[str]] = {}
    if not args.cost_only:
        # 1. Diagnostics: without the package, stubs only, stubs and plugin (cold caches).
        outputs = {}
        for name, python, plugin in [("none", without_package, False), ("stubs", with_package, False),
                                     ("stubs+plugin", with_package, True)]:
            _, result = mypy_run(python, src, packages, plugin, work / f"cache-{name}")
            outputs[name] = diagnostics(result.stdout)
            print(f"mypy, {name}: {len(outputs[name])} diagnostics", flush=True)
        changes = {
            "stubs added": sorted(outputs["stubs"] - outputs["none"]),
            "stubs removed": sorted(outputs["none"] - outputs["stubs"]),
            "plugin added": sorted(outputs["stubs+plugin"] - outputs["stubs"]),
            "plugin removed": sorted(outputs["stubs"] - outputs["stubs+plugin"]),
        }
        targeted = sorted(line for line in outputs["stubs+plugin"] if "[jax-to-device-stream]" in line)
        for what, lines in changes.items():
            print(f"mypy, {what}: {len(lines)}", *("    " + line for line in lines), sep="\n", flush=True)
        print(f"targeted errors: {len(targeted)}", *("    " + line for line in targeted), sep="\n", flush=True)

        # 2. pyright without and with the stubs.
        pyright = {"none": pyright_run(without_package, src, packages), "stubs": pyright_run(with_package, src, packages)}
        pyright_changes = {"added": sorted(pyright["stubs"] - pyright["none"]), "removed": sorted(pyright["none"] - pyright["stubs"])}
        for what, lines in pyright_changes.items():
            print(f"pyright, stubs {what}: {len(lines)}", *("    " + line for line in lines), sep="\n", flush=True)

    else:
        for name, plugin in (("stubs", False), ("stubs+plugin", True)):
            mypy_run(with_package, src, packages, plugin, work / f"cache-{name}")

    # 3. Cost: interleaved cold and warm runs, same installed stubs, plugin on and off.
    times: dict[str, list[float]] = {"cold plain": [], "cold plugin": [], "warm plain": [], "warm plugin": []}
    # The caches of the diagnostic runs above are the warm caches.
    warm_caches = {False: work / "cache-stubs", True: work / "cache-stubs+plugin"}
    for rep in range(max(args.reps, args.warm_reps)):
        for plugin in ((False, True) if rep % 2 == 0 else (True, False)):
            label = "plugin" if plugin else "plain"
            if rep < args.reps:
                cold_cache = work / f"cold-{rep}-{label}"
                times[f"cold {label}"].append(mypy_run(with_package, src, packages, plugin, cold_cache)[0])
                shutil.rmtree(cold_cache)
            if rep < args.warm_reps:
                times[f"warm {label}"].append(mypy_run(with_package, src, packages, plugin, warm_caches[plugin])[0])
        print(f"rep {rep + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items() if v), flush=True)
    medians = {k: statistics.median(v) for k, v in times.items() if v}
    kinds = [kind for kind in ("cold", "warm") if f"{kind} plain" in medians]
    ratios = {kind: medians[f"{kind} plugin"] / medians[f"{kind} plain"] for kind in kinds}
    rechecked = {
        label: rechecked_modules(mypy_run(with_package, src, packages, plugin, warm_caches[plugin], verbose=True)[1].stderr)
        for label, plugin in (("plain", False), ("plugin", True))
    }
    for kind in kinds:
        print(f"{kind}: plain median {medians[kind + ' plain']:.2f} s, plugin median "
              f"{medians[kind + ' plugin']:.2f} s, ratio {ratios[kind]:.3f}")
    print(f"modules re-parsed by a warm run: plain {rechecked['plain']}, plugin {rechecked['plugin']}")

    if args.json:
        args.json.write_text(json.dumps({
            "machine": machine(), "libraries": LIBRARIES, "reps": args.reps, "warm_reps": args.warm_reps, "times": times,
            "medians": medians, "ratios": ratios, "warm_rechecked_modules": rechecked,
            "mypy_changes": changes, "targeted_errors": targeted, "pyright_changes": pyright_changes,
        }, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
