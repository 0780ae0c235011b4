"""``jax-stubs lint`` from the installed wheel, on a module ported from NumPy that was never
type-checked (``tests/lint/ported_from_numpy.py``: no annotations, one misuse of each rule
marked ``# jax-...``, the JAX way beside each, and mypy errors of its own that must not show):
exactly the marked reports with their notes, in the three output forms, the exit statuses, a
second run from the cache, and a project's settings, mypy configuration and ignore comments.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from cases import LIBRARY_CODES, PORTED_FROM_NUMPY, call_reported, marked_misuses, rule_for
from environments import JAX, linked_environment
from mypy_runs import BIN, PYTHON

from mypy_plugin.lint import mypy_errors
from mypy_plugin.rules.hooked import HOOKED

ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): error: (?P<message>.*)  \[(?P<code>[\w-]+)\]$")
NOTE = re.compile(r"^(?P<where>[^:]+:\d+:\d+): note: (?P<note>.*)$")
PROBLEM = "jax-stubs lint: error: "
FIXABLE = "1 fixable with --fix; 3 more with --fix --unsafe-fixes"
ARGUMENTS = {
    "to_accelerator": (jnp.arange(3.0), jax.devices()[0]),
    "zero_start": (3,),
    "ranked": (3,),
    "normalise": (jnp.arange(3.0),),
    "positive": (jnp.arange(3.0),),
    "resample": (jnp.arange(4.0), 2),
    "compile_resample": (),
    "activate": (jnp.arange(3.0),),
    "activated": (jnp.arange(3.0),),
    "ordered": (jnp.arange(3.0),),
    "place_peaks": (3,),
    "from_generator": (3,),
    "noise": (3,),
    "jitter": (3,),
    "pick_frames": (10,),
    "window_weights": (),
    "frames": (jnp.arange(4.0),),
    "running_peak": (jnp.arange(3.0),),
    "halve": (jnp.arange(3),),
    "halved_and_offset": (jnp.arange(3),),
    "peak_gradient": (jnp.arange(3.0),),
    "cube_slope": (),
    "peaks_by_step": (jnp.arange(1.0, 4.0),),
    "pairwise_gaps": (jnp.arange(3.0),),
    "flattened": (jnp.arange(4.0),),
    "halved_tree": ({"w": jnp.ones(3)},),
    "not_about_jax": (jnp.arange(3.0),),
}


def lint(folder: Path, *args: str, python: Path = PYTHON) -> subprocess.CompletedProcess[str]:
    """``jax-stubs lint`` as a user runs it, in ``folder``."""
    command = [str(BIN / "jax-stubs")] if python == PYTHON else [str(python), "-m", "mypy_plugin"]
    return subprocess.run([*command, "lint", *args], cwd=folder, capture_output=True, text=True, timeout=900)


def errors(output: str) -> list[re.Match[str]]:
    return [found for line in output.splitlines() if (found := ERROR.match(line))]


def sample_project(folder: Path) -> Path:
    """``folder`` made a project holding the lint sample."""
    shutil.copy(PORTED_FROM_NUMPY, folder / PORTED_FROM_NUMPY.name)
    (folder / "pyproject.toml").write_text('[project]\nname = "signal-tools"\nversion = "0.1"\n')
    return folder


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_project(tmp_path_factory.mktemp("project"))


@pytest.fixture(scope="module")
def first_run(project: Path) -> subprocess.CompletedProcess[str]:
    return lint(project)


def test_reports_exactly_the_marked_misuses_with_their_notes(first_run: subprocess.CompletedProcess[str]) -> None:
    assert first_run.returncode == 1, first_run.stdout + first_run.stderr
    found = errors(first_run.stdout)
    assert [(int(error["line"]), error["code"]) for error in found] == marked_misuses()
    every_code = ({code for rule in HOOKED for code in rule.codes} - LIBRARY_CODES) | mypy_errors.CODES
    assert {code for _, code in marked_misuses()} == every_code, "the sample shows every code of every rule"
    lines = first_run.stdout.splitlines()
    for index, line in enumerate(lines[:-2]):
        if ERROR.match(line):
            note = NOTE.match(lines[index + 1])
            assert note and line.startswith(note["where"] + ": error:"), (line, lines[index + 1])
    assert all(ERROR.match(line) or NOTE.match(line) for line in lines[:-2]), "nothing but the plugin's reports"
    assert lines[-2] == f"Found {len(marked_misuses())} JAX errors in 1 file (checked 1 source file, 0 from the cache)"
    assert lines[-1] == FIXABLE, "tests/test_fix.py applies them"


def test_what_it_reports_raises_and_the_rest_runs(first_run: subprocess.CompletedProcess[str]) -> None:
    reported = {int(error["line"]): rule_for(error["code"], error["message"]) for error in errors(first_run.stdout)}
    _, unreported = call_reported(PORTED_FROM_NUMPY, reported, ARGUMENTS)
    assert unreported == ["resample", "activate", "halve", "not_about_jax"]


def with_notes(output: str) -> list[tuple[re.Match[str], list[str]]]:
    """Each error of the text form with the notes below it."""
    found: list[tuple[re.Match[str], list[str]]] = []
    for line in output.splitlines():
        if (error := ERROR.match(line)) is not None:
            found.append((error, []))
        elif (note := NOTE.match(line)) is not None:
            found[-1][1].append(note["note"])
    return found


def test_github_annotations_and_json_lines(project: Path, first_run: subprocess.CompletedProcess[str]) -> None:
    text = with_notes(first_run.stdout)
    github = lint(project, "--output", "github")
    assert github.returncode == 1 and github.stderr == "", github.stderr
    assert github.stdout.splitlines() == [
        f"::error file={e['file']},line={e['line']},col={e['column']},title={e['code']}::"
        + "%0A".join([e["message"], *notes]).replace("%", "%25").replace("%250A", "%0A")
        for e, notes in text
    ]
    as_json = lint(project, "--output", "json")
    assert as_json.returncode == 1 and as_json.stderr == "", as_json.stderr
    found = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [{key: value for key, value in report.items() if key != "fix"} for report in found] == [
        {"file": e["file"], "line": int(e["line"]), "column": int(e["column"]), "code": e["code"], "message": e["message"], "notes": notes}
        for e, notes in text
    ]
    assert sum(report["fix"] is not None for report in found) == 4, "the fixes tests/test_fix.py applies"


def test_a_second_run_comes_from_its_own_cache(project: Path, first_run: subprocess.CompletedProcess[str]) -> None:
    again = lint(project)
    assert again.stdout.splitlines()[:-2] == first_run.stdout.splitlines()[:-2]
    assert again.stdout.splitlines()[-2].endswith("(checked 1 source file, 1 from the cache)")
    assert again.stdout.splitlines()[-1] == FIXABLE, "the fixes of a file from the cache are kept"
    assert (project / ".jax_stubs_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert not (project / ".mypy_cache").exists(), "the project's own mypy cache is left alone"
    edited = project / "edited.py"
    edited.write_text("import jax.numpy as jnp\n\nx = jnp.zeros(2)\nx.sort()\n")
    try:
        after_edit = lint(project)
    finally:
        edited.unlink()
    assert (
        after_edit.stdout.splitlines()[-2]
        == f"Found {len(marked_misuses()) + 1} JAX errors in 2 files (checked 2 source files, 1 from the cache)"
    )


def test_clean_code_exits_0(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import jax.numpy as jnp\n\nx = jnp.zeros(2).at[0].set(1.0)\ny: int = 'mypy would say so'\n")
    result = lint(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no JAX errors found (checked 1 source file")


@pytest.mark.parametrize(
    ("files", "arguments", "says"),
    [
        ({}, ["missing.py"], "no such file or folder: missing.py"),
        ({"pyproject.toml": "[tool.jax-stubs.lint]\nfiles = ['src']\n"}, [], 'has no key "files"; its keys are paths, exclude, disable'),
        (
            {"pyproject.toml": "[tool.jax-stubs.lint]\ndisable = ['jax-no-such-rule']\n"},
            [],
            '"jax-no-such-rule" is not a code of jax-stubs',
        ),
        ({"pyproject.toml": "[tool.jax-stubs.lint]\nexclude = ['(']\n"}, [], "is not a regular expression"),
        ({"broken.py": "def broken(:\n"}, [], "mypy cannot check past broken.py:1"),
        ({}, ["--output", "xml"], "argument --output: invalid choice: 'xml'"),
    ],
)
def test_what_cannot_be_checked_exits_2_with_one_line(files: dict[str, str], arguments: list[str], says: str, tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import jax.numpy as jnp\n")
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    result = lint(tmp_path, *arguments)
    assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith(PROBLEM) and says in last, result.stderr


def test_without_jax_it_says_so_and_exits_2(tmp_path: Path) -> None:
    python = linked_environment(tmp_path / "env", leave_out=JAX)
    (tmp_path / "code.py").write_text("import jax.numpy as jnp\n")
    result = lint(tmp_path, "code.py", python=python)
    assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(PROBLEM) and "jax" in line and "pip install" in line, line


SETTINGS = """\
[tool.jax-stubs.lint]
paths = ["src"]
exclude = ["/vendored/"]
disable = ["jax-discarded-update"]

