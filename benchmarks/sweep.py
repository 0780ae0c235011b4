#!/usr/bin/env python3
"""Real-code sweep: the plugin and stubs on released JAX libraries, and what they cost.

    python benchmarks/sweep.py [--reps 3] [--warm-reps 15] [--pairs 0] [--control-pairs 0]
                               [--cost-only] [--json results.json]

Run it with the Python of an environment where the jax-stubs wheel is installed (the one
``scripts/test`` makes, ``.venv-test``). It fetches pinned wheels of real JAX libraries with
pip (only their sources are read; nothing is installed) and

1. runs mypy over their sources without the package, with the stubs only, with the stubs and
   the plugin, and with the plugin's typed calls of jitted functions (``mypy_plugin.typed_jit``,
   opt-in), and reports every diagnostic that changes and every targeted error;
   then, with the plugin, over the example folders that the libraries' source distributions ship
   (``EXAMPLES``), one folder per run as its scripts run from it, and reports every targeted
   error there;
2. runs pyright over them without and with the stubs, and reports what changes; then runs the
   reproduction of every finding in ``findings.py`` under JAX, and counts as unexplained every
   targeted error and every changed diagnostic that is not on the line of a confirmed finding,
   and every diagnostic typed calls add without its cause in ``TYPED_JIT_CAUSES`` (the exit
   status is 1 if there is any);
3. times mypy with and without the plugin (same installed stubs), cold (empty cache) and warm
   (the cache of a previous run), interleaved (``--reps`` cold and ``--warm-reps`` warm runs
   each), and prints the medians of wall and CPU time and their ratios, and how many modules a
   warm run re-parses; with ``--pairs``/``--control-pairs``, also cold runs side by side (plain
   and plugin, then plain and plain as the control), one per core;
4. runs mypy once more, cold, with every method of the plugin timed from inside the process
   (``timed_mypy.py``): the time mypy spends in the plugin, a figure that the noise of whole
   runs does not blur.

Each phase is one function returning a small record; the work folder is always removed.
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
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
import provenance  # noqa: E402
from checkers import parse_pyright  # noqa: E402
from environments import OUR_PACKAGE, linked_environment  # noqa: E402
from findings import FINDINGS, TYPED_JIT_CAUSES, TYPED_JIT_ENTRY, at, confirm  # noqa: E402
from timed_mypy import PER_METHOD, REPORT  # noqa: E402

from mypy_plugin.rules.hooked import HOOKED  # noqa: E402

# Distribution -> pinned release. Each wheel holds one package, named like the distribution
# with "_" for "-".
LIBRARIES = {
    "flax": "0.12.8",
    "optax": "0.2.8",
    "equinox": "0.13.8",
    "array-api-compat": "1.16.0",
    # Heavy users of jax.jit and jax.vmap, for the rules about traced values and the jit boundary.
    "chex": "0.1.92",
    "diffrax": "0.7.2",
    "jaxopt": "0.8.5",
    "numpyro": "0.22.0",
    "optimistix": "0.1.0",
}
EXAMPLES = {"flax": "examples"}
"""Libraries whose source distribution ships its example folder: programs written as users
write them (training loops, models, scripts importing their siblings), each subfolder its own
program. (Equinox's examples are notebooks its distributions leave out.)"""
JAX_RELEASE = (HERE.parent / "jax_stubs" / "JAX_VERSION").read_text().strip()
PALLAS_KERNELS = "jax/experimental/pallas/ops/"
PALLAS_PACKAGE = "pallas_ops"
TARGETED = tuple(f"[{code}]" for rule in HOOKED for code in rule.codes)
"""The plugin's rules: every error under these codes is a targeted error."""
BIN = Path(sys.executable).parent
MYPY_LINE = re.compile(r"^(?P<file>[^:]+\.py):(?P<line>\d+): (?P<severity>\w+): (?P<message>.*)$")
BASE_CONFIG = "[mypy]\nignore_missing_imports = True\ncheck_untyped_defs = True\n"
"""The libraries' other dependencies are not installed; unannotated functions are checked too,
so that every rule sees all the code it could report on."""
EXAMPLES_CONFIG = BASE_CONFIG + "plugins = mypy_plugin\nexplicit_package_bases = True\n"
"""An example folder is checked from itself: its scripts import their siblings (``import
models``), and subfolders without ``__init__.py`` are packages named from there."""
JIT_USE = re.compile(r"\bjax\.jit\b|@jit\b|\bjit\(")
AT_UPDATE = re.compile(r"\.at\[")
"""An indexed update, ``x.at[i].set(v)``: where ``jax-discarded-update`` looks."""


def fetch_sources(work: Path, libraries: dict[str, str] | None = None) -> list[str]:
    """Unpack each library's wheel (``LIBRARIES``, or ``libraries`` with their package folders)
    into ``work/src``, and JAX's own Pallas kernels (from the wheel of the JAX release the stubs
    describe) as the package ``pallas_ops``, so that mypy checks them as user code; return the
    package folders."""
    chosen = libraries or LIBRARIES
    wheels, src = work / "wheels", work / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={version}" for name, version in chosen.items()] + [f"jax=={JAX_RELEASE}"]
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), *pins], check=True)
    shutil.rmtree(src, ignore_errors=True)
    for wheel in wheels.glob("*.whl"):
        distribution = wheel.name.split("-")[0].replace("_", "-")
        with zipfile.ZipFile(wheel) as archive:
            if distribution in chosen:
                archive.extractall(src)
            elif distribution == "jax":
                for member in archive.namelist():
                    if member.startswith(PALLAS_KERNELS) and member.endswith(".py"):
                        target = src / PALLAS_PACKAGE / member[len(PALLAS_KERNELS) :]
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(archive.read(member))
    folders = [*(PACKAGE_FOLDERS.get(name, package_folder(name)) for name in chosen), *([PALLAS_PACKAGE] if libraries is None else [])]
    return sorted(folder for folder in folders if (src / folder).is_dir())


