#!/usr/bin/env python3
"""What each Flax release does with NNX state made outside a transform and changed inside it.

    python benchmarks/nnx_releases.py [--work DIR] [--json benchmarks/results/nnx_releases.json]

``jax-nnx-trace-level`` reports only under the transforms where the installed Flax raises
(``mypy_plugin/rules/flax/flax_nnx.py``: ``CHECKED_FROM``, ``EAGER_KINDS``). That table was
measured by hand; this script measures it again. For each pair of ``PAIRS`` it installs that
Flax and that JAX into a virtual environment of their own (with ``uv``, from the package
index) and runs ``PROBE`` there: a global ``nnx.Rngs`` drawn, and a global module's Variable
set, inside a function given to each transform the rule knows, each in a fresh process of its
own state. The result records, per pair and transform, whether Flax raised
``TraceContextError`` or the call ran, and the full names of ``nnx.Rngs``, ``nnx.Module`` and
``nnx.Variable`` there (the names the rule's hooks answer to); ``tests/test_flax_nnx.py`` checks the rule's table
against it. Needs ``uv`` on the PATH (the test extra installs it) and the package index (~10 min
with a warm cache, most of it the 13 x 15 fresh processes; about 1.5 GB of downloads without).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import provenance

PAIRS: list[tuple[str, str]] = [
    ("0.8.5", "0.4.31"),
    ("0.9.0", "0.4.31"),
    ("0.10.0", "0.4.35"),
    ("0.10.0", "0.4.36"),
    ("0.10.1", "0.4.31"),
    ("0.10.2", "0.4.36"),
    ("0.10.4", "0.4.38"),
    ("0.10.5", "0.5.3"),
    ("0.10.7", "0.6.2"),
    ("0.11.0", "0.7.0"),
    ("0.11.2", "0.7.2"),
    ("0.12.0", "0.8.0"),
    ("0.12.8", "0.10.2"),
]
"""(Flax, JAX) pairs: each release where the table changes, a release on each side of it, and
JAX on both sides of 0.4.36 (``release.LEAKED_EAGER_TRACERS_RAISE``), with a JAX each Flax
release installs with."""

PYTHON = "3.11"

PROBE = r"""
import json, sys
kind, change = sys.argv[1], sys.argv[2]
try:
    from flax import nnx
except ImportError:
    print(json.dumps({"outcome": "no flax.nnx"}))
    raise SystemExit(0)
import jax, jax.numpy as jnp

if kind == "names":  # where the release defines what the rule hooks, as mypy names it
    print(json.dumps({"names": [f"{c.__module__}.{c.__qualname__}" for c in (nnx.Rngs, nnx.Module, nnx.Variable)]}))
    raise SystemExit(0)
rngs = nnx.Rngs(0)


class Counter(nnx.Module):
    def __init__(self):
        self.count = nnx.Variable(jnp.zeros(()))


counter = Counter()


def changed(x):
    if change == "drawn":
        return x + jax.random.normal(rngs(), ())
    counter.count.value = counter.count.value + x
    return x


RUN = {
    "jit": lambda: jax.jit(changed)(1.0),
    "vmap": lambda: jax.vmap(changed)(jnp.ones(3)),
    "jax.grad": lambda: jax.grad(changed)(1.0),
    "jax.checkpoint": lambda: jax.checkpoint(changed)(1.0),
    "lax": lambda: jax.lax.fori_loop(0, 2, lambda i, c: changed(c), 1.0),
    "jax.pmap": lambda: jax.pmap(changed)(jnp.ones(1)),
    "nnx.jit": lambda: nnx.jit(changed)(jnp.ones(())),
}
try:
    jax.block_until_ready(RUN[kind]())
    outcome = "runs"
except Exception as error:
    outcome = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}" if str(error) else type(error).__name__
print(json.dumps({"outcome": outcome}))
"""
KINDS = ("jit", "vmap", "jax.grad", "jax.checkpoint", "lax", "jax.pmap", "nnx.jit")
"""The transforms probed, named by the rule's kinds (``analyses/transforms.py``)."""
CHANGES = ("drawn", "set")
"""A random stream of a global ``nnx.Rngs`` drawn; a Variable of a global module set."""


def probe_pair(flax: str, jax: str, work: Path, uv: str) -> dict[str, object]:
    """One pair's environment and what each transform did there."""
    venv = work / f"flax-{flax}-jax-{jax}"
    if not (venv / "bin" / "python").exists():
        subprocess.run([uv, "venv", "-q", "-p", PYTHON, str(venv)], check=True)
    env = {**os.environ, "VIRTUAL_ENV": str(venv)}
    subprocess.run([uv, "pip", "install", "-q", f"flax=={flax}", f"jax=={jax}", f"jaxlib=={jax}"], check=True, env=env)
    script = work / "probe.py"
    script.write_text(PROBE)
    python = str(venv / "bin" / "python")
    names = subprocess.run([python, str(script), "names", ""], capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    named = json.loads(names.stdout.strip().splitlines()[-1]).get("names", []) if names.stdout.strip() else []
    outcomes: dict[str, dict[str, str]] = {}
    for kind in KINDS:
        for change in CHANGES:
            run = subprocess.run(
                [python, str(script), kind, change],
                capture_output=True,
                text=True,
                env={**os.environ, "JAX_PLATFORMS": "cpu"},
            )
            last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
            outcome = json.loads(last)["outcome"] if last.startswith("{") else f"the probe failed: {run.stderr.strip()[-300:]}"
            outcomes.setdefault(kind, {})[change] = outcome
    return {"flax": flax, "jax": jax, "names": named, "outcomes": outcomes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--work", type=Path, help="keep the environments here (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="write the result here")
    args = parser.parse_args(argv)
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(uv).exists():
        raise SystemExit("nnx_releases: error: needs uv (pip install uv, or run with .venv-test/bin/python)")
    with tempfile.TemporaryDirectory() as temporary:
        work = args.work or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        rows = []
        for flax, jax in PAIRS:
            row = probe_pair(flax, jax, work, uv)
            rows.append(row)
            raised = sorted(kind for kind, changes in row["outcomes"].items() if any("TraceContextError" in o for o in changes.values()))  # type: ignore[attr-defined]
            print(f"flax {flax} jax {jax}: raises under {', '.join(raised) or 'none'}", flush=True)
    result = provenance.stamped({"python": PYTHON, "kinds": list(KINDS), "changes": list(CHANGES), "pairs": rows})
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
