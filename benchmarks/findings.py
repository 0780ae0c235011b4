"""Targeted errors the sweep finds in real libraries, each investigated and checked at run time.

A finding is explained only when running its flagged line under JAX on the CPU shows what the
error claims: with a stream, JAX's ``NotImplementedError`` raised from that very line; with
``stream=None`` the same code runs. ``sweep.py`` runs every reproduction below against the
library sources it fetched, and counts a targeted error without a confirmed finding, or any
changed diagnostic on another line, as unexplained.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

JAX_MESSAGE = "stream argument of array.to_device()"


@dataclass(frozen=True)
class Finding:
    file: str  # relative to the unpacked sources
    line: int
    why: str
    reproduction: str  # Python code; ``{stream}`` is replaced by ``None``, then by ``0``


FINDINGS = [
    Finding(
        "array_api_compat/common/_helpers.py",
        1067,
        "array_api_compat.to_device(x, device, stream=...) narrows x to jax.Array with is_jax_array "
        "and forwards its stream (typed int | Any | None) to jax.Array.to_device, which refuses any "
        "stream but None.",
        "import jax, jax.numpy as jnp, array_api_compat\n"
        "array_api_compat.to_device(jnp.arange(3), jax.devices('cpu')[0], stream={stream})\n",
    ),
]

# Runs one reproduction in a fresh interpreter and prints what happened as JSON.
_RUN = """
import json, sys, traceback
code = sys.argv[1]
outcome = {}
for stream in ("None", "0"):
    try:
        exec(compile(code.replace("{stream}", stream), "<reproduction>", "exec"), {})
        outcome[stream] = {"raised": None}
    except Exception as error:
        frames = [[frame.filename, frame.lineno] for frame in traceback.extract_tb(error.__traceback__)]
        outcome[stream] = {"raised": type(error).__name__, "message": str(error), "frames": frames}
print(json.dumps(outcome))
"""


def at(finding: Finding) -> tuple[str, int]:
    return finding.file, finding.line


def confirm(finding: Finding, python: Path, src: Path) -> str | None:
    """None when the run-time behaviour matches the finding; otherwise what differs."""
    environment = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(src)}
    result = subprocess.run([str(python), "-c", _RUN, finding.reproduction], cwd=src, env=environment, capture_output=True, text=True)
    if result.returncode != 0 or not result.stdout.strip():
        return f"the reproduction did not run: {result.stderr.strip()[-500:]}"
    outcome = json.loads(result.stdout.splitlines()[-1])
    without, with_stream = outcome["None"], outcome["0"]
    if without["raised"] is not None:
        return f"with stream=None it raised {without['raised']}: {without['message']}"
    if with_stream["raised"] != "NotImplementedError" or with_stream["message"] != JAX_MESSAGE:
        return f"with a stream it raised {with_stream['raised']}: {with_stream.get('message')}"
    flagged = str((src / finding.file).resolve())
    if [flagged, finding.line] not in [[str(Path(f).resolve()), n] for f, n in with_stream["frames"]]:
        return f"JAX's error did not pass through {finding.file}:{finding.line}"
    return None


TYPED_JIT_ENTRY = "mypy_plugin.typed_jit"
"""The plugin's entry point with calls of jitted functions typed (opt-in)."""

LIMIT = "checker limit"
ANNOTATION = "annotation that is wrong"

TYPED_JIT_CAUSES: dict[tuple[str, int], tuple[str, str]] = {
    ("chex/_src/fake_test.py", 335): (
        LIMIT,
        (
            "foo is reassigned to jax.pmap(functools.partial(foo, flag=True)); mypy keeps the type of the def, "
            "so jax.jit(foo) is given foo's own signature, flag included"
        ),
    ),
    ("chex/_src/fake_test.py", 336): (LIMIT, "the same call with keywords"),
    ("diffrax/_global_interpolation.py", 521): (
        ANNOTATION,
        (
            "fill_forward (jitted) declares replace_nans_at_start as Shaped[Array, ...] | None; its caller passes its own "
            "Shaped[ArrayLike, ...] | None, which jax.jit takes (a NumPy array or a number runs)"
        ),
    ),
    ("jaxopt/_src/levenberg_marquardt.py", 419): (
        LIMIT,
        (
            "mypy types the variable from its first assignment, jnp.linalg.norm(...) (a jitted function of JAX, "
            "now typed Array); the other branch assigns 0.0"
        ),
    ),
    ("numpyro/distributions/continuous.py", 1155): (
        LIMIT,
        (
            "a lambda given to lax.scan returns self.transition_matrix @ carry, an ndarray | Array by numpyro's "
            "annotations, where scan's signature wants Array; the carry is an Array at run time"
        ),
    ),
    ("numpyro/distributions/continuous.py", 3120): (
        LIMIT,
        (
            "lam is first assigned np.linalg.eigvalsh(...) on the NumPy branch, then jnp.linalg.eigvalsh(...) "
            "(jitted, now typed Array) on the JAX branch"
        ),
    ),
    ("numpyro/distributions/util.py", 727): (
        ANNOTATION,
        "JAX declares jnp.linalg.norm's ord as int | str | None; a float order runs (jnp.linalg.norm(jnp.ones(3), 2.5), and np.inf)",
    ),
    ("optax/_src/linear_algebra.py", 278): (
        LIMIT,
        "tuple([0, m, h, h, e, True]) is typed as a tuple of the union of its items, so lax.while_loop's result items include int",
    ),
    ("optax/_src/numerics.py", 79): (ANNOTATION, "jnp.linalg.norm's ord, as above"),
    ("optax/_src/numerics.py", 82): (ANNOTATION, "jnp.linalg.norm's ord, as above"),
    ("optax/losses/_classification_test.py", 901): (
        LIMIT,
        "labels is first a list of lists, then np.array(labels); mypy keeps the first type",
    ),
}
"""Every diagnostic ``mypy_plugin.typed_jit`` adds on the sweep's sources, by line, with its
cause: a real bug (shown at run time), an annotation that is wrong, or a checker limit. None is
a bug: the reason typed calls are not the default."""
