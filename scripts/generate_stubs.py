#!/usr/bin/env python3
"""Generate ``jax_stubs/`` from one JAX release's own ``.pyi`` files, refined in one line.

    python scripts/generate_stubs.py --jax 0.10.2

Fetches that release's wheel with pip (nothing is installed), copies every ``.pyi`` file it
ships (pyright needs all of them in a partial stub package), types ``stream`` on
``Array.to_device`` as ``None = None`` on that one line (which says so in a comment), writes
``py.typed`` (``partial``) and ``JAX_VERSION``, and points the package at that release: its
version (``<jax>.<revision>``) and its ``requires-python``, copied from the JAX release's own
metadata. Exits with a message, never a traceback, when pip fails or the anchor line is not
where it is expected.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STUBS = REPO / "jax_stubs"
PYPROJECT = REPO / "pyproject.toml"
PLUGIN_INIT = REPO / "mypy_plugin" / "__init__.py"
HOOKS = REPO / ".pre-commit-hooks.yaml"
"""pre-commit's hook, which installs the JAX release the stubs describe (not in the package)."""

REFINED_FILE = "_src/basearray.pyi"
REFINED_STREAM = "stream: None = None"
REFINEMENT_COMMENT = "  # jax-stubs changed this line: JAX raises unless stream is None"
# ``stream: <JAX's annotation>`` with or without ``= ...``, inside ``def to_device(...)``.
TO_DEVICE_SIGNATURE = re.compile(r"def to_device\(.*?\)\s*->", re.DOTALL)
STREAM_PARAMETER = re.compile(r"stream:[^,)=\n]+?(?:\s*=\s*\.\.\.)?(?=\s*[,)])")


class GenerationError(Exception):
    """A problem the user can act on; printed as one line."""


NEWER_PYTHONS = ("3.12", "3.13", "3.14")
"""Pythons pip is told it fetches for when the running one is older than a release needs
(JAX 0.11.0 and later need 3.12): nothing is installed, so any will do."""


def download_wheel(version: str, into: Path) -> Path:
    """JAX's wheel for ``version``, fetched by pip without installing anything, for this Python
    or, where the release needs a newer one, for the first newer one that it accepts."""
    detail = "no wheel found"
    for python in (None, *NEWER_PYTHONS):
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
        command += ["--python-version", python] if python else []
        result = subprocess.run([*command, f"jax=={version}", "--dest", str(into)], capture_output=True, text=True)
        wheels = sorted(into.glob(f"jax-{version}-*.whl"))
        if result.returncode == 0 and wheels:
            return wheels[0]
        detail = (result.stderr.strip().splitlines() or [detail])[-1]
    raise GenerationError(f"pip could not fetch the jax {version} wheel: {detail}")


def jax_stub_files(wheel: Path) -> dict[str, str]:
    """Every ``.pyi`` file under ``jax/`` in the wheel, keyed by its path below ``jax/``."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name[len("jax/") :]: archive.read(name).decode("utf-8")
            for name in archive.namelist()
            if name.startswith("jax/") and name.endswith(".pyi")
        }


def jax_requires_python(wheel: Path) -> str:
    """The ``Requires-Python`` of the JAX release in ``wheel``: the stubs' own floor."""
    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        headers = HeaderParser().parsestr(archive.read(metadata).decode("utf-8"))
    requires = headers.get("Requires-Python")
    if not requires:
        raise GenerationError(f"{wheel.name} names no Requires-Python")
    return requires.strip()


def refined_line(line: str) -> str:
    """One line of JAX's ``to_device`` signature with its ``stream`` annotation refined."""
    return STREAM_PARAMETER.sub(REFINED_STREAM, line, count=1) + REFINEMENT_COMMENT


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
        raise GenerationError(f"anchor not found: 'def to_device' in {REFINED_FILE} has no 'stream:' parameter")
    lines = text.splitlines(keepends=True)
    index = text.count("\n", 0, stream.start())
    ending = lines[index][len(lines[index].rstrip("\r\n")) :]
    lines[index] = refined_line(lines[index].rstrip("\r\n")) + ending
    return "".join(lines)


def unexpected_differences(own: dict[str, str], ours: dict[str, str]) -> list[str]:
    """What differs between JAX's own ``.pyi`` files and the refined copies, beyond the one
    refined line: an empty list when the stubs are right."""
    if set(ours) != set(own):
        return [f"files differ: {sorted(set(ours) ^ set(own))}"]
    changed = [
        (name, line)
        for name in sorted(own)
        for line in difflib.unified_diff(own[name].splitlines(), ours[name].splitlines(), n=0, lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    if [name for name, _ in changed] != [REFINED_FILE] * 2:
        return [f"expected one changed line in {REFINED_FILE}, got {changed}"]
    (_, removed), (_, added) = changed
    if not removed.startswith("-") or added != "+" + refined_line(removed[1:]) or REFINED_STREAM in removed:
        return [f"the changed line is not the refinement: {removed!r} -> {added!r}"]
    return []


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


def retarget_package(
    version: str, requires_python: str, pyproject: Path = PYPROJECT, init: Path = PLUGIN_INIT, hooks: Path = HOOKS
) -> None:
    """Make the distribution's version (``<jax>.<revision>``, the revision kept) and its
    ``requires-python`` follow the stubs, and the JAX that pre-commit's hook installs, where
    the checkout has the hook (a build's copy of the sources does not)."""
    current = re.search(r'(?m)^__version__ = "([^"]*)"', init.read_text(encoding="utf-8"))
    revision = current.group(1).rsplit(".", 1)[1] if current else "0"
    edits = [
        (init, r'(?m)^__version__ = "[^"]*"', f'__version__ = "{version}.{revision}"'),
        (pyproject, r'(?m)^requires-python = "[^"]*"', f'requires-python = "{requires_python}"'),
    ]
    if hooks.exists():
        edits.append((hooks, r'"jax==[^"]*"', f'"jax=={version}"'))
    for path, pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, path.read_text(encoding="utf-8"))
        if count != 1:
            raise GenerationError(f"{path} has no single line matching {pattern!r} to update")
        path.write_text(text, encoding="utf-8")


def generate(version: str, out: Path, wheel: Path | None = None, package: Path | None = None) -> int:
    """Write the stubs for ``version`` into ``out``; with ``package`` (a checkout's root), point
    that package at the release too. Returns how many stub files were written."""
    with tempfile.TemporaryDirectory() as tmp:
        wheel = wheel or download_wheel(version, Path(tmp))
        files = jax_stub_files(wheel)
        if REFINED_FILE not in files:
            raise GenerationError(f"jax {version} ships no {REFINED_FILE}: nothing to refine")
        write_stubs(files, version, out)
        if package is not None:
            retarget_package(
                version,
                jax_requires_python(wheel),
                package / "pyproject.toml",
                package / "mypy_plugin" / "__init__.py",
                package / HOOKS.name,
            )
    return len(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jax", required=True, metavar="VERSION", help="JAX release, e.g. 0.10.2")
    parser.add_argument("--out", type=Path, default=STUBS, help="stub folder (default: jax_stubs/)")
    parser.add_argument("--wheel", type=Path, help="use this JAX wheel instead of fetching one with pip")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        count = generate(args.jax, out, args.wheel, package=REPO if out == STUBS else None)
    except GenerationError as error:
        print(f"generate_stubs: error: {error}", file=sys.stderr)
        return 2
    print(f"generate_stubs: {count} stub files for jax {args.jax} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
