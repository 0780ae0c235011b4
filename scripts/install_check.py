#!/usr/bin/env python3
"""Install the package as users do, next to an older JAX, with pip and with uv.

    python scripts/install_check.py [--old 0.7.2] [--pip 26.3 ...]

Run with the Python of the test environment (it needs PyPA's ``build`` and ``uv``). Builds and
checks the wheels of three JAX releases (the oldest supported, ``--old`` and the checkout's
own) into a local find-links folder, then, in fresh virtual environments holding the older JAX
(with the pip venv bundles, then with each ``--pip`` release; uv once):

1. ``pip install jax-stubs`` and ``uv pip install jax-stubs``, unpinned, pick the newer stubs
   and leave JAX, jaxlib and everything else as they were;
2. mypy with the plugin reports the mismatch once, on a module whose first call into JAX is a
   decorator, and the command its note prints, run as printed, installs the matching stubs,
   after which mypy is quiet (with pip, and in an environment uv made, which has no pip);
3. ``jax-stubs check`` says the same, and exits 1, then 0;
4. installing the wheel into an empty environment installs nothing else (no mypy).

Prints one line per step and exits non-zero at the first failure.
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
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_wheels  # noqa: E402

REPO = build_wheels.REPO
NEW = (REPO / "jax_stubs" / "JAX_VERSION").read_text().strip()
NEWEST = f"{NEW}.{build_wheels.revision()}"
"""The package version of the checkout's own release: what an unpinned install picks."""
BIN = Path(sys.executable).parent
DECORATOR_FIRST = """\
import jax
import jax.numpy as jnp


@jax.jit
def f(x: jax.Array) -> jax.Array:
    return x


y = jnp.zeros(3)
"""
FIX = re.compile(r"^\S+:\d+: note: Install the stubs for jax (?P<jax>\S+): (?P<command>.+)$", re.MULTILINE)


class Failure(Exception):
    pass


def run(command: list[str] | str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=1800, **kwargs)  # type: ignore[call-overload, no-any-return]


def expect(ok: bool, what: str, detail: object = "") -> None:
    if not ok:
        raise Failure(f"{what}: {detail}"[:4000])
    print(f"install_check: ok: {what}", flush=True)


def installed(python: Path) -> dict[str, str]:
    """Every distribution in ``python``'s environment, by name, with its version."""
    listed = run([str(BIN / "uv"), "pip", "list", "--python", str(python), "--format", "json"])
    if listed.returncode != 0:
        raise Failure(f"cannot list the packages of {python}: {listed.stderr}")
    return {entry["name"].lower(): entry["version"] for entry in json.loads(listed.stdout)}


def besides_stubs(packages: dict[str, str]) -> dict[str, str]:
    """Every distribution but jax-stubs: what installing the stubs must leave as it was."""
    return {name: version for name, version in packages.items() if name != "jax-stubs"}


def mypy_check(python: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "mypy.ini").write_text(f"[mypy]\nplugins = mypy_plugin\ncache_dir = {folder / '.mypy_cache'}\n")
    (folder / "train.py").write_text(DECORATOR_FIRST)
    return run([str(python), "-m", "mypy", "train.py"], cwd=folder)


def check_mismatch_and_fix(python: Path, folder: Path, old: str, links: Path, env: dict[str, str]) -> None:
    """Steps 2 and 3 in one environment that holds jax ``old`` and the stubs for ``NEW``."""
    result = mypy_check(python, folder)
    errors = [line for line in result.stdout.splitlines() if "[jax-stubs-mismatch]" in line]
    expect(
        result.returncode == 1 and len(errors) == 1 and errors[0].startswith("train.py:1: error: "),
        f"mypy reports the mismatch once, at the import, ahead of a decorator ({python})",
        result.stdout + result.stderr,
    )
    fix = FIX.search(result.stdout)
    expect(fix is not None and fix["jax"] == old, "its note names the stubs for the installed JAX", result.stdout)
    assert fix is not None
    check = run([str(python.parent / "jax-stubs"), "check"], cwd=folder)
    expect(
        check.returncode == 1 and f"note: Install the stubs for jax {old}: {fix['command']}" in check.stdout,
        "jax-stubs check reports it with the same command",
        check.stdout + check.stderr,
    )
    before = installed(python)
    fixed = run(fix["command"], shell=True, env={**env, "PIP_FIND_LINKS": str(links), "UV_FIND_LINKS": str(links)})
    after = installed(python)
    expect(
        fixed.returncode == 0 and after.get("jax-stubs") == f"{old}.{build_wheels.revision()}",
        f"the printed command, run as printed, installs the stubs for {old}: {fix['command']}",
        fixed.stderr + str(after),
    )
    expect(besides_stubs(after) == besides_stubs(before), "and changes nothing else")
    again = mypy_check(python, folder)
    expect(again.returncode == 0 and "jax-stubs" not in again.stdout + again.stderr, "mypy is then quiet", again.stdout + again.stderr)
    check = run([str(python.parent / "jax-stubs"), "check"], cwd=folder)
    expect(check.returncode == 0, "and so is jax-stubs check", check.stdout)


