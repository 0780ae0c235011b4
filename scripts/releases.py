#!/usr/bin/env python3
"""List the JAX releases the package index serves, whatever Python runs this, and write the
table the package carries of them (``mypy_plugin/install/releases.py``).

    python scripts/releases.py [--from 0.4.31] [--index-url URL] [--write]

``pip index versions jax`` lists only the releases the running Python can install: under
Python 3.11 it hides JAX 0.11.0 and later, which need 3.12. This reads the index's own listing
(PEP 691, the JSON form of the simple API that pip reads): every final release that has a
wheel, with the ``Requires-Python`` of its files. ``--write`` rewrites the table, which
``jax-stubs check`` and the plugin read to tell a JAX release no stubs describe yet from one
whose stubs are not installed; ``scripts/build_wheels.py`` builds every release listed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "mypy_plugin" / "install" / "releases.py"
OLDEST = "0.4.31"  # the first release with a built-in Array.to_device
INDEX = "https://pypi.org/simple"
WHEEL = re.compile(r"^jax-(?P<version>\d+(?:\.\d+)*)-py3-none-any\.whl$")


def version_key(version: str) -> tuple[int, ...]:
    """A release's numbers for ordering and for equality as PEP 440 compares them (trailing
    zeros do not count: 0.9.0.1 equals 0.9.0.1.0)."""
    parts = [int(part) for part in re.findall(r"\d+", version)]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def served(oldest: str = OLDEST, index: str = INDEX) -> dict[str, str]:
    """Every final JAX release from ``oldest`` on with a wheel on the index, not yanked, oldest
    first, with its ``Requires-Python``."""
    request = urllib.request.Request(f"{index.rstrip('/')}/jax/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            listing = json.load(answer)
    except (OSError, ValueError) as error:
        raise SystemExit(f"releases: error: cannot read the index's listing of jax at {index}: {error}") from None
    found: dict[str, str] = {}
    for file in listing.get("files", []):
        match = WHEEL.match(file.get("filename", ""))
        if match is None or file.get("yanked") or version_key(match["version"]) < version_key(oldest):
            continue
        found[match["version"]] = file.get("requires-python") or ""
    return dict(sorted(found.items(), key=lambda item: version_key(item[0])))


def table_text(releases: dict[str, str]) -> str:
    rows = "".join(f'    "{version}": "{requires}",\n' for version, requires in releases.items())
    return (
        '"""The JAX releases that stubs are made for, each with the Python it needs (its\n'
        "``Requires-Python``, which the stubs' release takes too), as the package index served them.\n\n"
        "Written by ``scripts/releases.py --write``; ``install/diagnosis.py`` reads it to tell a JAX\n"
        "release that no stubs describe yet from one whose stubs are not installed.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Final\n\n"
        f"RELEASES: Final = {{\n{rows}}}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--from", dest="oldest", default=OLDEST, help=f"the oldest release (default {OLDEST})")
    parser.add_argument("--index-url", default=INDEX, help=f"the simple API of the index (default {INDEX})")
    parser.add_argument("--write", action="store_true", help=f"rewrite {TABLE.relative_to(REPO)}")
    args = parser.parse_args(argv)
    releases = served(args.oldest, args.index_url)
    for version, requires in releases.items():
        print(f"jax {version:<10} Requires-Python {requires}")
    if args.write:
        TABLE.write_text(table_text(releases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
