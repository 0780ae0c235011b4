"""``jax-nnx-trace-level`` reports only under the transforms where the installed Flax raises
(``mypy_plugin/rules/flax/flax_nnx.py``, ``CHECKED_FROM`` and ``EAGER_KINDS``, measured release by
release as the rule page states). The plugin reads the release from the ``.dist-info`` folder's name where mypy
reads packages, so a folder named for another release, first on the search path, stands for it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mypy_runs import assert_no_crash, run_mypy

from mypy_plugin.analyses import transforms
from mypy_plugin.install import installed
from mypy_plugin.lib import libraries, release
from mypy_plugin.rules.flax import flax_nnx

DRAWN_UNDER_JIT_AND_VMAP = """\
import jax
import jax.numpy as jnp
from flax import nnx

rngs = nnx.Rngs(0)


@jax.jit
def jitted(x):
    return x + jax.random.normal(rngs(), ())


def mapped(x):
    return x + jax.random.normal(rngs(), ())


print(jitted(1.0), jax.vmap(mapped)(jnp.ones(3)))
"""
JIT_LINE, VMAP_LINE = 10, 14


@pytest.mark.parametrize(
    ("flax", "jax", "jit", "vmap"),
    [
        ("0.8.5", (0, 10, 2), False, False),
        ("0.9.0", (0, 4, 31), False, False),  # NNX's classes are in flax.nnx.nnx there
        ("0.10.0", (0, 4, 35), True, False),
        ("0.10.0", (0, 4, 36), True, True),
        ("0.10.1", (0, 4, 31), False, False),
        ("0.10.4", (0, 10, 2), False, False),
        ("0.10.2rc1", (0, 10, 2), False, False),
        ("0.10.5", (0, 5, 3), True, True),
        ("0.12.8", (0, 10, 2), True, True),
        ("1.0.0rc1", (0, 10, 2), True, True),
        (None, (0, 10, 2), False, False),
    ],
)
def test_the_releases_decide_the_transforms(
    flax: str | None, jax: tuple[int, int, int], jit: bool, vmap: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(release, "STUBS", jax)
    monkeypatch.setattr(libraries.INSTALLED, "flax", None)
    libraries.INSTALLED.remember({"flax": flax})
    raising = flax_nnx.raising_kinds(libraries.INSTALLED.flax)
    assert (transforms.JIT_KIND in raising, transforms.VMAP_KIND in raising) == (jit, vmap)


PROBED = json.loads((Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "nnx_releases.json").read_text())
"""What real Flax releases did (``benchmarks/nnx_releases.py``): per (Flax, JAX) pair, each
transform's outcome for a global ``nnx.Rngs`` drawn and a global module's Variable set."""
TRACE_CONTEXT_ERROR = "TraceContextError: Cannot "


@pytest.mark.parametrize("pair", PROBED["pairs"], ids=[f"flax-{pair['flax']}-jax-{pair['jax']}" for pair in PROBED["pairs"]])
def test_the_table_agrees_with_the_releases_as_probed(pair: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a release defines the names the rule hooks, it reports under exactly the transforms
    where that release raised for both changes, and is silent where both ran; where it does not
    (Flax 0.8 has them under ``flax.nnx.nnx``), the rule cannot fire, and its table says nothing
    either."""
    outcomes: dict[str, dict[str, str]] = pair["outcomes"]
    raised = {kind for kind, changes in outcomes.items() if all(o.startswith(TRACE_CONTEXT_ERROR) for o in changes.values())}
    ran = {kind for kind, changes in outcomes.items() if all(o == "runs" for o in changes.values())}
    assert raised | ran == set(PROBED["kinds"]), outcomes  # each transform raised for both changes or ran for both
    monkeypatch.setattr(release, "STUBS", release.parse_version(pair["jax"])[:3])
    monkeypatch.setattr(libraries.INSTALLED, "flax", None)
    libraries.INSTALLED.remember({"flax": pair["flax"]})
    table = flax_nnx.raising_kinds(libraries.INSTALLED.flax) & set(PROBED["kinds"])
    hooked = {flax_nnx.RNGS, flax_nnx.NNX_MODULE, flax_nnx.VARIABLE} <= set(pair["names"])
    assert table == (raised if hooked else set()), (pair["names"], sorted(raised))


def test_the_release_is_read_where_mypy_reads_packages(tmp_path: Path) -> None:
    (tmp_path / "first" / "flax-0.10.3.dist-info").mkdir(parents=True)
    (tmp_path / "second" / "flax-0.12.8.dist-info").mkdir(parents=True)
    found = installed.read([str(tmp_path / "first"), str(tmp_path / "second")])
    assert found.flax == "0.10.3" and found.config_data()["flax"] == "0.10.3"
    assert installed.read([str(tmp_path / "second")]).flax == "0.12.8"
    assert installed.read([str(tmp_path)]).flax is None


def test_mypy_reports_what_the_installed_release_raises(tmp_path: Path) -> None:
    """The installed Flax (0.12.8 in the test extra) raises under both transforms, and both are
    reported; Flax 0.10.2, which switches the check off, raises under neither: nothing is."""
    pytest.importorskip("flax.nnx")
    (tmp_path / "model.py").write_text(DRAWN_UNDER_JIT_AND_VMAP)
    installed_run = run_mypy(tmp_path, "model.py")
    assert_no_crash(installed_run)
    assert reported_lines(installed_run.stdout) == [JIT_LINE, VMAP_LINE], installed_run.stdout
    shadow = tmp_path / "shadow"
    (shadow / "flax-0.10.2.dist-info").mkdir(parents=True)
    # a cache of its own: another release is other config data, which re-checks every module
    older = run_mypy(tmp_path, "model.py", cache=tmp_path / "cache", env={**os.environ, "PYTHONPATH": str(shadow)})
    assert_no_crash(older)
    assert reported_lines(older.stdout) == [], older.stdout


def reported_lines(stdout: str) -> list[int]:
    return [int(line.split(":")[1]) for line in stdout.splitlines() if line.endswith("[jax-nnx-trace-level]")]
