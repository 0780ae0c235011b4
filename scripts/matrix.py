#!/usr/bin/env python3
"""Run the release-dependent tests for the other JAX and mypy releases.

The suite itself runs everything on the newest JAX (the one the stubs describe) with the newest
mypy. Here, only where a release changes the outcome (``cells_of``; ``--every-pair`` for all
pairs): the older JAX releases with the newest mypy run what a JAX release changes (the
type-check cases, the runtime truth, the traced-value tables, the contract: ``JAX_TESTS``), and
the older mypy with the newest JAX runs what a mypy release changes (the type-check cases, the
reads of mypy's internals, ``jax-stubs lint``'s use of its build API: ``MYPY_TESTS``).

    python scripts/matrix.py [--jax 0.4.31 0.7.2 0.10.2] [--mypy 1.19.0 2.4.1] [--every-pair] [--keep]

Each cell is a copy of this checkout retargeted with ``generate_stubs.py --jax X``, built into
a wheel and installed with mypy Y into a virtual environment of its own under ``.matrix/``.
A cell's copy and environment (about 0.8 GB) are removed when it finishes, its log kept, so that
the matrix holds at most ``--jobs`` of them at once: CI's machines may have little disk (a run
that kept all four ran out of space). ``--keep`` keeps them, for cheap re-runs. Cells run side
by side, one per core (``--jobs``). Prints one line per cell with its time, and exits non-zero
if any cell fails.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".matrix"
JAX_RELEASES = ["0.4.31", "0.7.2", "0.10.2", "0.12.0.1"]
"""The oldest supported, one in the middle, the one this checkout describes (the newest for the
machines' default Python 3.11) and the newest, which needs Python 3.12 (``python_for``)."""
SUITE_JAX = (REPO / "jax_stubs" / "JAX_VERSION").read_text().strip()
MYPY_RELEASES = ["1.19.0", "2.4.1"]  # lowest and highest supported
TEST_TOOLS = ["pytest>=8", "pytest-mypy-plugins>=4.1,<5", "PyYAML>=6"]
LIBRARIES = ("equinox", "flax")
"""The libraries whose rules have YAML cases (``jax-linen-*``, ``jax-nnx-trace-level``,
``jax-equinox-module``): installed, at the test extra's pins, in the cells of the suite's JAX
release (their releases there need a recent JAX), so that those cases run under the older mypy
too, and at older releases in the oldest JAX's cell (``OLDER_LIBRARY_PINS``); a cell without them
skips the cases and says so."""
OLDER_LIBRARY_PINS = {"0.4.31": ["flax==0.10.0", "equinox==0.11.10"]}
"""Older releases of ``LIBRARIES`` for the oldest JAX: the newest Equinox that installs with it, and
the newest Flax that does and checks NNX's trace level (0.10.1 to 0.10.4 switch the check off).
Flax 0.10.0 raises under ``jax.vmap`` and ``jax.grad`` only from JAX 0.4.36
(``benchmarks/results/nnx_releases.json``), so there ``jax-nnx-trace-level`` keeps to the other
transforms, and the cases say which release they need."""


def library_pins() -> list[str]:
    """The test extra's requirements of ``LIBRARIES`` (``pyproject.toml``, the one home of the pins)."""
    import tomllib

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    return [requirement for requirement in extra if re.split(r"[<>=!~\[ ]", requirement, maxsplit=1)[0] in LIBRARIES]


CONFIGURATION_CASES = REPO / "tests" / "typecheck" / "test_config.yml"
"""How the plugin meets mypy's configuration (codes disabled, ignores, strict mode), each case a
mypy run of its own: what a mypy release changes, on misuses (a stream given to ``to_device``, an
item assigned) that every JAX release of the matrix rejects alike; the runtime truth of these
cases still runs on every JAX release (``tests/test_runtime_truth.py`` reads every case)."""
JAX_TESTS = [
    *sorted(str(path.relative_to(REPO)) for path in CONFIGURATION_CASES.parent.glob("*.yml") if path != CONFIGURATION_CASES),
    "tests/test_runtime_truth.py",
    "tests/test_traced_tables.py",
    "tests/test_contract.py",  # the contract table of the cell's release, probed again there
]
"""The rewrites written in place (``tests/test_rewrites_in_place.py``) run in the suite alone:
they are ``.at[...]`` updates and ``jnp.where`` calls, which type-check and run alike on every
release here (every cell passed them in the fresh-clone runs of a60a4b2 and 1db741d), and checking them
means a second mypy run over every case, the largest setup of a cell."""
MYPY_TESTS = [
    "tests/typecheck",  # with CONFIGURATION_CASES
    "tests/test_mypy_internals.py",
    "tests/test_lint.py",  # jax-stubs lint drives mypy through its programmatic interface
]


def python_for(jax: str) -> str:
    """A Python that can install ``jax`` (its ``Requires-Python``, from ``install/releases.py``):
    this one if it can, else the first newer one found as ``python3.X`` on the PATH or among
    pyenv's versions (the machines have 3.12 and 3.13 beside the default 3.11)."""
    sys.path.insert(0, str(REPO))
    from mypy_plugin.install.releases import RELEASES

    floor = tuple(int(part) for part in re.findall(r"\d+", RELEASES.get(jax, ">=3.0"))[:2])
    if sys.version_info[:2] >= floor:
        return sys.executable
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for minor in range(floor[1], floor[1] + 4):
        name = f"python{floor[0]}.{minor}"
        for candidate in [shutil.which(name), *sorted(glob.glob(f"{pyenv}/versions/{floor[0]}.{minor}.*/bin/{name}"))]:
            if candidate and subprocess.run([candidate, "-c", "import venv"], capture_output=True).returncode == 0:
                return candidate
    raise SystemExit(f"matrix: error: jax {jax} needs Python {RELEASES.get(jax)}; none found on the PATH or in {pyenv}/versions")


def sh(command: list[str], log: Path, **kwargs: object) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=True, **kwargs)  # type: ignore[call-overload]


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True, text=True)
    if listed.returncode != 0:
        raise SystemExit("matrix: error: needs a git checkout to copy from")
    return [name for name in listed.stdout.splitlines() if (REPO / name).is_file()]