def fetch_examples(work: Path) -> list[Path]:
    """Unpack the example folder of each library of ``EXAMPLES`` from its source distribution
    into ``work/examples/<library>``; the folders of programs there, each checked on its own."""
    sdists = work / "sdists"
    pins = [f"{name}=={LIBRARIES[name]}" for name in EXAMPLES]
    command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", str(sdists), *pins]
    subprocess.run(command, check=True)
    folders: set[Path] = set()
    for name, folder in EXAMPLES.items():
        prefix = f"{name}-{LIBRARIES[name]}/{folder}/"
        with tarfile.open(sdists / f"{name}-{LIBRARIES[name]}.tar.gz") as archive:
            for member in archive.getmembers():
                if member.isfile() and member.name.startswith(prefix) and member.name.endswith(".py"):
                    relative = Path(member.name[len(prefix) :])
                    target = work / "examples" / name / relative
                    target.parent.mkdir(parents=True, exist_ok=True)
                    extracted = archive.extractfile(member)
                    assert extracted is not None
                    target.write_bytes(extracted.read())
                    if len(relative.parts) > 1:
                        folders.add(work / "examples" / name / relative.parts[0])
    return sorted(folders)


def example_errors(python: Path, work: Path) -> list[str]:
    """The plugin's errors over each example folder, checked from the folder (one cache for
    all), each line named from ``examples/``."""
    config = work / "mypy-examples.ini"
    config.write_text(EXAMPLES_CONFIG)
    found = []
    for folder in fetch_examples(work):
        command = [str(python), "-m", "mypy", "--config-file", str(config), "--cache-dir", str(work / "cache-examples")]
        result = subprocess.run([*command, "--no-error-summary", "."], cwd=folder, capture_output=True, text=True)
        if result.returncode not in (0, 1, 2) or "INTERNAL ERROR" in result.stdout + result.stderr:
            raise SystemExit(f"sweep: mypy failed on {folder} ({result.returncode}):\n{result.stderr[-3000:]}")
        named = folder.relative_to(work).as_posix()
        lines = [f"{named}/{line}" for line in diagnostics(result.stdout) if line.endswith(TARGETED)]
        print(f"mypy, stubs+plugin, {named}: {len(diagnostics(result.stdout))} diagnostics, {len(lines)} targeted", flush=True)
        if result.returncode == 2:
            raise SystemExit(f"sweep: mypy could not check {folder}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        found.extend(lines)
    return found


def size_of(src: Path, packages: list[str]) -> dict[str, int]:
    """How much the sweep checks: Python files, lines, uses of ``jax.jit`` (``JIT_USE``) and
    indexed updates (``AT_UPDATE``)."""
    texts = [path.read_text(encoding="utf-8", errors="replace") for folder in packages for path in (src / folder).rglob("*.py")]
    return {
        "files": len(texts),
        "lines": sum(text.count("\n") for text in texts),
        "jit_uses": sum(len(JIT_USE.findall(text)) for text in texts),
        "at_updates": sum(len(AT_UPDATE.findall(text)) for text in texts),
    }


PACKAGE_FOLDERS = {"dm-haiku": "haiku"}
"""Distributions whose package is not named after them."""


def package_folder(distribution: str) -> str:
    return distribution.replace("-", "_")


class Run:
    """One mypy run: wall time, CPU time (user + system) and its output."""

    def __init__(self, wall: float, cpu: float, result: subprocess.CompletedProcess[str]) -> None:
        self.wall, self.cpu, self.result = wall, cpu, result


def mypy_run(
    python: Path, src: Path, packages: list[str], plugin: bool | str, cache: Path, verbose: bool = False, timed_plugin: bool = False
) -> Run:
    [run] = mypy_runs(python, src, packages, [(plugin, cache)], verbose, timed_plugin)
    return run


def mypy_runs(
    python: Path, src: Path, packages: list[str], setups: list[tuple[bool | str, Path]], verbose: bool = False, timed_plugin: bool = False
) -> list[Run]:
    """mypy once per (plugin on?, cache folder), all runs at the same time; each run's wall and
    CPU time are its own. Runs side by side share the machine's speed of the moment, which
    drifts by several per cent over minutes here. A plugin given as a string is that entry
    point (``mypy_plugin.typed_jit``) instead of ``mypy_plugin``."""
    started: dict[int, tuple[int, subprocess.Popen[str], Any, Any, float]] = {}
    for index, (plugin, cache) in enumerate(setups):
        entry = plugin if isinstance(plugin, str) else "mypy_plugin" if plugin else None
        config = src.parent / f"mypy-{entry or 'plain'}.ini"
        config.write_text(BASE_CONFIG + (f"plugins = {entry}\n" if entry else ""))
        mypy = [str(HERE / "timed_mypy.py")] if timed_plugin else ["-m", "mypy"]
        command = [
            str(python),
            *mypy,
            "--config-file",
            str(config),
            "--cache-dir",
            str(cache),
            "--no-error-summary",
            *(["-v"] if verbose else []),
            *packages,
        ]
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
        cwd=src,
        capture_output=True,
        text=True,
    )
    return {str(diagnostic) for diagnostic in parse_pyright(result.stdout, src)}


