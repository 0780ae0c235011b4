#!/usr/bin/env python3
"""Real-code sweep: the plugin and stubs on released JAX libraries, and what they cost.

    python benchmarks/sweep.py [--reps 3] [--warm-reps 15] [--pairs 0] [--control-pairs 0]
                               [--cost-only] [--json results.json]

Run it with the Python of an environment where the jax-stubs wheel is installed (the one
``scripts/test`` makes, ``.venv-test``). It fetches pinned wheels of real JAX libraries with
pip (only their sources are read; nothing is installed) and

1. runs mypy over their sources without the package, with the stubs only, and with the stubs
   and the plugin, and reports every diagnostic that changes and every targeted error;
2. runs pyright over them without and with the stubs, and reports what changes; then runs the
   reproduction of every finding in ``findings.py`` under JAX, and counts as unexplained every
   targeted error and every changed diagnostic that is not on the line of a confirmed finding
   (the exit status is 1 if there is any);
3. times mypy with and without the plugin (same installed stubs), cold (empty cache) and warm
   (the cache of a previous run), interleaved (``--reps`` cold and ``--warm-reps`` warm runs
   each), and prints the medians of wall and CPU time and their ratios, and how many modules a
   warm run re-parses; with ``--pairs``/``--control-pairs``, also cold runs side by side (plain
   and plugin, then plain and plain as the control), one per core;
4. runs mypy once more, cold, with every method of the plugin timed from inside the process:
   the time mypy spends in the plugin, a figure that the noise of whole runs does not blur.
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
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from checkers import parse_pyright  # noqa: E402
from environments import OUR_PACKAGE, linked_environment  # noqa: E402
from findings import FINDINGS, at, confirm  # noqa: E402

# Distribution -> pinned release. Each wheel holds one package, named like the distribution
# with "_" for "-".
LIBRARIES = {"flax": "0.12.8", "optax": "0.2.8", "equinox": "0.13.8", "array-api-compat": "1.16.0"}
JAX_RELEASE = (HERE.parent / "jax_stubs" / "JAX_VERSION").read_text().strip()
PALLAS_KERNELS = "jax/experimental/pallas/ops/"
PALLAS_PACKAGE = "pallas_ops"
TARGETED = ("[jax-to-device-stream]", "[jax-immutable-array]")
"""The plugin's rules: every error under these codes is a targeted error."""
BIN = Path(sys.executable).parent
MYPY_LINE = re.compile(r"^(?P<file>[^:]+\.py):(?P<line>\d+): (?P<severity>\w+): (?P<message>.*)$")
BASE_CONFIG = "[mypy]\nignore_missing_imports = True\n"

# Runs mypy in this process with every method of the plugin class, and every hook they hand
# to mypy, timed; prints the sum on stderr. mypy's own modules are imported first, so only
# the plugin's own import is counted. Beforehand it measures what one hook lookup costs more
# through mypy's (compiled) plugin chain with the plugin than without it, the call itself
# included, which the timing inside the plugin does not see.
TIMED_MYPY = """
import sys, time
import mypy.main, mypy.plugin
from mypy.options import Options
from mypy.plugins.default import DefaultPlugin
begun = time.perf_counter()
from mypy_plugin.main import JaxStubsPlugin
spent, calls = time.perf_counter() - begun, 0

def lookup_seconds(plugins, rounds=200_000):
    chain = mypy.plugin.ChainedPlugin(Options(), plugins)
    names = ["builtins.str.join", "jax._src.basearray.Array.to_device", "numpy.ndarray.sum", "jax.numpy.zeros"]
    best = float("inf")
    for _ in range(5):
        begun = time.perf_counter()
        for _ in range(rounds // len(names)):
            for name in names:
                chain.get_method_hook(name)
        best = min(best, (time.perf_counter() - begun) / rounds)
    return best

extra_lookup = lookup_seconds([JaxStubsPlugin(Options()), DefaultPlugin(Options())]) - lookup_seconds([DefaultPlugin(Options())])

def timed(function):
    def run(*args, **kwargs):
        global spent, calls
        begun = time.perf_counter()
        try:
            return_value = function(*args, **kwargs)
        finally:
            spent += time.perf_counter() - begun
            calls += 1
        return timed(return_value) if callable(return_value) else return_value
    return run

for name in dir(JaxStubsPlugin):
    if name == "__init__" or (not name.startswith("_") and callable(getattr(JaxStubsPlugin, name))):
        setattr(JaxStubsPlugin, name, timed(getattr(JaxStubsPlugin, name)))
checking = time.perf_counter()
try:
    mypy.main.main(args=sys.argv[1:], clean_exit=True)
finally:
    checking = time.perf_counter() - checking
    print(f"plugin time: {spent:.6f} s in {calls} calls; one lookup costs {extra_lookup * 1e9:.0f} ns more; "
          f"mypy ran {checking:.3f} s", file=sys.stderr)
"""
PLUGIN_TIME = re.compile(
    r"^plugin time: (?P<seconds>[0-9.]+) s in (?P<calls>\d+) calls; one lookup costs (?P<lookup_ns>-?\d+) ns more; "
    r"mypy ran (?P<checking>[0-9.]+) s$",
    re.MULTILINE,
)