def run_cell(jax: str, mypy: str, tests: list[str], keep: bool = False) -> tuple[bool, float, Path]:
    started = time.monotonic()
    cell = WORK / f"jax-{jax}-mypy-{mypy}"
    cell.mkdir(parents=True, exist_ok=True)
    log = cell / "log.txt"
    log.write_text("")
    source = cell / "src"
    shutil.rmtree(source, ignore_errors=True)
    for name in tracked_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, source / name)
    venv = cell / "venv"
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "-q"]
    try:
        if not python.exists():
            sh([python_for(jax), "-m", "venv", str(venv)], log)
        sh([str(python), str(source / "scripts/generate_stubs.py"), "--jax", jax], log)
        with tempfile.TemporaryDirectory() as dist, tempfile.TemporaryDirectory() as cache:
            sh([*pip, "wheel", "--no-deps", "-w", dist, str(source)], log)
            [wheel] = Path(dist).glob("*.whl")
            libraries = library_pins() if jax == SUITE_JAX else OLDER_LIBRARY_PINS.get(jax, [])
            sh([*pip, "install", str(wheel), f"jax=={jax}", f"mypy=={mypy}", *TEST_TOOLS, *libraries], log)
            sh([*pip, "install", "--force-reinstall", "--no-deps", str(wheel)], log)
            env = {
                **os.environ,
                "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
                "JAX_PLATFORMS": "cpu",
                "JAX_STUBS_TEST_MYPY_CACHE": str(Path(cache) / ".mypy_cache"),  # the cell's own, not the suite's: another mypy or JAX
            }
            sh(
                [str(venv / "bin" / "pytest"), "-q", "-p", "no:cacheprovider", f"--mypy-testing-base={cache}", *tests],
                log,
                cwd=source,
                env=env,
            )
        return True, time.monotonic() - started, log
    except subprocess.CalledProcessError:
        return False, time.monotonic() - started, log
    finally:
        if not keep:
            shutil.rmtree(source, ignore_errors=True)
            shutil.rmtree(venv, ignore_errors=True)


