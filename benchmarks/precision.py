#!/usr/bin/env python3
"""Precision on research code: every report ``jax-stubs lint`` prints over research repositories, judged.

    python benchmarks/precision.py [--mirror DIR] [--work DIR] [--only NAME ...] [--json results/precision.json]

Run it with the Python of an environment where the jax-stubs wheel is installed with the
``lint`` extra and the repositories' dependencies (``precision/requirements.txt``). The corpus
(``precision/corpus.json``) names each repository and the commit it is read at; each is
exported at that commit (from ``--mirror``, a folder of bare snapshots named ``owner+name``,
else cloned from GitHub into ``~/.cache/jax-stubs-precision``) into a folder of its own name,
and ``jax-stubs lint --output json`` runs in it. Each report must have a verdict in
``precision/verdicts.json`` (by repository, file, line and code):

- ``true``: the line raises as the report says. The verdict holds how that was shown: a command
  (``proof``, Python run in this environment) that must raise the exception the verdict names,
  which the report's message must name too, and why the reported line runs as written (``why``);
  for an update that is discarded, the proof must run (``raises``: ``runs``) and assert that
  nothing changed, and the message must say so (``message_names``: ``unchanged``);
- ``false``: the line runs; the benchmark fails while one is reported.

It prints the counts and exits 1 on a false or an unjudged report, a proof that does not raise,
a message that names another exception, or a repository lint cannot check (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import provenance

HERE = Path(__file__).resolve().parent
DATA = HERE / "precision"
BIN = Path(sys.executable).parent
CLONES = Path.home() / ".cache" / "jax-stubs-precision"
EXPORTED = (".py", ".toml", ".cfg", ".ini")
"""What of a repository lint reads: its sources and the configuration it may hold."""


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def snapshot(entry: dict[str, str], mirror: Path | None) -> Path:
    """The git directory holding the repository's commit."""
    owner_name = entry["repo"]
    if mirror is not None:
        found = mirror / owner_name.replace("/", "+") / "repo"
        if found.exists():
            return found
    clone = CLONES / owner_name.replace("/", "+")
    if not clone.exists():
        CLONES.mkdir(parents=True, exist_ok=True)
        git("clone", "--bare", "--filter=blob:limit=4m", f"https://github.com/{owner_name}", str(clone))
    return clone


def export(git_dir: Path, commit: str, into: Path) -> int:
    """The sources of ``commit`` written under ``into``; how many files."""
    listing = git("--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit)
    count = 0
    for item in listing.split("\0"):
        if not item:
            continue
        meta, path = item.split("\t", 1)
        _, kind, blob = meta.split()
        if kind != "blob" or not path.endswith(EXPORTED):
            continue
        content = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "blob", blob], capture_output=True, check=False)
        if content.returncode != 0:
            continue  # a blob the snapshot lacks (a large file): nothing lint reads
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.stdout)
        count += 1
    return count