def fetch_sources(work: Path) -> list[str]:
    """Unpack each library's wheel into ``work/src``, and JAX's own Pallas kernels (from the
    wheel of the JAX release the stubs describe) as the package ``pallas_ops``, so that mypy
    checks them as user code; return the package folders."""
    wheels, src = work / "wheels", work / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={version}" for name, version in LIBRARIES.items()] + [f"jax=={JAX_RELEASE}"]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), *pins], check=True
    )
    shutil.rmtree(src, ignore_errors=True)
    for wheel in wheels.glob("*.whl"):
        distribution = wheel.name.split("-")[0].replace("_", "-")
        with zipfile.ZipFile(wheel) as archive:
            if distribution in LIBRARIES:
                archive.extractall(src)
            elif distribution == "jax":
                for member in archive.namelist():
                    if member.startswith(PALLAS_KERNELS) and member.endswith(".py"):
                        target = src / PALLAS_PACKAGE / member[len(PALLAS_KERNELS):]
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(archive.read(member))
    folders = [*map(package_folder, LIBRARIES), PALLAS_PACKAGE]
    return sorted(folder for folder in folders if (src / folder).is_dir())


def package_folder(distribution: str) -> str:
    return distribution.replace("-", "_")


class Run:
    """One mypy run: wall time, CPU time (user + system) and its output."""

    def __init__(self, wall: float, cpu: float, result: subprocess.CompletedProcess[str]) -> None:
        self.wall, self.cpu, self.result = wall, cpu, result


def mypy_run(python: Path, src: Path, packages: list[str], plugin: bool, cache: Path,
             verbose: bool = False, timed_plugin: bool = False) -> Run:
    [run] = mypy_runs(python, src, packages, [(plugin, cache)], verbose, timed_plugin)
    return run


def mypy_runs(python: Path, src: Path, packages: list[str], setups: list[tuple[bool, Path]],
              verbose: bool = False, timed_plugin: bool = False) -> list[Run]:
    """mypy once per (plugin on?, cache folder), all runs at the same time; each run's wall and
    CPU time are its own. Runs side by side share the machine's speed of the moment, which
    drifts by several per cent over minutes here."""
    started: dict[int, tuple[int, subprocess.Popen[str], Any, Any, float]] = {}
    for index, (plugin, cache) in enumerate(setups):
        config = src.parent / f"mypy-{'plugin' if plugin else 'plain'}.ini"
        config.write_text(BASE_CONFIG + ("plugins = mypy_plugin\n" if plugin else ""))
        mypy = ["-c", TIMED_MYPY] if timed_plugin else ["-m", "mypy"]
        command = [str(python), *mypy, "--config-file", str(config), "--cache-dir", str(cache),
                   "--no-error-summary", *(["-v"] if verbose else []), *packages]
        out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
        process = subprocess.Popen(command, cwd=src, stdout=out, stderr=err, text=True)
        started[process.pid] = (index, process, out, err, time.perf_counter())
    runs: list[Run | None] = [None] * len(setups)
    try:
        while started:
            pid, status, usage = os.wait4(-1, 0)
            if pid not in started:
                continue
            index, process, out, err, began = started.pop(pid)
            wall = time.perf_counter() - began
            process.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            result = subprocess.CompletedProcess(process.args, process.returncode, out.read(), err.read())
            out.close()
            err.close()
            if result.returncode not in (0, 1) or "INTERNAL ERROR" in result.stdout + result.stderr:
                raise SystemExit(f"sweep: mypy failed ({result.returncode}):\n{result.stderr[-3000:]}")
            runs[index] = Run(wall, usage.ru_utime + usage.ru_stime, result)
    finally:  # after a failure, stop the runs still going
        for _, process, out, err, _ in started.values():
            process.kill()
            process.wait()
            out.close()
            err.close()
    return [run for run in runs if run is not None]