# What a confirmed finding changes on its line, and nothing else: the stubs' generic error,
# which the plugin replaces by the targeted one; pyright's generic error.
AT_A_FINDING = {
    "stubs added": "[arg-type]",
    "plugin removed": "[arg-type]",
    "plugin added": "[jax-to-device-stream]",
    "targeted": "[jax-to-device-stream]",
    "pyright added": "[reportArgumentType]",
}


def explained(what: str, line: str, confirmed: set[tuple[str, int]]) -> bool:
    if what == "typed jit added":  # typed calls are opt-in: each addition needs its cause
        return location(line) in TYPED_JIT_CAUSES
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
        cpu = next(
            line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    mypy_version = subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": str(os.cpu_count()), "python": platform.python_version(), "mypy": mypy_version}


@dataclass(frozen=True)
class Sources:
    """What every phase checks: the unpacked sources, and the Pythons with and without the
    package (the second one links this environment's packages but ours)."""

    src: Path
    packages: list[str]
    with_package: Path
    without_package: Path
    work: Path


def prepare(work: Path) -> Sources:
    packages = fetch_sources(work)
    without = linked_environment(work / "env-without-package", leave_out=OUR_PACKAGE)
    return Sources(work / "src", packages, Path(sys.executable), without, work)


@dataclass
class Diagnostics:
    """Phases 1 and 2: what the package changes in mypy's and pyright's output, and whether
    each change is a finding confirmed at run time."""

    counts: dict[str, int]
    changes: dict[str, list[str]]
    targeted: list[str]
    example_targeted: list[str]
    pyright_changes: dict[str, list[str]]
    findings: list[dict[str, object]]
    unexplained: list[str]


def phase_diagnostics(sources: Sources) -> Diagnostics:
    outputs, counts = {}, {}
    setups: list[tuple[str, Path, bool | str]] = [
        ("none", sources.without_package, False),
        ("stubs", sources.with_package, False),
        ("stubs+plugin", sources.with_package, True),
        ("typed jit", sources.with_package, TYPED_JIT_ENTRY),
    ]
    for name, python, plugin in setups:
        run = mypy_run(python, sources.src, sources.packages, plugin, sources.work / f"cache-{name}")
        outputs[name] = diagnostics(run.result.stdout)
        counts[name] = len(outputs[name])
        print(f"mypy, {name}: {counts[name]} diagnostics", flush=True)
    changes = {
        "stubs added": sorted(outputs["stubs"] - outputs["none"]),
        "stubs removed": sorted(outputs["none"] - outputs["stubs"]),
        "plugin added": sorted(outputs["stubs+plugin"] - outputs["stubs"]),
        "plugin removed": sorted(outputs["stubs"] - outputs["stubs+plugin"]),
        "typed jit added": sorted(outputs["typed jit"] - outputs["stubs+plugin"]),
        "typed jit removed": sorted(outputs["stubs+plugin"] - outputs["typed jit"]),
    }
    targeted = sorted(line for line in outputs["stubs+plugin"] if line.endswith(TARGETED))
    for what, lines in changes.items():
        print(f"mypy, {what}: {len(lines)}", *("    " + line for line in lines), sep="\n", flush=True)
    print(f"targeted errors: {len(targeted)}", *("    " + line for line in targeted), sep="\n", flush=True)
    example_targeted = example_errors(sources.with_package, sources.work)
    print(f"targeted errors in examples: {len(example_targeted)}", *("    " + line for line in example_targeted), sep="\n", flush=True)

    pyright = {
        "none": pyright_run(sources.without_package, sources.src, sources.packages),
        "stubs": pyright_run(sources.with_package, sources.src, sources.packages),
    }
    pyright_changes = {"added": sorted(pyright["stubs"] - pyright["none"]), "removed": sorted(pyright["none"] - pyright["stubs"])}
    for what, lines in pyright_changes.items():
        print(f"pyright, stubs {what}: {len(lines)}", *("    " + line for line in lines), sep="\n", flush=True)

    # Every finding confirmed at run time; every change elsewhere, or unconfirmed, unexplained.
    findings: list[dict[str, object]] = []
    confirmed = set()
    for finding in FINDINGS:
        problem = confirm(finding, sources.with_package, sources.src)
        findings.append({"file": finding.file, "line": finding.line, "why": finding.why, "problem": problem})
        print(
            f"finding {finding.file}:{finding.line}: "
            + (f"NOT CONFIRMED: {problem}" if problem else "raises at run time with a stream, runs without")
        )
        if problem is None:
            confirmed.add(at(finding))
    changed = [("targeted", line) for line in [*targeted, *example_targeted]]
    changed += [(what, line) for what, lines in changes.items() for line in lines]
    changed += [(f"pyright {what}", line) for what, lines in pyright_changes.items() for line in lines]
    unexplained = sorted({line for what, line in changed if not explained(what, line, confirmed)})
    print(f"unexplained: {len(unexplained)}", *("    " + line for line in unexplained), sep="\n", flush=True)
    return Diagnostics(counts, changes, targeted, example_targeted, pyright_changes, findings, unexplained)


@dataclass
class Cost:
    """Phase 3: cold and warm runs one after another, plugin on and off, interleaved."""

    times: dict[str, list[float]]
    """``"cold plain wall"``: the seconds of each run, in order."""
    medians: dict[str, float]
    ratios: dict[str, float]
    paired_ratios: dict[str, float]
    rechecked: dict[str, int]


def phase_cost(sources: Sources, reps: int, warm_reps: int) -> Cost:
    # The caches of the diagnostics phase, or else of the first cold runs, are the warm caches.
    warm_caches = {False: sources.work / "cache-stubs", True: sources.work / "cache-stubs+plugin"}
    if warm_reps and not reps:
        for plugin, cache in warm_caches.items():
            if not cache.exists():
                mypy_run(sources.with_package, sources.src, sources.packages, plugin, cache)
    times: dict[str, list[float]] = {}
    for rep in range(max(reps, warm_reps)):
        for plugin in (False, True) if rep % 2 == 0 else (True, False):
            label = "plugin" if plugin else "plain"
            runs = []
            if rep < reps:
                cold_cache = sources.work / f"cold-{rep}-{label}"
                runs.append(("cold", mypy_run(sources.with_package, sources.src, sources.packages, plugin, cold_cache)))
                if warm_caches[plugin].exists():
                    shutil.rmtree(cold_cache)
                else:
                    cold_cache.rename(warm_caches[plugin])
            if rep < warm_reps:
                runs.append(("warm", mypy_run(sources.with_package, sources.src, sources.packages, plugin, warm_caches[plugin])))
            for kind, run in runs:
                times.setdefault(f"{kind} {label} wall", []).append(run.wall)
                times.setdefault(f"{kind} {label} cpu", []).append(run.cpu)
        print(f"rep {rep + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items() if len(v) == rep + 1), flush=True)
    medians = {k: statistics.median(v) for k, v in times.items()}
    measured = [f"{kind} {measure}" for kind in ("cold", "warm") for measure in ("wall", "cpu") if f"{kind} plain {measure}" in times]
    ratios = {m: medians[m.replace(" ", " plugin ")] / medians[m.replace(" ", " plain ")] for m in measured}
    # The plain and the plugin run of one repetition ran back to back: their ratio cancels
    # drifts of the machine's speed that span several runs.
    paired_ratios = {
        m: statistics.median(a / b for a, b in zip(times[m.replace(" ", " plugin ")], times[m.replace(" ", " plain ")])) for m in measured
    }
    for m in measured:
        print(
            f"{m}: plain median {medians[m.replace(' ', ' plain ')]:.3f} s, plugin median "
            f"{medians[m.replace(' ', ' plugin ')]:.3f} s, ratio {ratios[m]:.3f}, paired ratio {paired_ratios[m]:.3f}"
        )
    rechecked = {}
    if warm_reps:
        rechecked = {
            label: rechecked_modules(
                mypy_run(sources.with_package, sources.src, sources.packages, plugin, warm_caches[plugin], verbose=True).result.stderr
            )
            for label, plugin in (("plain", False), ("plugin", True))
        }
        print(f"modules re-parsed by a warm run: plain {rechecked['plain']}, plugin {rechecked['plugin']}")
    return Cost(times, medians, ratios, paired_ratios, rechecked)


@dataclass
class SideBySide:
    """Phase 3b: a plain and a plugin cold run at the same time, one per core, so that both
    see the same machine; then, as the control that shows the noise left, two plain runs."""

    runs: list[dict[str, Any]]
    summary: dict[str, dict[str, float]]


def phase_side_by_side(sources: Sources, pairs: int, control_pairs: int) -> SideBySide:
    runs: list[dict[str, Any]] = []
    for pair in range(pairs + control_pairs):
        control = pair >= pairs
        plugins = (False, False) if control else ((False, True) if pair % 2 == 0 else (True, False))
        caches = [sources.work / f"side-{pair}-{side}" for side in range(2)]
        both = mypy_runs(sources.with_package, sources.src, sources.packages, list(zip(plugins, caches)))
        for cache in caches:
            shutil.rmtree(cache)
        walls = [run.wall for run in both]
        # plugin / plain; for the control, second / first started.
        ratio = walls[1] / walls[0] if control or plugins[1] else walls[0] / walls[1]
        runs.append(
            {
                "kind": "control" if control else "plugin",
                "plugins": plugins,
                "wall": walls,
                "cpu": [run.cpu for run in both],
                "ratio": ratio,
            }
        )
        print(
            f"side by side {pair + 1} ({', '.join('plugin' if on else 'plain' for on in plugins)}): "
            f"{', '.join(f'{w:.1f} s' for w in walls)}, ratio {ratio:.3f}",
            flush=True,
        )
    summary = {}
    for kind in ("plugin", "control"):
        kind_ratios = [entry["ratio"] for entry in runs if entry["kind"] == kind]
        if kind_ratios:
            summary[kind] = {"median": statistics.median(kind_ratios), "min": min(kind_ratios), "max": max(kind_ratios)}
            print(
                f"side by side, {kind}: ratio median {summary[kind]['median']:.3f} "
                f"({summary[kind]['min']:.3f}-{summary[kind]['max']:.3f}) over {len(kind_ratios)} pairs"
            )
    return SideBySide(runs, summary)


def phase_plugin_time(sources: Sources) -> dict[str, Any]:
    """Phase 4: one cold run with every method of the plugin counted from inside mypy's process
    (``timed_mypy.py``), and the plugin's whole cost estimated from the counts and the measured
    cost of each lookup, a figure that the noise of whole runs does not blur."""
    timed_run = mypy_run(sources.with_package, sources.src, sources.packages, True, sources.work / "cold-timed", timed_plugin=True)
    found = REPORT.search(timed_run.result.stderr)
    if found is None:
        raise SystemExit(f"sweep: the timed run printed no plugin time:\n{timed_run.result.stderr[-3000:]}")
    checking = float(found["checking"])  # mypy's own run, without the lookup measurement
    estimate = float(found["estimate"])
    per_method = {
        m["name"]: {"calls": int(m["calls"]), "seconds": float(m["seconds"]), "ns_per_lookup": int(m["lookup_ns"])}
        for m in PER_METHOD.finditer(timed_run.result.stderr)
    }
    plugin_time: dict[str, Any] = {
        "seconds_timed": float(found["seconds"]),
        "calls": int(found["calls"]),
        "estimated_seconds": estimate,
        "mypy_seconds": checking,
        "estimated_share": estimate / checking,
        "per_method": per_method,
    }
    for name, figures in sorted(per_method.items(), key=lambda item: -item[1]["calls"]):
        print(
            f"    {name}: {figures['calls']} calls, {figures['seconds']:.3f} s timed, {figures['ns_per_lookup']} ns per lookup", flush=True
        )
    print(
        f"time in the plugin, one cold run: {plugin_time['calls']} calls, {plugin_time['seconds_timed']:.3f} s "
        f"timed; estimated whole cost {estimate:.3f} s, {100 * estimate / checking:.2f} % of that run's "
        f"{checking:.1f} s",
        flush=True,
    )
    return plugin_time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="cold runs per setup")
    parser.add_argument("--warm-reps", type=int, default=15, help="warm runs per setup")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--pairs", type=int, default=0, help="cold plain and plugin runs side by side")
    parser.add_argument("--control-pairs", type=int, default=0, help="two cold plain runs side by side")
    parser.add_argument("--cost-only", action="store_true", help="skip the diagnostics sweep (1 and 2)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="sweep-") as work:
        sources = prepare(Path(work))
        size = size_of(sources.src, sources.packages)
        print(
            f"sweep: {', '.join(f'{n} {v}' for n, v in LIBRARIES.items())}, JAX {JAX_RELEASE}'s Pallas kernels "
            f"({size['files']} files, {size['lines']} lines, {size['jit_uses']} uses of jax.jit); {machine()}",
            flush=True,
        )
        found = None if args.cost_only else phase_diagnostics(sources)
        size["example_files"] = len(list((sources.work / "examples").rglob("*.py")))
        cost = phase_cost(sources, args.reps, args.warm_reps)
        side_by_side = phase_side_by_side(sources, args.pairs, args.control_pairs)
        plugin_time = phase_plugin_time(sources)
    if args.json:
        args.json.write_text(
            json.dumps(
                provenance.stamped(
                    {
                        "machine": machine(),
                        "libraries": LIBRARIES,
                        "pallas_kernels_of_jax": JAX_RELEASE,
                        "size": size,
                        "reps": args.reps,
                        "warm_reps": args.warm_reps,
                        "pairs": args.pairs,
                        "control_pairs": args.control_pairs,
                        "times": cost.times,
                        "medians": cost.medians,
                        "ratios": cost.ratios,
                        "paired_ratios": cost.paired_ratios,
                        "warm_rechecked_modules": cost.rechecked,
                        "side_by_side_runs": side_by_side.runs,
                        "side_by_side": side_by_side.summary,
                        "plugin_time": plugin_time,
                        "mypy_diagnostics": found.counts if found else {},
                        "mypy_changes": found.changes if found else {},
                        "targeted_errors": found.targeted if found else [],
                        "examples": {name: f"{LIBRARIES[name]}: {folder}/" for name, folder in EXAMPLES.items()},
                        "example_targeted_errors": found.example_targeted if found else [],
                        "pyright_changes": found.pyright_changes if found else {},
                        "findings": found.findings if found else [],
                        "unexplained": found.unexplained if found else [],
                    }
                ),
                indent=2,
            )
            + "\n"
        )
    return 1 if found and found.unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
