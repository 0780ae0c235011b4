#!/usr/bin/env python3
"""Generate the stubs for every JAX release from 0.4.31 on and check each one.

    python scripts/check_releases.py [--from 0.4.31] [--releases 0.4.31 0.7.2 ...]

For each release pip serves, fetches its wheel (nothing is installed), generates the stubs
into a temporary folder with ``generate_stubs.py`` and checks that they are JAX's own ``.pyi``
files with exactly one line changed, the ``stream`` parameter of ``Array.to_device`` now typed
``None = None``. Prints one line per release and exits non-zero if any release fails.
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate_stubs  # noqa: E402

OLDEST = "0.4.31"  # the first release with a built-in Array.to_device


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def served_releases(oldest: str) -> list[str]:
    """JAX releases pip can fetch, from ``oldest`` on, oldest first."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "jax"], capture_output=True, text=True
    )
    match = re.search(r"Available versions: (.*)", result.stdout)
    if result.returncode != 0 or match is None:
        raise SystemExit(f"check_releases: error: pip could not list jax releases: {result.stderr.strip()}")
    versions = [v.strip() for v in match.group(1).split(",")]
    return sorted((v for v in versions if version_key(v) >= version_key(oldest)), key=version_key)


def check(version: str, scratch: Path) -> str:
    """'' when the stubs for ``version`` are right, else what is wrong."""
    wheel = generate_stubs.download_wheel(version, scratch)
    own = generate_stubs.jax_stub_files(wheel)
    out = scratch / "stubs"
    if generate_stubs.main(["--jax", version, "--wheel", str(wheel), "--out", str(out)]) != 0:
        return "generation failed"
    ours = {str(p.relative_to(out)): p.read_text() for p in out.rglob("*.pyi")}
    if set(ours) != set(own):
        return f"files differ: {sorted(set(ours) ^ set(own))}"
    changed = [
        line
        for name in own
        for line in difflib.unified_diff(own[name].splitlines(), ours[name].splitlines(), n=0, lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    if len(changed) != 2 or "stream: None = None)" not in changed[1]:
        return f"expected one changed line, got {changed}"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="oldest", default=OLDEST)
    parser.add_argument("--releases", nargs="*", help="check these releases only")
    args = parser.parse_args(argv)
    releases = args.releases or served_releases(args.oldest)
    failures = 0
    for version in releases:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                problem = check(version, Path(tmp))
            except generate_stubs.GenerationError as error:
                problem = str(error)
        failures += bool(problem)
        print(f"jax {version:<10} {'FAIL: ' + problem if problem else 'ok (one line refined)'}", flush=True)
    print(f"{len(releases) - failures} of {len(releases)} releases ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