def diagnostics(output: str) -> set[str]:
    return {line for line in output.splitlines() if MYPY_LINE.match(line)}


def pyright_run(python: Path, src: Path, packages: list[str]) -> set[str]:
    result = subprocess.run(
        [str(BIN / "pyright"), "--outputjson", "--pythonpath", str(python), *packages],
        cwd=src, capture_output=True, text=True,
    )
    return {str(diagnostic) for diagnostic in parse_pyright(result.stdout, src)}


# What a confirmed finding changes on its line, and nothing else: the stubs' generic error,
# which the plugin replaces by the targeted one; pyright's generic error.
AT_A_FINDING = {"stubs added": "[arg-type]", "plugin removed": "[arg-type]", "plugin added": "[jax-to-device-stream]",
                "targeted": "[jax-to-device-stream]", "pyright added": "[reportArgumentType]"}


def explained(what: str, line: str, confirmed: set[tuple[str, int]]) -> bool:
    if location(line) not in confirmed:
        return False
    if what == "plugin added" and ": note: " in line:  # the targeted error's own notes
        return True
    return AT_A_FINDING.get(what, "\0") in line


def location(line: str) -> tuple[str, int]:
    """``file:line`` at the start of a mypy or pyright line of ``diagnostics``/``pyright_run``."""
    file, number, _ = line.split(":", 2)
    return file, int(number)


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
    parser.add_argument("--pairs", type=int, default=0, help="cold plain and plugin runs side by side")
    parser.add_argument("--control-pairs", type=int, default=0, help="two cold plain runs side by side")
    parser.add_argument("--cost-only", action="store_true", help="skip the diagnostics sweep (1 and 2)")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="sweep-"))
    packages = fetch_sources(work)
    src = work / "src"
    python_with_package = Path(sys.executable)
    python_without_package = linked_environment(work / "env-without-package", leave_out=OUR_PACKAGE)
    print(f"sweep: {', '.join(f'{n} {v}' for n, v in LIBRARIES.items())}, JAX {JAX_RELEASE}'s Pallas kernels; "
          f"{machine()}", flush=True)

    changes: dict[str, list[str]] = {}
    targeted: list[str] = []
    pyright_changes: dict[str, list[str]] = {}
    findings: list[dict[str, object]] = []
    counts: dict[str, int] = {}
    unexplained: list[str] = []
    if not args.cost_only:
        # 1. Diagnostics: without the package, stubs only, stubs and plugin (cold caches).
        outputs = {}
        for name, python, plugin in [("none", python_without_package, False), ("stubs", python_with_package, False),
                                     ("stubs+plugin", python_with_package, True)]:
            run = mypy_run(python, src, packages, plugin, work / f"cache-{name}")
            outputs[name] = diagnostics(run.result.stdout)
            counts[name] = len(outputs[name])
            print(f"mypy, {name}: {counts[name]} diagnostics", flush=True)
        changes = {
            "stubs added": sorted(outputs["stubs"] - outputs["none"]),
            "stubs removed": sorted(outputs["none"] - outputs["stubs"]),
            "plugin added": sorted(outputs["stubs+plugin"] - outputs["stubs"]),
            "plugin removed": sorted(outputs["stubs"] - outputs["stubs+plugin"]),
        }
        targeted = sorted(line for line in outputs["stubs+plugin"] if line.endswith(TARGETED))
        for what, lines in changes.items():
            print(f"mypy, {what}: {len(lines)}", *("    " + line for line in lines), sep="\n", flush=True)
        print(f"targeted errors: {len(targeted)}", *("    " + line for line in targeted), sep="\n", flush=True)

        # 2. pyright without and with the stubs.
        pyright = {"none": pyright_run(python_without_package, src, packages), "stubs": pyright_run(python_with_package, src, packages)}
        pyright_changes = {"added": sorted(pyright["stubs"] - pyright["none"]), "removed": sorted(pyright["none"] - pyright["stubs"])}
        for what, lines in pyright_changes.items():
            print(f"pyright, stubs {what}: {len(lines)}", *("    " + line for line in lines), sep="\n", flush=True)

        # Every finding confirmed at run time; every change elsewhere, or unconfirmed, unexplained.
        confirmed = set()
        for finding in FINDINGS:
            problem = confirm(finding, python_with_package, src)
            findings.append({"file": finding.file, "line": finding.line, "why": finding.why, "problem": problem})
            print(f"finding {finding.file}:{finding.line}: "
                  + (f"NOT CONFIRMED: {problem}" if problem else "raises at run time with a stream, runs without"))
            if problem is None:
                confirmed.add(at(finding))
        changed = [("targeted", line) for line in targeted]
        changed += [(what, line) for what, lines in changes.items() for line in lines]
        changed += [(f"pyright {what}", line) for what, lines in pyright_changes.items() for line in lines]
        unexplained = sorted({line for what, line in changed if not explained(what, line, confirmed)})
        print(f"unexplained: {len(unexplained)}", *("    " + line for line in unexplained), sep="\n", flush=True)

    elif args.warm_reps and not args.reps:
        for name, plugin in (("stubs", False), ("stubs+plugin", True)):
            mypy_run(python_with_package, src, packages, plugin, work / f"cache-{name}")

    # 3. Cost: interleaved cold and warm runs, same installed stubs, plugin on and off.
    times: dict[str, list[float]] = {}  # "cold plain wall": seconds of each run, in order
    # The caches of the runs above, or else of the first cold runs, are the warm caches.
    warm_caches = {False: work / "cache-stubs", True: work / "cache-stubs+plugin"}
    for rep in range(max(args.reps, args.warm_reps)):
        for plugin in ((False, True) if rep % 2 == 0 else (True, False)):
            label = "plugin" if plugin else "plain"
            runs = []
            if rep < args.reps:
                cold_cache = work / f"cold-{rep}-{label}"
                runs.append(("cold", mypy_run(python_with_package, src, packages, plugin, cold_cache)))
                if warm_caches[plugin].exists():
                    shutil.rmtree(cold_cache)
                else:
                    cold_cache.rename(warm_caches[plugin])
            if rep < args.warm_reps:
                runs.append(("warm", mypy_run(python_with_package, src, packages, plugin, warm_caches[plugin])))
            for kind, run in runs:
                times.setdefault(f"{kind} {label} wall", []).append(run.wall)
                times.setdefault(f"{kind} {label} cpu", []).append(run.cpu)
        print(f"rep {rep + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items() if len(v) == rep + 1),
              flush=True)
    medians = {k: statistics.median(v) for k, v in times.items()}
    measured = [f"{kind} {measure}" for kind in ("cold", "warm") for measure in ("wall", "cpu")
                if f"{kind} plain {measure}" in times]
    ratios = {m: medians[m.replace(" ", " plugin ")] / medians[m.replace(" ", " plain ")] for m in measured}
    # The plain and the plugin run of one repetition ran back to back: their ratio cancels
    # drifts of the machine's speed that span several runs.
    paired_ratios = {
        m: statistics.median(a / b for a, b in zip(times[m.replace(" ", " plugin ")], times[m.replace(" ", " plain ")]))
        for m in measured
    }
    for m in measured:
        print(f"{m}: plain median {medians[m.replace(' ', ' plain ')]:.3f} s, plugin median "
              f"{medians[m.replace(' ', ' plugin ')]:.3f} s, ratio {ratios[m]:.3f}, paired ratio {paired_ratios[m]:.3f}")
    rechecked = {}
    if args.warm_reps:
        rechecked = {
            label: rechecked_modules(mypy_run(python_with_package, src, packages, plugin, warm_caches[plugin], verbose=True).result.stderr)
            for label, plugin in (("plain", False), ("plugin", True))
        }
        print(f"modules re-parsed by a warm run: plain {rechecked['plain']}, plugin {rechecked['plugin']}")

    # Side by side: a plain and a plugin cold run at the same time, one per core, so that both
    # see the same machine; then, as the control that shows the noise left, two plain runs.
    pairs: list[dict[str, Any]] = []
    for pair in range(args.pairs + args.control_pairs):
        control = pair >= args.pairs
        plugins = (False, False) if control else ((False, True) if pair % 2 == 0 else (True, False))
        caches = [work / f"side-{pair}-{side}" for side in range(2)]
        both = mypy_runs(python_with_package, src, packages, list(zip(plugins, caches)))
        for cache in caches:
            shutil.rmtree(cache)
        walls = [run.wall for run in both]
        # plugin / plain; for the control, second / first started.
        ratio = walls[1] / walls[0] if control or plugins[1] else walls[0] / walls[1]
        pairs.append({"kind": "control" if control else "plugin", "plugins": plugins, "wall": walls,
                      "cpu": [run.cpu for run in both], "ratio": ratio})
        print(f"side by side {pair + 1} ({', '.join('plugin' if on else 'plain' for on in plugins)}): "
              f"{', '.join(f'{w:.1f} s' for w in walls)}, ratio {ratio:.3f}", flush=True)
    side_by_side = {}
    for kind in ("plugin", "control"):
        kind_ratios = [entry["ratio"] for entry in pairs if entry["kind"] == kind]
        if kind_ratios:
            side_by_side[kind] = {"median": statistics.median(kind_ratios), "min": min(kind_ratios), "max": max(kind_ratios)}
            print(f"side by side, {kind}: ratio median {side_by_side[kind]['median']:.3f} "
                  f"({side_by_side[kind]['min']:.3f}-{side_by_side[kind]['max']:.3f}) over {len(kind_ratios)} pairs")

    # 4. The time spent in the plugin itself, in one cold run.
    timed_run = mypy_run(python_with_package, src, packages, True, work / "cold-timed", timed_plugin=True)
    found = PLUGIN_TIME.search(timed_run.result.stderr)
    if found is None:
        raise SystemExit(f"sweep: the timed run printed no plugin time:\n{timed_run.result.stderr[-3000:]}")
    checking = float(found["checking"])  # mypy's own run, without the driver's lookup measurement
    seconds, calls = float(found["seconds"]), int(found["calls"])
    # An upper estimate of the plugin's whole cost: every call priced as a method-hook lookup
    # through the chain, plus the time measured inside the plugin.
    estimate = seconds + calls * max(int(found["lookup_ns"]), 0) * 1e-9
    plugin_time = {"seconds_inside": seconds, "calls": calls, "extra_ns_per_lookup": int(found["lookup_ns"]),
                   "estimated_seconds": estimate, "mypy_seconds": checking, "estimated_share": estimate / checking}
    print(f"time in the plugin, one cold run: {seconds:.3f} s inside it over {calls} calls; one lookup through "
          f"mypy's plugin chain costs {found['lookup_ns']} ns more; estimated whole cost {estimate:.3f} s, "
          f"{100 * plugin_time['estimated_share']:.2f} % of that run's {checking:.1f} s", flush=True)

    if args.json:
        args.json.write_text(json.dumps({
            "machine": machine(), "libraries": LIBRARIES, "reps": args.reps, "warm_reps": args.warm_reps, "times": times,
            "medians": medians, "ratios": ratios, "paired_ratios": paired_ratios, "plugin_time": plugin_time,
            "pairs": args.pairs, "control_pairs": args.control_pairs, "side_by_side_runs": pairs, "side_by_side": side_by_side,
            "warm_rechecked_modules": rechecked,
            "mypy_diagnostics": counts, "mypy_changes": changes, "targeted_errors": targeted, "pyright_changes": pyright_changes,
            "findings": findings, "unexplained": unexplained,
        }, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
