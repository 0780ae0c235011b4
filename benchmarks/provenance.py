"""What made a benchmark result: the revision measured, the command, the machine.

Every script of ``benchmarks/`` writes its result through ``stamped``, so each file of
``results/`` says which commit it measured (``-dirty`` where the package's code differed from
it), how to make it again and where it ran; ``scripts/figures.py`` reads the revision to tell a
figure older than a change to what it measures.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MEASURED_CODE = ("mypy_plugin", "jax_stubs")
"""The package's code: a change there outside a commit makes a revision ``-dirty``."""


def git(*args: str) -> str | None:
    """A git command's output in this checkout; None where git or the history cannot answer
    (a copy without ``.git``, a shallow clone that lacks a revision)."""
    try:
        found = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return None
    return found.stdout.strip() if found.returncode == 0 else None


def revision(given: str | None = None) -> str:
    """The commit measured: ``given`` (a copy of the tree without ``.git``), else HEAD, with
    ``-dirty`` where the package's code differs from it; ``unknown`` without a history."""
    if given:
        return given
    head = git("rev-parse", "HEAD")
    if not head:
        return "unknown"
    return head + ("-dirty" if git("status", "--porcelain", "--", *MEASURED_CODE) else "")


def command(argv: list[str] | None = None) -> str:
    """The command that made the result, as run from the repository's root, with paths outside
    the checkout (a temporary folder, a mirror) written as DIR."""
    args = sys.argv if argv is None else argv
    script = os.path.relpath(os.path.abspath(args[0]), ROOT)
    shown = [word if not word.startswith("/") or word.startswith(str(ROOT)) else "DIR" for word in args[1:]]
    return " ".join(["python", script, *(os.path.relpath(word, ROOT) if word.startswith(str(ROOT)) else word for word in shown)])


def versions(names: list[str]) -> dict[str, str]:
    """The installed release of each distribution of ``names`` that is installed."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def machine() -> dict[str, Any]:
    """Where the result was measured: the processor, its cores, Python."""
    cpu = ""
    try:
        cpu = next(
            (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")), ""
        )
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version()}


def stamped(result: dict[str, Any], *, given_revision: str | None = None) -> dict[str, Any]:
    """``result`` with the revision, the command and the machine first (a machine the result
    records itself is kept, with what ``machine`` knows added)."""
    own_machine = result.get("machine")
    found = {**machine(), **own_machine} if isinstance(own_machine, dict) else machine()
    rest = {key: value for key, value in result.items() if key not in ("revision", "command", "machine")}
    return {"revision": revision(given_revision), "command": command(), "machine": found, **rest}
