"""The README's demo: mypy reports the shipped example exactly as the README shows, with every
rule of the plugin; each reported line raises that rule's exception at run time; what the
example recommends runs; and the other checkers report nothing else in it."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cases import LIBRARY_CODES, RULES, call_reported, rule_for
from checkers import CHECKERS, PYREFLY_CONFIG, run
from mypy_runs import BIN, PYTHON

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "ported_from_torch.py"
REPORTED = re.compile(r"^examples/ported_from_torch\.py:(\d+): error: (.*)  \[([\w-]+)\]$", re.MULTILINE)
CALLS: dict[str, Callable[[Any], tuple[Any, ...]]] = {
    "to_accelerator": lambda device: (jnp.arange(4.0), device, 1),
    "from_cupy": lambda device: (jnp.arange(4.0), device, object()),  # a stream of an untyped library
    "mask_padding": lambda device: (jnp.arange(4.0), 2),
    "zero_padding": lambda device: (jnp.arange(4.0), 2),
    "normalise": lambda device: (jnp.arange(4.0), True),
    "drop_padding": lambda device: (jnp.arange(4.0),),
    "activate": lambda device: (jnp.arange(4.0),),
    "activate_tanh": lambda device: (jnp.arange(4.0),),
    "pad_to": lambda device: (jnp.arange(4.0), 2),
    "compile_padding": lambda device: (),
    "noise": lambda device: (0, 3),
    "sample_indices": lambda device: (jax.random.key(0), 3),
    "draw_batch": lambda device: (jax.random.key(0), 10, 4),
    "init_hidden": lambda device: (2, 3),
    "clamp": lambda device: (jnp.arange(4.0),),
    "count_tokens": lambda device: (jnp.array([0, 1, 1]), 3),
    "uninitialised": lambda device: (3,),
    "pool_pairs": lambda device: (jnp.arange(4.0),),
    "momentum": lambda device: (jnp.arange(4.0), jnp.zeros(4), 3),
    "sgd_step": lambda device: (jnp.arange(4.0), jnp.ones(4)),
    "train_step": lambda device: (jnp.arange(4.0), jnp.ones(4)),
    "fit": lambda device: (jnp.ones(3), jnp.ones((2, 3))),
    "row_norms": lambda device: (jnp.ones((2, 3)), 2.0),
    "slope_at_three": lambda device: (),
    "logged_losses": lambda device: (jnp.arange(4.0),),
    "normalise_fixed": lambda device: (jnp.arange(4.0), True),
    "fixed": lambda device: (jnp.arange(4.0), device, 2),
    "fixed_sampling": lambda device: (0, jnp.array([0, 1, 1]), 3),
}
"""Arguments for each function of the example, called by the runtime test."""


def mypy_on_examples() -> subprocess.CompletedProcess[str]:
    """The README's demo as printed: ``mypy examples/`` with this repository's configuration."""
    return subprocess.run([str(BIN / "mypy"), "examples/"], cwd=REPO, capture_output=True, text=True)


def test_demo_output_is_what_the_readme_shows() -> None:
    result = mypy_on_examples()
    assert result.returncode == 1, result.stdout + result.stderr
    readme = (REPO / "README.md").read_text()
    shown = re.search(r"```\n(examples/ported_from_torch\.py:.*?)```", readme, re.DOTALL)
    assert shown is not None, "the README shows the demo's output"
    assert result.stdout == shown.group(1)
    reported = {code for _, _, code in REPORTED.findall(result.stdout)}
    assert reported - {code for code in reported if code.startswith("jax-")} == {"arg-type"}  # mypy's own, beside two rules
    assert {code for code in reported if code.startswith("jax-")} == {rule.code for rule in RULES} - LIBRARY_CODES


def test_example_raises_where_mypy_reports() -> None:
    """Each reported function, called, raises its rule's exception from the reported line (a
    discarded update runs and returns its array unchanged); the functions with no report (what
    to write instead) run."""
    reported = {
        int(line): rule_for(code, message) for line, message, code in REPORTED.findall(mypy_on_examples().stdout) if code.startswith("jax-")
    }
    device = jax.devices()[0]
    arguments = {name: arguments(device) for name, arguments in CALLS.items()}
    returned, unreported = call_reported(EXAMPLE, reported, arguments)
    assert np.array_equal(returned["zero_padding"], arguments["zero_padding"][0])
    assert unreported == ["activate", "pad_to", "sgd_step", "normalise_fixed", "fixed", "fixed_sampling"]


@pytest.mark.parametrize("name", CHECKERS)
def test_other_checkers_report_only_the_concretely_typed_misuse(name: str, tmp_path: Path) -> None:
    """A stub-reading checker sees the stream typed ``int | None``, not the one typed ``Any``,
    the number given as ``jax.random.choice``'s shape, which JAX annotates ``Sequence[int]``,
    and the number given as ``jnp.zeros``'s dtype, annotated ``DTypeLike`` (mypy's own
    ``arg-type`` at both); nothing else in the example is an error to it."""
    printed = mypy_on_examples().stdout
    reported = re.findall(r'ported_from_torch\.py:(\d+): error: .*\(got "(.*?)"\)', printed)
    concrete = [int(line) for line, got in reported if got != "Any"]
    assert len(concrete) == 1 and len(reported) == 2, reported
    annotated = [int(line) for line in re.findall(r"ported_from_torch\.py:(\d+): error: .*  \[arg-type\]$", printed, re.MULTILINE)]
    assert len(annotated) == 2, printed
    shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name)
    (tmp_path / "pyrefly.toml").write_text(PYREFLY_CONFIG)
    errors = [d for d in run(CHECKERS[name], PYTHON, tmp_path) if d.severity == "error"]
    expected = sorted([(EXAMPLE.name, concrete[0]), *((EXAMPLE.name, line) for line in annotated)])
    assert sorted((d.file, d.line) for d in errors) == expected, "\n".join(map(str, errors))
