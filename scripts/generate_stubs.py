#!/usr/bin/env python3
"""Generate ``jax_stubs/`` from one JAX release's own ``.pyi`` files, refined in one line.

    python scripts/generate_stubs.py --jax 0.10.2

Fetches that release's wheel with pip (nothing is installed), copies every ``.pyi`` file it
ships (pyright needs all of them in a partial stub package), types ``stream`` on
``Array.to_device`` as ``None = None``, writes ``py.typed`` (``partial``) and ``JAX_VERSION``,
and points the package (its version and its ``jax`` pin) at that release. Exits with a message, never a traceback, when
pip fails or the anchor line is not where it is expected.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STUBS = REPO / "jax_stubs"
PYPROJECT = REPO / "pyproject.toml"
PLUGIN_INIT = REPO / "mypy_plugin" / "__init__.py"

REFINED_FILE = "_src/basearray.pyi"
REFINED_STREAM = "stream: None = None"
# ``stream: <JAX's annotation>`` with or without ``= ...``, inside ``def to_device(...)``.
TO_DEVICE_SIGNATURE = re.compile(r"def to_device\(.*?\)\s*->", re.DOTALL)
STREAM_PARAMETER = re.compile(r"stream:[^,)=\n]+?(?:\s*=\s*\.\.\.)?(?=\s*[,)])")


class GenerationError(Exception):
    """A problem the user can act on; printed as one line."""


def download_wheel(version: str, into: Path) -> Path:
    """JAX's wheel for ``version``, fetched by pip without installing anything."""
    command = [
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
        "--only-binary=:all:", f"jax=={version}", "--dest", str(into),
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    wheels = sorted(into.glob(f"jax-{version}-*.whl"))
    if result.returncode != 0 or not wheels:
        detail = (result.stderr.strip().splitlines() or ["no wheel found"])[-1]
        raise GenerationError(f"pip could not fetch the jax {version} wheel: {detail}")
    return wheels[0]


def jax_stub_files(wheel: Path) -> dict[str, str]:
    """Every ``.pyi`` file under ``jax/`` in the wheel, keyed by its path below ``jax/``."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name[len("jax/"):]: archive.read(name).decode("utf-8")
            for name in archive.namelist()
            if name.startswith("jax/") and name.endswith(".pyi")
        }


def refine(text: str) -> str:
    """``text`` of ``basearray.pyi`` with ``stream`` typed ``None = None``, one line changed."""
    signature = TO_DEVICE_SIGNATURE.search(text)
    if signature is None:
        raise GenerationError(
            f"anchor not found: no 'def to_device(...)' in {REFINED_FILE}; "
            "this JAX release declares Array.to_device differently, so the refinement must be revised"
        )
    stream = STREAM_PARAMETER.search(text, signature.start(), signature.end())
    if stream is None:
        raise GenerationError(
            f"anchor not found: 'def to_device' in {REFINED_FILE} has no 'stream:' parameter"
        )
    refined = text[: stream.start()] + REFINED_STREAM + text[stream.end():]
    changed = [
        (old, new)
        for old, new in zip(text.splitlines(), refined.splitlines())
        if old != new
    ]
    if len(changed) != 1 or len(text.splitlines()) != len(refined.splitlines()):
        raise GenerationError(
            f"the refinement would change {len(changed)} lines of {REFINED_FILE}, not exactly one"
        )
    return refined


def write_stubs(files: dict[str, str], version: str, out: Path) -> None:
    """Replace ``out`` with the refined copy of ``files``."""
    if out.exists():
        shutil.rmtree(out)
    for relative, text in files.items():
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(refine(text) if relative == REFINED_FILE else text, encoding="utf-8")
    (out / "py.typed").write_text("partial\n", encoding="utf-8")
    (out / "JAX_VERSION").write_text(f"{version}\n", encoding="utf-8")


def retarget_package(version: str, pyproject: Path = PYPROJECT, init: Path = PLUGIN_INIT) -> None:
    """Make the distribution's version (``<jax>.0``) and its ``jax`` pin follow the stubs."""
    edits = [
        (init, r'(?m)^__version__ = "[^"]*"', f'__version__ = "{version}.0"'),
        (pyproject, r'"jax==[^"]*"', f'"jax=={version}"'),
    ]
    for path, pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, path.read_text(encoding="utf-8"))
        if count != 1:
            raise GenerationError(f"{path} has no single line matching {pattern!r} to update")
        path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jax", required=True, metavar="VERSION", help="JAX release, e.g. 0.10.2")
    parser.add_argument("--out", type=Path, default=STUBS, help="stub folder (default: jax_stubs/)")
    parser.add_argument(
        "--wheel", type=Path, help="use this JAX wheel instead of fetching one with pip"
    )
    args = parser.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            wheel = args.wheel or download_wheel(args.jax, Path(tmp))
            files = jax_stub_files(wheel)
            if REFINED_FILE not in files:
                raise GenerationError(f"jax {args.jax} ships no {REFINED_FILE}: nothing to refine")
            write_stubs(files, args.jax, args.out)
        if args.out.resolve() == STUBS:
            retarget_package(args.jax)
    except GenerationError as error:
        print(f"generate_stubs: error: {error}", file=sys.stderr)
        return 2
    print(f"generate_stubs: {len(files)} stub files for jax {args.jax} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