def with_pip(work: Path, links: Path, env: dict[str, str], old: str, mypy_version: str, pip: str | None) -> Path:
    """Steps 1 to 3 with pip (``pip``'s release, or the one venv bundles) in a fresh
    environment holding jax ``old``; returns that environment's Python."""
    folder = work / f"pip-{pip or 'bundled'}"
    venv.create(folder / "env", with_pip=True)
    python = folder / "env" / "bin" / "python"
    setup = run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            *([f"pip=={pip}"] if pip else []),
            f"jax=={old}",
            f"jaxlib=={old}",
            f"mypy=={mypy_version}",
        ],
        env=env,
    )
    expect(
        setup.returncode == 0, f"an environment with pip {installed(python).get('pip')}, jax {old} and mypy {mypy_version}", setup.stderr
    )
    before = installed(python)
    result = run([str(python), "-m", "pip", "install", "--find-links", str(links), "jax-stubs"], env=env)
    after = installed(python)
    expect(
        result.returncode == 0 and after.get("jax-stubs") == NEWEST,
        "pip install jax-stubs picks the newest stubs",
        result.stderr + str(after.get("jax-stubs")),
    )
    expect(
        besides_stubs(after) == besides_stubs(before),
        f"and leaves jax {before.get('jax')}, jaxlib {before.get('jaxlib')} and the rest as they were",
        {k: (before.get(k), v) for k, v in after.items() if before.get(k) != v},
    )
    (folder / "project").mkdir()
    check_mismatch_and_fix(python, folder / "project", old, links, env)
    return python


def with_uv(work: Path, links: Path, env: dict[str, str], old: str, mypy_version: str, pip_python: Path) -> None:
    """Steps 1 to 3 with uv: unpinned in an environment pip made, then in one uv made."""
    run([str(BIN / "uv"), "pip", "uninstall", "--python", str(pip_python), "jax-stubs"], env=env)
    before = installed(pip_python)
    result = run([str(BIN / "uv"), "pip", "install", "--python", str(pip_python), "--find-links", str(links), "jax-stubs"], env=env)
    after = installed(pip_python)
    expect(result.returncode == 0 and after.get("jax-stubs") == NEWEST, "uv pip install jax-stubs picks the newest stubs", result.stderr)
    expect(besides_stubs(after) == besides_stubs(before), "and leaves JAX and the rest as they were")

    # An environment uv made has no pip: the printed command is uv's.
    uv_env = work / "uv-env"
    made = run([str(BIN / "uv"), "venv", "--python", sys.executable, str(uv_env)], env=env)
    uv_python = uv_env / "bin" / "python"
    setup = run(
        [str(BIN / "uv"), "pip", "install", "--python", str(uv_python), f"jax=={old}", f"jaxlib=={old}", f"mypy=={mypy_version}"], env=env
    )
    result = run([str(BIN / "uv"), "pip", "install", "--python", str(uv_python), "--find-links", str(links), "jax-stubs"], env=env)
    expect(
        made.returncode == setup.returncode == result.returncode == 0 and "pip" not in installed(uv_python),
        f"an environment made by uv, without pip, with jax {old} and the newest stubs",
        made.stderr + setup.stderr + result.stderr,
    )
    (work / "uv-project").mkdir()
    check_mismatch_and_fix(uv_python, work / "uv-project", old, links, env)


def wheel_alone(work: Path, links: Path, env: dict[str, str]) -> None:
    """Step 4, for a pyright-only install: the wheel alone, nothing else."""
    report = work / "report.json"
    empty = work / "empty-env"
    venv.create(empty, with_pip=True)
    dry = run(
        [
            str(empty / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-index",
            "--report",
            str(report),
            "--find-links",
            str(links),
            "jax-stubs",
        ],
        env=env,
    )
    wanted = [item["metadata"]["name"] for item in json.loads(report.read_text())["install"]] if report.exists() else []
    expect(
        dry.returncode == 0 and wanted == ["jax-stubs"],
        "installing the wheel alone installs nothing else (no mypy, no JAX)",
        dry.stderr + str(wanted),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--old", default="0.7.2", help="the older JAX release installed first")
    parser.add_argument(
        "--pip", nargs="*", default=[], metavar="VERSION", help="pip releases to check with too, besides the one venv bundles"
    )
    args = parser.parse_args(argv)
    old = args.old
    mypy_version = run([sys.executable, "-m", "mypy", "--version"]).stdout.split()[1]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        links = work / "links"
        try:
            built = build_wheels.main(["--releases", build_wheels.OLDEST, old, NEW, "--dist", str(links)])
            expect(built == 0, f"wheels and sdists for jax {build_wheels.OLDEST}, {old} and {NEW} built and checked")
            env = {k: v for k, v in os.environ.items() if k not in ("PIP_FIND_LINKS", "UV_FIND_LINKS", "PYTHONPATH")}
            env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # uv, as its users have it
            env["UV_CACHE_DIR"] = str(work / "uv-cache")  # removed with the rest, not left in the user's HOME
            python = None
            for pip in [None, *args.pip]:
                if python is not None:  # one environment at a time: CI's machines may have little disk
                    shutil.rmtree(python.parent.parent, ignore_errors=True)
                python = with_pip(work, links, env, old, mypy_version, pip)
            assert python is not None
            with_uv(work, links, env, old, mypy_version, python)
            wheel_alone(work, links, env)
        except Failure as failure:
            print(f"install_check: FAILED: {failure}", flush=True)
            return 1
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