def lint(folder: Path, cache: Path) -> tuple[int, list[dict[str, Any]], str]:
    """``jax-stubs lint --output json`` in ``folder``: its exit status, its reports, its stderr."""
    env = {**os.environ, "JAX_STUBS_CACHE_DIR": str(cache), "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([str(BIN / "jax-stubs"), "lint", "--output", "json"], cwd=folder, capture_output=True, text=True, env=env)
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, [report for report in reports if report.get("severity", "error") == "error"], done.stderr


def raised(proof: str, seen: dict[str, str]) -> str:
    """What running ``proof`` raises here (``runs`` where nothing), each proof run once."""
    if proof not in seen:
        runner = f"exec(compile({proof!r}, 'proof', 'exec'))"
        done = subprocess.run(
            [
                sys.executable,
                "-W",
                "ignore",
                "-c",
                f"try:\n    {runner}\nexcept BaseException as e:\n    print(type(e).__name__)\nelse:\n    print('runs')",
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "JAX_PLATFORMS": "cpu"},
            timeout=600,
        )
        seen[proof] = (done.stdout.strip().splitlines() or ["no outcome: " + done.stderr[-200:]])[-1]
    return seen[proof]


def judge(
    name: str, reports: list[dict[str, Any]], verdicts: dict[tuple[str, str, int, str], dict[str, Any]], seen: dict[str, str]
) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    problems: list[str] = []
    by_code: Counter[str] = Counter()
    for report in reports:
        key = (name, str(report["file"]), int(report["line"]), str(report["code"]))
        by_code[key[3]] += 1
        verdict = verdicts.get(key)
        where = f"{name}/{report['file']}:{report['line']} [{report['code']}] {report['message']}"
        if verdict is None:
            counts["unjudged"] += 1
            problems.append(f"unjudged: {where}")
            continue
        counts[verdict["verdict"]] += 1
        if verdict["verdict"] == "false":
            problems.append(f"false: {where} ({verdict.get('why', '')})")
            continue
        exception = verdict["raises"]
        if verdict.get("message_names", exception) not in str(report["message"]):
            problems.append(f"says another outcome than {exception}: {where}")
        outcome = raised(verdict["proof"], seen)
        if outcome != exception:
            problems.append(f"proof gave {outcome}, not {exception}: {where}")
        else:
            counts["proven"] += 1
    return {"reports": len(reports), "by_code": dict(sorted(by_code.items())), **counts, "problems": problems}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, help="a folder of bare snapshots, owner+name/repo, read before GitHub")
    parser.add_argument("--work", type=Path, help="where the repositories are exported (default: a temporary folder)")
    parser.add_argument("--only", action="append", help="check only this repository (repeatable)")
    parser.add_argument("--json", type=Path, help="write the result here")
    args = parser.parse_args()
    corpus = load("corpus.json")
    verdicts = {(v["repo"], v["file"], int(v["line"]), v["code"]): v for v in load("verdicts.json")}
    work = args.work or Path(tempfile.mkdtemp(prefix="jax-stubs-precision-"))
    cache = Path(tempfile.mkdtemp(prefix="jax-stubs-precision-cache-"))
    seen: dict[str, str] = {}
    results = []
    failed = False
    for entry in corpus["repositories"]:
        name = entry["name"]
        if args.only and name not in args.only:
            continue
        folder = work / name
        shutil.rmtree(folder, ignore_errors=True)
        files = export(snapshot(entry, args.mirror), entry["commit"], folder)
        if entry.get("exclude"):  # what lint's message says to add for a file Python cannot parse
            exclude = ", ".join(json.dumps(pattern) for pattern in entry["exclude"])
            (folder / "pyproject.toml").open("a", encoding="utf-8").write(f"\n[tool.jax-stubs.lint]\nexclude = [{exclude}]\n")
        status, reports, stderr = lint(folder, cache)
        judged = judge(name, reports, verdicts, seen)
        if status not in (0, 1):
            judged["problems"].append(f"lint exited {status}: {stderr.strip()[-300:]}")
        failed = failed or bool(judged["problems"])
        found = [{key: report[key] for key in ("file", "line", "column", "code", "message")} for report in reports]
        results.append(
            {"name": name, "repo": entry["repo"], "commit": entry["commit"], "files": files, "exit": status, **judged, "found": found}
        )
        true, false, unjudged = (judged.get(key, 0) for key in ("true", "false", "unjudged"))
        print(f"{name:28} {judged['reports']:4} reports, {true:4} true, {false} false, {unjudged} unjudged")
        for problem in judged["problems"]:
            print(f"  {problem}")
    totals: Counter[str] = Counter()
    for result in results:
        for key in ("reports", "true", "false", "unjudged", "proven"):
            totals[key] += result.get(key, 0)
    print(
        f"precision: {len(results)} repositories, {totals['reports']} reports: {totals['true']} true ({totals['proven']} proven), "
        f"{totals['false']} false, {totals['unjudged']} unjudged"
    )
    if args.json:
        result = provenance.stamped(
            {"environment": provenance.versions(corpus["environment"]), "totals": dict(totals), "repositories": results}
        )
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(cache, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