[tool.mypy]
plugins = ["a_plugin_that_is_not_installed"]
disable_error_code = ["jax-traced-value"]

[[tool.mypy.overrides]]
module = "legacy"
ignore_errors = true
"""
MISUSES = """\
import jax
import jax.numpy as jnp

x = jnp.zeros(3)
x[0] = 1.0
x[1] = 1.0  # type: ignore[jax-immutable-array]
x[2] = 1.0  # type: ignore
x[0] += 1.0  # type: ignore[attr-defined]
x.sort()


@jax.jit
def f(v: jax.Array) -> jax.Array:
    if v.sum() > 0:
        v = -v
    return v
"""


def test_settings_configuration_and_ignores(tmp_path: Path) -> None:
    """The section's paths, exclusions (also of a file named one by one) and disabled codes;
    the mypy configuration's disabled codes and per-module sections, its other plugins left out;
    ``# type: ignore`` as mypy reads it; two files of one module name."""
    (tmp_path / "pyproject.toml").write_text(SETTINGS)
    for path in ["src/misuses.py", "src/legacy.py", "src/vendored/copied.py", "src/a/conftest.py", "src/b/conftest.py", "outside.py"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(MISUSES)
    result = lint(tmp_path)
    reported = [(error["file"], int(error["line"]), error["code"]) for error in errors(result.stdout)]
    expected = [
        (f"src/{name}", line, "jax-immutable-array") for name in ("a/conftest.py", "b/conftest.py", "misuses.py") for line in (5, 8)
    ]
    assert sorted(reported) == sorted(expected), result.stdout + result.stderr
    named = lint(tmp_path, "src/vendored/copied.py", "outside.py")
    assert [(error["file"], int(error["line"])) for error in errors(named.stdout)] == [("outside.py", 5), ("outside.py", 8)], named.stdout


def test_from_a_subfolder_paths_mean_what_they_say_at_the_root(tmp_path: Path) -> None:
    """Run in ``src/``: the settings' paths and exclusions are the root's, a path given is the
    subfolder's, and reports name files from the root (as GitHub annotations need)."""
    (tmp_path / "pyproject.toml").write_text('[tool.jax-stubs.lint]\nexclude = ["^src/vendored/"]\n')
    for path in ["src/kept.py", "src/vendored/copied.py"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(MISUSES)
    result = lint(tmp_path / "src", ".")
    assert sorted({error["file"] for error in errors(result.stdout)}) == ["src/kept.py"], result.stdout + result.stderr
    only_excluded = lint(tmp_path / "src", "vendored/copied.py")
    assert only_excluded.returncode == 0, only_excluded.stdout + only_excluded.stderr
    assert only_excluded.stdout.startswith("Success: no JAX errors found (checked 0 source files"), only_excluded.stdout


def test_modules_of_one_name_that_others_import(tmp_path: Path) -> None:
    """Two script folders, each with a ``utils.py`` its sibling imports: each is checked under
    its own name, in turn, and both report."""
    for folder in ("scripts", "tools"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "utils.py").write_text(MISUSES)
        (tmp_path / folder / "run.py").write_text("import utils\n\nutils.x.sort()\n")
    result = lint(tmp_path)
    reported = sorted((error["file"], int(error["line"])) for error in errors(result.stdout))
    assert reported == sorted(
        [(f"{folder}/utils.py", line) for folder in ("scripts", "tools") for line in (5, 8, 9, 14)]
        + [(f"{folder}/run.py", 3) for folder in ("scripts", "tools")]
    ), result.stdout + result.stderr


RESEARCH_LAYOUT = {
    # scripts at the root importing folders without __init__.py as packages
    "train.py": "from configs import sac_default\nfrom utils import train_state\n\nstate = train_state.make()\nstate[0] = sac_default.LR\n",
    "utils/train_state.py": "import jax\nimport jax.numpy as jnp\n\n\ndef make() -> jax.Array:\n    return jnp.zeros(3)\n",
    "configs/sac_default.py": "LR = 1e-3\n",
    # a folder of scripts that run from there, importing a folder beside them
    "scripts/agent.py": "from parts import nets\n\nweights = nets.init()\nweights[1] = 0.0\n",
    "scripts/parts/nets.py": "import jax\nimport jax.numpy as jnp\n\n\ndef init() -> jax.Array:\n    return jnp.ones(2)\n",
    # a package of a src/ folder, importing itself by its name
    "src/pkg/__init__.py": "",
    "src/pkg/nets.py": "import jax\nimport jax.numpy as jnp\n\n\ndef init() -> jax.Array:\n    return jnp.ones(2)\n",
    "src/pkg/train.py": "from pkg import nets\n\nweights = nets.init()\nweights[0] = 1.0\n",
    # an examples root, importing a module beside it
    "examples/demo.py": "import helpers\n\nhelpers.x.sort()\n",
    "examples/helpers.py": "import jax.numpy as jnp\n\nx = jnp.arange(3.0)\n",
}
"""A research repository's shape that mypy refuses as it comes ("Source file found twice under
different module names"); each reported line is found only through an import of the layout."""


def test_research_layouts_are_checked_as_their_imports_name_them(tmp_path: Path) -> None:
    for name, text in RESEARCH_LAYOUT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    refused = subprocess.run([str(BIN / "mypy"), "--ignore-missing-imports", "."], cwd=tmp_path, capture_output=True, text=True)
    assert refused.returncode == 2 and "Source file found twice under different module names" in refused.stdout, refused.stdout
    result = lint(tmp_path)
    reported = sorted((error["file"], int(error["line"]), error["code"]) for error in errors(result.stdout))
    assert reported == [
        ("examples/demo.py", 3, "jax-discarded-update"),
        ("scripts/agent.py", 4, "jax-immutable-array"),
        ("src/pkg/train.py", 4, "jax-immutable-array"),
        ("train.py", 5, "jax-immutable-array"),
    ], result.stdout + result.stderr
    # a file its imports name two ways from the scripts' folders: every file named from the root
    (tmp_path / "main.py").write_text("from scripts.parts import nets\n\nnets.init()[0] = 1.0\n")
    rooted = lint(tmp_path)
    reported = sorted((error["file"], int(error["line"]), error["code"]) for error in errors(rooted.stdout))
    assert ("main.py", 3, "jax-immutable-array") in reported and ("train.py", 5, "jax-immutable-array") in reported, rooted.stdout


TWICE_NAMED = {
    "neighbour_named_like_a_library": {
        # utils/ imports "wandb", which utils/wandb.py also is: utils looks like a scripts' folder
        "train.py": "from utils.train_state import make\n\nstate = make()\nstate[0] = 1.0\n",
        "utils/train_state.py": "import jax\nimport jax.numpy as jnp\n\n\ndef make() -> jax.Array:\n    return jnp.zeros(3)\n",
        "utils/wandb.py": "def log(x: float) -> None:\n    print(x)\n",
        "utils/fid.py": "import wandb\n",
    },
    "module_named_like_the_standard_library": {
        # agents/typing.py, which mypy crawling agents/ alone names "typing"
        "train.py": "from agents import sac\n",
        "agents/typing.py": "import jax\n\nArray = jax.Array\n",
        "agents/sac.py": "import jax.numpy as jnp\nfrom agents.typing import Array\n\nw: Array = jnp.zeros(2)\nw[0] = 1.0\n",
    },
    "relative_import_in_a_folder": {
        "train.py": "from lib import util\n",
        "lib/helpers.py": "import jax\nimport jax.numpy as jnp\n\n\ndef make() -> jax.Array:\n    return jnp.zeros(3)\n",
        "lib/util.py": "from .helpers import make\n\nw = make()\nw[0] = 1.0\n",
    },
}
"""Layouts mypy stops on as they come, each with the one line that raises."""


@pytest.mark.parametrize("name", sorted(TWICE_NAMED))
def test_layouts_mypy_names_from_a_folder_alone_are_named_from_the_root(name: str, tmp_path: Path) -> None:
    files = TWICE_NAMED[name]
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    refused = subprocess.run([str(BIN / "mypy"), "--ignore-missing-imports", "."], cwd=tmp_path, capture_output=True, text=True)
    assert refused.returncode == 2, refused.stdout
    result = lint(tmp_path)
    reported = [(error["file"], error["code"]) for error in errors(result.stdout)]
    assert result.returncode == 1 and reported == [(path, "jax-immutable-array") for path in files if "[0] = 1.0" in files[path]], (
        result.stdout + result.stderr
    )


def test_mypy_workers_from_the_environment_change_nothing(project: Path, first_run: subprocess.CompletedProcess[str]) -> None:
    result = subprocess.run(
        [str(BIN / "jax-stubs"), "lint"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "MYPY_NUM_WORKERS": "2"},
    )
    assert result.stdout.splitlines()[:-2] == first_run.stdout.splitlines()[:-2], result.stdout + result.stderr


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({"latin.py": b"x = '\xe9'\n"}, "decode"),  # mypy 1.19 and 2.4 word it differently
        ({"broken.py": b"x = dict(split='train)\n"}, "leave it out with exclude in [tool.jax-stubs.lint]"),
        ({"pyproject.toml": b'[tool]\njax-stubs = "lint"\n'}, "[tool.jax-stubs.lint] of "),
    ],
)
def test_files_it_cannot_read_exit_2_with_one_line(files: dict[str, bytes], says: str, tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import jax.numpy as jnp\n")
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    result = lint(tmp_path)
    assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(PROBLEM) and says in line and "None" not in line and any(name in line for name in (*files, "pyproject")), line


OLDER_JAX = """\
import jax
import jax.numpy as np
from jax import numpy as jnp
from jax.ops import index_update
import numpy


def step(params, grads, lr: float = 0.1):
    return jax.tree_map(lambda p, g: p - lr * g, params, grads)


def first_row(x: np.DeviceArray) -> np.DeviceArray:
    x = index_update(x, 0, 1.0)
    return np.reshape(x, newshape=(2, -1))[0]


def clipped(x, y):
    jnp.maximum(x, y, out=x)
    kept = jax.tree_map(lambda v: v, x)  # type: ignore[jax-removed-name]
    return numpy.no_such_function(x) + kept


try:
    from jax import tree_map as mapped
except ImportError:
    from jax.tree_util import tree_map as mapped
if hasattr(jax, "tree_multimap"):
    mapped = jax.tree_multimap
"""
"""Code written for an older JAX: each reported line raises on the installed JAX
(``tests/test_contract.py`` holds each row to the runtime); the silenced line, the fallback
under ``try`` and the line under ``hasattr`` are not reported."""


def test_mypys_errors_that_jax_raises_on_are_shown_under_their_codes(tmp_path: Path) -> None:
    (tmp_path / "older.py").write_text(OLDER_JAX)
    result = lint(tmp_path, "older.py")
    found = sorted((int(match["line"]), match["code"]) for match in errors(result.stdout))
    assert found == [
        (4, "jax-removed-name"),  # the import; its use on line 13 is mypy's Any
        (9, "jax-removed-name"),
        (12, "jax-removed-name"),  # mypy says a line's same error once
        (14, "jax-call-signature"),
        (18, "jax-call-signature"),
    ], result.stdout
    assert result.returncode == 1
    assert '"jax.tree_map" was removed in JAX 0.6.0; JAX raises AttributeError' in result.stdout
    assert "note: JAX's note: jax.tree_map was removed in JAX v0.6.0: use jax.tree.map" in result.stdout
    assert '"np.reshape" takes no keyword "newshape"' in result.stdout
    assert '"jnp.maximum" cannot write into "out="; JAX raises NotImplementedError' in result.stdout
    assert 'note: JAX arrays are immutable: assign the result instead ("y = jnp.maximum(...)")' in result.stdout
    again = lint(tmp_path, "older.py")
    assert again.stdout.splitlines()[:-1] == result.stdout.splitlines()[:-1]  # from the cache, the same reports
