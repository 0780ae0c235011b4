#!/usr/bin/env python3
"""Build the package for every JAX release from 0.4.31 on: one wheel and one sdist each, in dist/.

    python -m pip install build          # once: PyPA's builder
    python scripts/build_wheels.py [--from 0.4.31] [--releases 0.7.2 0.10.2 ...] [--dist dist]

For each release that the index serves (``releases.py``; ``--releases`` for some), from one
checkout, whatever Python each needs: fetches JAX's wheel (nothing is
installed), generates the refined stubs into a copy of the package sources, checks that they
are JAX's own ``.pyi`` files with only the one line changed, sets the version
(``<jax>.<revision>``, the revision of ``mypy_plugin/__init__.py``) and ``Requires-Python``
(that JAX release's own), builds the sdist and, from it, the wheel, and checks both artifacts
(version, no dependency, LICENSE and NOTICE, the stubs for that release, the table of JAX's
contract for that release: a release without one is probed first, ``probe_api.py``, in an
environment of its own, and the table is written into the checkout). Prints one line per
release and exits non-zero if any fails. Two releases whose package versions compare equal
(JAX 0.9.0 at revision 1 and 0.9.0.1 at revision 0) are refused before anything is built.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate_stubs  # noqa: E402
import matrix  # noqa: E402
import probe_api  # noqa: E402
import releases  # noqa: E402

REPO = generate_stubs.REPO
OLDEST = releases.OLDEST
SOURCES = ["mypy_plugin", "docs", "pyproject.toml", "README.md", "LICENSE", "NOTICE"]
"""What the package is built from, besides the generated stubs."""


version_key = releases.version_key


def revision() -> str:
    text = (REPO / "mypy_plugin" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'(?m)^__version__ = "[^"]*\.(\d+)"', text)
    if match is None:
        raise SystemExit("build_wheels: error: mypy_plugin/__init__.py has no __version__ <jax>.<revision>")
    return match.group(1)


def served_releases(oldest: str) -> list[str]:
    """JAX releases the index serves, from ``oldest`` on, oldest first, whatever Python they
    need (``releases.py``: ``pip index versions`` would hide those this Python cannot install)."""
    return list(releases.served(oldest))


def colliding_versions(releases: list[str], rev: str) -> list[tuple[str, str]]:
    """Pairs of releases whose package versions compare equal at revision ``rev``."""
    seen: dict[tuple[int, ...], str] = {}
    pairs = []
    for release in releases:
        key = version_key(f"{release}.{rev}")
        if key in seen:
            pairs.append((seen[key], release))
        seen.setdefault(key, release)
    return pairs


def artifact_problems(wheel: Path, sdist: Path, release: str, version: str, requires_python: str) -> list[str]:
    """What is wrong with the built wheel and sdist of one release; empty when they are right."""
    problems = []
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [metadata_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = HeaderParser().parsestr(archive.read(metadata_name).decode("utf-8"))
        target = archive.read("jax-stubs/JAX_VERSION").decode("utf-8").strip() if "jax-stubs/JAX_VERSION" in names else None
    if metadata["Version"] != version:
        problems.append(f"wheel version {metadata['Version']}, expected {version}")
    if metadata["Requires-Python"] != requires_python:
        problems.append(f"wheel Requires-Python {metadata['Requires-Python']}, expected {requires_python} (JAX's)")
    unconditional = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    if unconditional:
        problems.append(f"wheel depends on {unconditional}: installing it could move the user's JAX")
    if target != release:
        problems.append(f"wheel's jax-stubs/JAX_VERSION is {target}, expected {release}")
    if f"mypy_plugin/contract/jax-{release}.json" not in names:
        problems.append(f"wheel lacks the table of JAX {release}'s contract (mypy_plugin/contract/)")
    if not any(n.startswith("mypy_plugin/docs/rules/") and n.endswith(".md") for n in names):
        problems.append("wheel lacks the codes' pages (mypy_plugin/docs/rules/)")
    for required in ("LICENSE", "NOTICE"):
        if not any(n.endswith(f".dist-info/licenses/{required}") for n in names):
            problems.append(f"wheel lacks {required}")
    with tarfile.open(sdist) as archive:
        members = {Path(m.name).relative_to(Path(m.name).parts[0]).as_posix() for m in archive.getmembers() if m.isfile()}
    for required in ("LICENSE", "NOTICE", "pyproject.toml", "jax_stubs/JAX_VERSION"):
        if required not in members:
            problems.append(f"sdist lacks {required}")
    extra = sorted(m for m in members if m.split("/")[0] not in {*SOURCES, "jax_stubs", "PKG-INFO"})
    if extra:
        problems.append(f"sdist holds more than a rebuild needs: {extra}")
    return problems


def build_release(release: str, rev: str, dist: Path, scratch: Path, reprobe: bool = False) -> str:
    """Build and check one release's artifacts into ``dist``; '' when all is right, else what
    is wrong. A release without a table of JAX's contract (``mypy_plugin/contract/``) is probed
    first (``reprobe``: every release), and the table written into the checkout, to commit."""
    jax_wheel = generate_stubs.download_wheel(release, scratch)
    if not probe_api.table_path(release).exists() or reprobe:
        try:  # JAX's contract for this release, measured once and kept in the checkout
            probe_api.probe_release(release, matrix.python_for(release), scratch)
        except RuntimeError as error:
            return str(error)
    source = scratch / "src"
    for name in SOURCES:
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(REPO / name, source / name)
    shutil.rmtree(source / "mypy_plugin" / "__pycache__", ignore_errors=True)
    generate_stubs.generate(release, source / "jax_stubs", jax_wheel, package=source)
    ours = {str(p.relative_to(source / "jax_stubs")): p.read_text(encoding="utf-8") for p in (source / "jax_stubs").rglob("*.pyi")}
    problems = generate_stubs.unexpected_differences(generate_stubs.jax_stub_files(jax_wheel), ours)
    if problems:
        return "; ".join(problems)
    out = scratch / "out"
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], capture_output=True, text=True)
    if built.returncode != 0:
        return f"build failed: {(built.stderr.strip().splitlines() or ['?'])[-1]}"
    [wheel], [sdist] = list(out.glob("*.whl")), list(out.glob("*.tar.gz"))
    problems = artifact_problems(wheel, sdist, release, f"{release}.{rev}", generate_stubs.jax_requires_python(jax_wheel))
    if problems:
        return "; ".join(problems)
    dist.mkdir(parents=True, exist_ok=True)
    for artifact in (wheel, sdist):
        shutil.copy2(artifact, dist / artifact.name)
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--from", dest="oldest", default=OLDEST, help=f"the oldest release (default {OLDEST})")
    parser.add_argument("--releases", nargs="*", help="build these releases only")
    parser.add_argument("--dist", type=Path, default=REPO / "dist", help="where the artifacts go (default dist/)")
    parser.add_argument("--reprobe", action="store_true", help="measure JAX's contract again for releases that have a table")
    args = parser.parse_args(argv)
    try:
        import build  # noqa: F401
    except ImportError:
        print(f"build_wheels: error: PyPA's builder is missing: {sys.executable} -m pip install build", file=sys.stderr)
        return 2
    rev = revision()
    releases = args.releases or served_releases(args.oldest)
    collisions = colliding_versions(releases, rev)
    if collisions:
        print(f"build_wheels: error: at revision {rev} these releases get equal versions: {collisions}", file=sys.stderr)
        return 2
    failures = 0
    for release in releases:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                problem = build_release(release, rev, args.dist, Path(tmp), args.reprobe)
            except generate_stubs.GenerationError as error:
                problem = str(error)
        failures += bool(problem)
        print(f"jax {release:<10} {'FAIL: ' + problem if problem else f'ok: jax_stubs-{release}.{rev}'}", flush=True)
    print(f"{len(releases) - failures} of {len(releases)} releases built into {args.dist}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
