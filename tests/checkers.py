"""Run the stub-reading type checkers (pyright, basedpyright, pyrefly, ty) by their command lines.

Each run checks a whole folder in one process and returns its diagnostics in one shape, so
that a run with the stubs installed can be compared with a run without them.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mypy_runs import BIN

PYREFLY_CONFIG = 'preset = "default"\n'
"""Written as ``pyrefly.toml`` beside the samples: without a config file pyrefly checks no
argument types (its ``basic`` preset)."""


@dataclass(frozen=True, order=True)
class Diagnostic:
    file: str
    line: int
    severity: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.severity}[{self.rule}] {self.message}"


def parse_pyright(stdout: str, root: Path) -> list[Diagnostic]:
    """pyright and basedpyright ``--outputjson``; lines there count from 0."""
    report = json.loads(stdout)
    return [
        Diagnostic(
            str(Path(d["file"]).relative_to(root)),
            d["range"]["start"]["line"] + 1,
            d["severity"],
            d.get("rule", ""),
            d["message"],
        )
        for d in report["generalDiagnostics"]
    ]


def parse_pyrefly(stdout: str, root: Path) -> list[Diagnostic]:
    """pyrefly ``--output-format json``."""
    report = json.loads(stdout)
    return [
        Diagnostic(
            str((root / d["path"]).resolve().relative_to(root)),
            d["line"],
            d["severity"],
            d["name"],
            d["description"],
        )
        for d in report["errors"]
    ]


TY_LINE = re.compile(r"^(?P<file>[^:\s]+\.py):(?P<line>\d+):\d+: (?P<severity>\w+)\[(?P<rule>[\w-]+)\] (?P<message>.*)$")


def parse_ty(stdout: str, root: Path) -> list[Diagnostic]:
    """ty ``--output-format concise``: one ``file:line:col: severity[rule] message`` a line."""
    return [
        Diagnostic(m["file"], int(m["line"]), m["severity"], m["rule"], m["message"]) for m in map(TY_LINE.match, stdout.splitlines()) if m
    ]


@dataclass(frozen=True)
class Checker:
    name: str
    command: Callable[[Path], list[str]]
    parse: Callable[[str, Path], list[Diagnostic]]
    error: str
    """The severity the checker gives a misuse."""


CHECKERS = {
    "pyright": Checker(
        "pyright",
        lambda python: [str(BIN / "pyright"), "--outputjson", "--pythonpath", str(python), "."],
        parse_pyright,
        "error",
    ),
    "basedpyright": Checker(
        "basedpyright",
        lambda python: [str(BIN / "basedpyright"), "--outputjson", "--pythonpath", str(python), "."],
        parse_pyright,
        "error",
    ),
    "pyrefly": Checker(
        "pyrefly",
        lambda python: [
            str(BIN / "pyrefly"),
            "check",
            "--python-interpreter-path",
            str(python),
            "--output-format",
            "json",
        ],
        parse_pyrefly,
        "error",
    ),
    "ty": Checker(
        "ty",
        lambda python: [
            str(BIN / "ty"),
            "check",
            "--python",
            str(python),
            "--output-format",
            "concise",
            "--color",
            "never",
            ".",
        ],
        parse_ty,
        "error",
    ),
}


def run(checker: Checker, python: Path, root: Path) -> list[Diagnostic]:
    result = subprocess.run(checker.command(python), cwd=root, capture_output=True, text=True, timeout=900)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"{checker.name} failed ({result.returncode}): {result.stderr[-2000:]}")
    return sorted(checker.parse(result.stdout, root))