SUMMARY = re.compile(r"^=*\s*(?P<summary>\d+ (?:passed|failed|skipped|error).*?) in [\d.]+s")
SKIPPED = re.compile(r"^SKIPPED \[(?P<count>\d+)\] [^:]+(?::\d+)?: (?P<reason>.*)$")


def outcome_of(log: str) -> tuple[str, dict[str, int]]:
    """pytest's last summary in a cell's log ("580 passed, 53 skipped"), and how many tests
    were skipped for each reason (pytest's ``-ra`` lines), so that CI's output shows what a
    cell did not run."""
    summaries = [m["summary"] for m in map(SUMMARY.match, log.splitlines()) if m]
    skipped: dict[str, int] = {}
    for m in map(SKIPPED.match, log.splitlines()):
        if m:
            skipped[m["reason"]] = skipped.get(m["reason"], 0) + int(m["count"])
    return (summaries[-1] if summaries else "no pytest summary"), dict(sorted(skipped.items(), key=lambda item: -item[1]))


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def cells_of(jax_releases: list[str], mypy_releases: list[str], every_pair: bool) -> list[tuple[str, str, list[str]]]:
    """The cells, each with its tests: every JAX release but the suite's with the newest mypy
    (``JAX_TESTS``), and each older mypy with the suite's JAX (``MYPY_TESTS``): what a mypy
    release changes is the plugin interface, the same for every JAX, while a JAX release changes
    the stubs and the runtime. The suite's JAX with the newest mypy is the suite's own run, left
    out. ``every_pair``: every pair but that one, each with both lists. The older mypy's cells
    start first: they load their cache more slowly, so the workers finish together."""
    newest_mypy = max(mypy_releases, key=version)
    cells = []
    for mypy in sorted(mypy_releases, key=version):
        for jax in jax_releases:
            if (jax, mypy) == (SUITE_JAX, newest_mypy):
                continue
            if every_pair:
                cells.append((jax, mypy, sorted({*JAX_TESTS, *MYPY_TESTS})))
            elif mypy == newest_mypy:
                cells.append((jax, mypy, JAX_TESTS))
            elif jax == SUITE_JAX:
                cells.append((jax, mypy, MYPY_TESTS))
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jax", nargs="+", default=JAX_RELEASES)
    parser.add_argument("--mypy", nargs="+", default=MYPY_RELEASES)
    parser.add_argument("--every-pair", action="store_true", help="every JAX release with every mypy release")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="cells run at once (default: one per core; each cell runs mypy on one core)"
    )
    parser.add_argument("--keep", action="store_true", help="keep each cell's copy and environment under .matrix/ for a re-run")
    args = parser.parse_args(argv)
    cells = cells_of(args.jax, args.mypy, args.every_pair)
    failed = []
    total = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for (jax, mypy, _), (ok, seconds, log) in zip(
            cells, pool.map(lambda cell: run_cell(cell[0], cell[1], cell[2], keep=args.keep), cells)
        ):
            summary, skipped = outcome_of(log.read_text())
            print(f"matrix: jax {jax:<7} mypy {mypy:<6} {'passed' if ok else 'FAILED'} in {seconds:5.0f} s: {summary}", flush=True)
            for reason, count in skipped.items():
                print(f"    skipped {count:3d}: {reason}", flush=True)
            if not ok:
                failed.append(log)
                lines = [line.strip()[:300] for line in log.read_text().splitlines() if line.strip()]
                print("\n".join("    " + line for line in lines[-40:]), flush=True)
    print(f"matrix: {len(cells)} cells in {time.monotonic() - total:.0f} s, {args.jobs} at a time")
    print(f"matrix: {len(cells) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
