"""Lint reports a removed JAX name only where the line runs as written, naming what is raised there.

Each program below is linted, then run under the installed JAX: a reported line must raise the
exception its message names, from that line; a program with no report must run. The forms are
those of ``scripts/probe_annotations.py`` (``lib/evaluated.py``): annotations Python evaluates
and those it does not, ``if TYPE_CHECKING:``, the import forms, and ``try`` handlers that catch
what is raised or not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mypy_runs import BIN, PYTHON

FUTURE = "from __future__ import annotations\n"
PROGRAMS: dict[str, tuple[str, tuple[int, str] | None]] = {
    "parameter_annotation": ("import jax\n\ndef f(key: jax.random.PRNGKeyArray):\n    return key\n", (3, "AttributeError")),
    "parameter_annotation_postponed": (FUTURE + "import jax\n\ndef f(key: jax.random.PRNGKeyArray):\n    return key\n", None),
    "optional_parameter_postponed": (
        FUTURE
        + "from typing import Optional\nimport jax\n\ndef f(key: Optional[jax.random.PRNGKeyArray] = None):\n    return key\n\nf()\n",
        None,
    ),
    "return_annotation": ("import jax.numpy as jnp\n\ndef f() -> jnp.DeviceArray:\n    return jnp.ones(2)\n", (3, "AttributeError")),
    "string_annotation": ("import jax.numpy as jnp\n\ndef f(x: 'jnp.DeviceArray') -> 'jnp.DeviceArray':\n    return x\n", None),
    "local_variable_annotation": ("import jax.numpy as jnp\n\ndef f():\n    x: jnp.DeviceArray = jnp.ones(2)\n    return x\n\nf()\n", None),
    "class_field": ("import jax.numpy as jnp\n\nclass Params:\n    w: jnp.DeviceArray\n", (4, "AttributeError")),
    "dataclass_field_postponed": (
        FUTURE
        + "import dataclasses\nimport jax.numpy as jnp\n\n@dataclasses.dataclass\nclass Params:\n    w: jnp.DeviceArray\n\nParams(1)\n",
        None,
    ),
    "singledispatch_postponed": (
        FUTURE + "import functools\nimport jax.numpy as jnp\n\n@functools.singledispatch\ndef show(x):\n    return x\n\n"
        "@show.register\ndef _(x: jnp.DeviceArray):\n    return x\n",
        (9, "AttributeError"),  # evaluated by the decorator, which raises
    ),
    "under_type_checking": (
        "from typing import TYPE_CHECKING\nimport jax.numpy as jnp\n\nif TYPE_CHECKING:\n    Array = jnp.DeviceArray\n",
        None,
    ),
    "attribute_at_run_time": ("import jax\n\nmapped = jax.tree_map(lambda v: v, [1.0])\n", (3, "AttributeError")),
    "attribute_caught": (
        "import jax\n\ntry:\n    mapped = jax.tree_map(lambda v: v, [1.0])\nexcept AttributeError:\n    mapped = None\n",
        None,
    ),
    "from_import_of_a_removed_name": ("from jax.random import KeyArray\n", (1, "ImportError")),
    "from_import_caught_as_import_error": (
        "try:\n    from jax.random import KeyArray\nexcept ImportError:\n    KeyArray = None\n",
        None,
    ),
    "from_import_under_the_wrong_handler": (
        "try:\n    from jax.random import KeyArray\nexcept AttributeError:\n    KeyArray = None\n",
        (2, "ImportError"),
    ),
    "import_of_a_removed_module": ("import jax.experimental.host_callback as hcb\n", (1, "ModuleNotFoundError")),
    "from_a_removed_module": ("from jax.util import safe_map\n", (1, "ModuleNotFoundError")),
    "removed_module_from_its_package": ("from jax.experimental import host_callback\n", (1, "ImportError")),
    "name_its_package_still_binds": ("from jax import config\n\nconfig.update('jax_enable_x64', False)\n", None),
    # shapes from users' threads: a Flax struct's field, the old config import, host_callback's id_tap
    "flax_struct_field": (
        "import flax.struct\nfrom jax import random\n\n@flax.struct.dataclass\nclass Scheduler:\n    key: random.KeyArray\n",
        (6, "AttributeError"),
    ),
    "config_from_its_old_module": ("from jax.config import config\n\nconfig.update('jax_enable_x64', True)\n", (1, "ModuleNotFoundError")),
    "config_module_imported": ("import jax.config\n", (1, "ModuleNotFoundError")),
    "id_tap_from_host_callback": ("from jax.experimental.host_callback import id_tap\n", (1, "ModuleNotFoundError")),
    "removed_module_caught": ("try:\n    import jax.experimental.host_callback as hcb\nexcept ImportError:\n    hcb = None\n", None),
}
"""Each program with the line reported and what it raises there, or None for none."""


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, object]]]:
    folder = tmp_path_factory.mktemp("runs_as_written")
    for name, (text, _) in PROGRAMS.items():
        (folder / f"{name}.py").write_text(text)
    done = subprocess.run([str(BIN / "jax-stubs"), "lint", "--output", "json"], cwd=folder, capture_output=True, text=True, timeout=900)
    assert done.returncode in (0, 1), done.stderr
    found: dict[str, list[dict[str, object]]] = {name: [] for name in PROGRAMS}
    for line in done.stdout.splitlines():
        report = json.loads(line)
        found[Path(str(report["file"])).stem].append(report)
    return found


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_and_runtime_agree(name: str, reported: dict[str, list[dict[str, object]]], tmp_path: Path) -> None:
    text, expected = PROGRAMS[name]
    found = [(int(str(report["line"])), str(report["message"])) for report in reported[name]]
    outcome = run(text, tmp_path / f"{name}.py")
    if expected is None:
        assert found == [] and outcome is None, (found, outcome)
        return
    line, exception = expected
    assert [at for at, _ in found] == [line] and exception in found[0][1], found
    assert outcome == (line, exception), outcome


def run(text: str, path: Path) -> tuple[int, str] | None:
    """The line of ``path`` the program raises from and the exception's name, or None where it runs."""
    path.write_text(text)
    probe = (
        "import runpy, sys, traceback\n"
        f"try:\n    runpy.run_path({str(path)!r}, run_name='__main__')\n"
        "except BaseException as error:\n"
        f"    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == {str(path)!r}]\n"
        "    print(frames[-1].lineno if frames else 0, type(error).__name__)\n"
    )
    done = subprocess.run([str(PYTHON), "-W", "ignore", "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = done.stdout.split()
    return (int(said[0]), said[1]) if said else None


def test_python_3_14_defers_every_annotation(tmp_path: Path) -> None:
    """From Python 3.14 (PEP 649) a parameter's annotation is evaluated only when read: the
    project that targets it (mypy's python_version) gets no report there. Decided from the PEP:
    no 3.14 interpreter runs here, so only the lint side is checked."""
    if sys.version_info >= (3, 14):
        pytest.skip("the runtime test above covers it")
    (tmp_path / "pyproject.toml").write_text('[tool.mypy]\npython_version = "3.14"\n')
    (tmp_path / "deferred.py").write_text(PROGRAMS["parameter_annotation"][0] + "\nmapped = jax.tree_map(lambda v: v, [1.0])\n")
    done = subprocess.run([str(BIN / "jax-stubs"), "lint", "--output", "json"], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    lines = [json.loads(line)["line"] for line in done.stdout.splitlines()]
    assert lines == [6], done.stdout + done.stderr
