"""mypy's daemon (what editors run) and incremental mode keep the targeted error correct.

pytest-mypy-plugins runs each case once in a fresh process, so these are scripted here. One
daemon serves the module, so JAX is loaded once; each test writes its own package.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mypy_runs import CORRECT as FIXED
from mypy_runs import MISUSE, Daemon, assert_no_crash, run_mypy, shared_cache

from mypy_plugin.rules.arrays.to_device import DROP_THE_STREAM, SYNCHRONISE

CODE = "[jax-to-device-stream]"
Run = Callable[..., "subprocess.CompletedProcess[str]"]
JITTED = "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef step(x: jax.Array) -> jax.Array:\n    BODY\n    return x\n"
"""A jitted function; ``BODY`` is its first statement."""


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    running = Daemon(tmp_path_factory.mktemp("daemon"), cache=shared_cache(tmp_path_factory.mktemp("cache")))
    yield running
    running.stop()


class Package:
    """A package of one test's modules inside the daemon's folder."""

    def __init__(self, root: Path, name: str) -> None:
        self.root, self.name = root, name
        (root / name).mkdir()
        (root / name / "__init__.py").write_text("")

    def write(self, module: str, text: str) -> str:
        (self.root / self.name / f"{module}.py").write_text(text.replace("PKG", self.name))
        return f"{self.name}/{module}.py"


@pytest.fixture
def package(daemon: Daemon, request: pytest.FixtureRequest) -> Package:
    return Package(daemon.folder, request.node.name.replace("test_", "p_", 1))


@pytest.fixture
def dmypy(daemon: Daemon) -> Run:
    """``dmypy run -- <files>`` on the module's daemon."""
    return daemon.check


def follows_edits(package: Package, dmypy: Run, versions: list[tuple[str, str | None]]) -> None:
    """Write each version of ``main`` in turn and check it on the daemon: the report holds the
    text given (exit status 1), or there is none (None, exit status 0)."""
    for text, expected in versions:
        main = package.write("main", text)
        result = dmypy(main)
        if expected is None:
            assert result.returncode == 0 and "Success" in result.stdout, result.stdout + result.stderr
        else:
            assert result.returncode == 1 and expected.replace("MAIN", main) in result.stdout, result.stdout


def test_daemon_reports_drops_and_reports_again(package: Package, dmypy: Run) -> None:
    follows_edits(package, dmypy, [(MISUSE, "MAIN:4: error: "), (FIXED, None), (MISUSE, CODE)])


def test_daemon_reports_item_assignment_across_edits(package: Package, dmypy: Run) -> None:
    assigns = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n"
    follows_edits(
        package,
        dmypy,
        [
            (assigns, 'MAIN:4: error: "Array" does not support item assignment'),
            (assigns.replace("x[0] = 1.0", "x = x.at[0].set(1.0)"), None),
            (
                assigns.replace("x[0] = 1.0", "x[1:] *= 2.0"),
                'MAIN:4: note: Use ".at[]", which returns an updated copy: "x = x.at[1:].multiply(2.0)"',
            ),
        ],
    )


def test_daemon_follows_a_base_class_in_another_file(package: Package, dmypy: Run) -> None:
    files = [
        package.write("arrays", "import jax\n\nclass Batch(jax.Array): ...\n"),
        package.write(
            "main",
            "import jax\nfrom PKG.arrays import Batch\n\n"
            "def move(x: Batch) -> jax.Array:\n    return x.to_device(jax.devices()[0], stream=1)\n",
        ),
    ]
    first = dmypy(*files)
    assert first.returncode == 1 and '"Batch.to_device"' in first.stdout
    # Batch now brings its own to_device: the plugin must step back.
    package.write(
        "arrays",
        "import jax\nfrom typing import Any\n\nclass Batch(jax.Array):\n"
        "    def to_device(self, device: Any, *, stream: Any = None) -> jax.Array:  # type: ignore[override]\n"
        "        return self\n",
    )
    second = dmypy(*files)
    assert second.returncode == 0, second.stdout
    package.write("arrays", "import jax\n\nclass Batch(jax.Array): ...\n")
    third = dmypy(*files)
    assert third.returncode == 1 and '"Batch.to_device"' in third.stdout


def test_daemon_follows_an_import_that_changes_the_receiver(package: Package, dmypy: Run) -> None:
    buffers = package.write(
        "buffers",
        "import jax\n\nclass HostBuffer:\n    def to_device(self, device: object, *, stream: object = None) -> None: ...\n",
    )
    body = "\n\ndef move(x: Buffer) -> None:\n    x.to_device(0, stream=1)\n"
    main = package.write("main", "from PKG.buffers import HostBuffer as Buffer" + body)
    assert dmypy(main, buffers).returncode == 0
    package.write("main", "from jax import Array as Buffer" + body)
    switched = dmypy(main, buffers)
    assert switched.returncode == 1 and CODE in switched.stdout, switched.stdout + switched.stderr
    package.write("main", "from PKG.buffers import HostBuffer as Buffer" + body)
    assert dmypy(main, buffers).returncode == 0


def test_daemon_in_editor_mode_points_at_the_stream(package: Package, dmypy: Run) -> None:
    """The editor integrations ask for columns, error ends and JSON lines."""
    main = package.write("main", MISUSE)
    result = dmypy(main, options=("--show-column-numbers", "--show-error-end", "-O", "json"))
    assert result.returncode == 1, result.stderr
    [report] = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    stream_value = MISUSE.splitlines()[3].index("stream=0") + len("stream=")
    assert (report["line"], report["column"], report["code"]) == (4, stream_value, "jax-to-device-stream")
    assert report["severity"] == "error" and "NotImplementedError" in report["message"]
    # The notes travel with the error, as its hint: an editor shows them in the same hover.
    assert report["hint"].splitlines() == [DROP_THE_STREAM, SYNCHRONISE]


def test_incremental_run_reports_from_a_warm_cache(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(MISUSE)
    runs = [run_mypy(tmp_path, "main.py") for _ in range(2)]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stdout == runs[1].stdout and CODE in runs[1].stdout


def test_incremental_run_follows_an_edit_of_a_jitted_function(tmp_path: Path) -> None:
    """With the cache of the previous run, the edited module is checked again and its report
    follows the edit; an unchanged one is served from the cache with its report."""
    (tmp_path / "main.py").write_text(JITTED.replace("BODY", "if x.sum() > 0:\n        x = -x"))
    (tmp_path / "other.py").write_text(JITTED.replace("BODY", "n = int(x.max())"))
    first = run_mypy(tmp_path, "main.py", "other.py")
    assert first.returncode == 1 and 'main.py:6: error: "if"' in first.stdout and 'other.py:6: error: "int()"' in first.stdout
    (tmp_path / "main.py").write_text(JITTED.replace("BODY", "x = jnp.where(x.sum() > 0, -x, x)"))
    second = run_mypy(tmp_path, "main.py", "other.py")
    assert "main.py" not in second.stdout and 'other.py:6: error: "int()"' in second.stdout, second.stdout


def test_config_data_names_the_versions() -> None:
    from mypy.options import Options
    from mypy.plugin import ReportConfigContext

    from mypy_plugin import __version__
    from mypy_plugin.main import JaxStubsPlugin

    data = [JaxStubsPlugin(Options()).report_config_data(ReportConfigContext("m", "m.py", is_check)) for is_check in (False, True)]
    assert data[0] == data[1]
    assert data[0]["plugin"] == __version__
    assert data[0]["jax"] and data[0]["stubs"]
    json.dumps(data[0])


def test_config_data_names_the_build_of_the_installed_plugin() -> None:
    """Another build of one version (a checkout installed again after an edit) is another plugin
    to mypy's cache: the digest of the plugin's lines of ``RECORD`` follows their hashes."""
    from mypy_plugin.install import installed

    record = installed.dist_infos([installed.DIST_INFO_NAME], sys.path)[installed.DIST_INFO_NAME]
    lines = installed.record_lines(record)
    build = installed.plugin_build(lines)
    assert build is not None and build == installed.read(sys.path).build
    edited = [line.replace("sha256=", "sha256=0", 1) if line.startswith("mypy_plugin/main.py,") else line for line in lines]
    assert installed.plugin_build(edited) not in (None, build)
    assert installed.plugin_build([line for line in lines if not line.startswith("mypy_plugin/")]) is None


LAYER = "import dataclasses\nimport jax\n\n@dataclasses.dataclass(frozen=True)\nclass Layer:\n    w: jax.Array\n"
UPDATE = "import dataclasses\nfrom PKG.layers import Layer\n\ndef update(layer: Layer) -> None:\n    layer.w[0] = 1.0\n"
REPLACED = '"layer = dataclasses.replace(layer, w=layer.w.at[0].set(1.0))"'
REBOUND = '"layer.w = layer.w.at[0].set(1.0)"'


def test_rewrite_reads_a_class_from_the_cache_as_from_its_source(tmp_path: Path) -> None:
    """A frozen dataclass in a module mypy takes from its cache is rebuilt as one parsed anew."""
    package = Package(tmp_path, "p_cache")
    files = [package.write("layers", LAYER), package.write("main", UPDATE)]
    first = run_mypy(tmp_path, *files, cache=tmp_path / "cache")
    package.write("main", UPDATE + "# edited: only this module is checked again\n")
    second = run_mypy(tmp_path, *files, cache=tmp_path / "cache")
    assert REPLACED in first.stdout and REPLACED in second.stdout, first.stdout + second.stdout


def test_daemon_rewrite_follows_a_class_in_another_file(package: Package, dmypy: Run) -> None:
    files = [package.write("layers", LAYER), package.write("main", UPDATE)]
    assert REPLACED in dmypy(*files).stdout
    package.write("layers", LAYER.replace("(frozen=True)", ""))
    assert REBOUND in dmypy(*files).stdout
    package.write("layers", LAYER)
    assert REPLACED in dmypy(*files).stdout


def test_daemon_follows_edits_of_a_jitted_function(package: Package, dmypy: Run) -> None:
    follows_edits(
        package,
        dmypy,
        [
            (JITTED.replace("BODY", "if x.sum() > 0:\n        x = -x"), 'MAIN:6: error: "if" needs the Python value'),
            (JITTED.replace("BODY", "x = jnp.where(x.sum() > 0, -x, x)"), None),
            (JITTED.replace("BODY", "while x.max() > 1:\n        x = x / 2"), 'MAIN:6: error: "while" needs the Python value'),
        ],
    )


HELPED = JITTED.replace("BODY", "x = clip(x)") + "\n\ndef clip(y: jax.Array) -> jax.Array:\n    HELPER\n    return y\n"
"""A jitted function calling a helper of its module; ``HELPER`` is the helper's first statement."""


def test_daemon_follows_edits_of_a_helper_alone(package: Package, dmypy: Run) -> None:
    """Editing only the helper's body changes the report made there from the jitted function:
    the daemon checks the module again, the decorator with it."""
    follows_edits(
        package,
        dmypy,
        [
            (HELPED.replace("HELPER", "if y.max() > 1:\n        y = y / 2"), 'MAIN:11: error: "if" needs the Python value'),
            (HELPED.replace("HELPER", "y = jnp.where(y.max() > 1, y / 2, y)"), None),
            (HELPED.replace("HELPER", "n = int(y.sum())"), 'MAIN:11: error: "int()" needs the Python value'),
        ],
    )


def test_daemon_reports_in_files_added_while_it_runs(package: Package, dmypy: Run) -> None:
    """The daemon checks new files one target at a time, the jitted function after the helper
    it imports: the report made when it checked the decorator stays."""
    helpers = package.write("helpers", "import jax\n\ndef total(x: jax.Array) -> jax.Array:\n    return x.sum()\n")
    main = package.write(
        "main",
        JITTED.replace("BODY", "if total(x) > 0:\n        x = -x").replace(
            "import jax.numpy as jnp\n", "import jax.numpy as jnp\nfrom PKG.helpers import total\n"
        ),
    )
    first = dmypy(main, helpers)
    assert first.returncode == 1 and f'{main}:7: error: "if"' in first.stdout, first.stdout
    package.write("main", (package.root / main).read_text().replace("if total(x) > 0:", "if x.ndim > 0:"))
    fixed = dmypy(main, helpers)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


STEP = (
    "import jax\nfrom functools import partial\n\n@partial(jax.jit, static_argnames=('mode',))\n"
    "def step(x: jax.Array, mode: str) -> jax.Array:\n    return x\n"
)
TRACED_MODE = STEP.replace("static_argnames=('mode',)", "donate_argnums=()")  # of another size: dmypy sees the edit
CALLER = "import jax.numpy as jnp\nfrom PKG.steps import step\n\nstep(jnp.ones(3), 'relu')\n"
A_STR = ':4: error: Argument "mode" of jitted "step" is a str'


def test_daemon_follows_the_static_parameters_of_a_jitted_function_in_another_file(package: Package, dmypy: Run) -> None:
    """A call is read against what jax.jit keeps on the function it returns: an edit of the
    declaration in one module re-checks the caller in the other."""
    steps = package.write("steps", STEP)
    main = package.write("main", CALLER)
    assert dmypy(main, steps).returncode == 0
    package.write("steps", TRACED_MODE)
    changed = dmypy(main, steps)
    assert changed.returncode == 1 and main + A_STR in changed.stdout, changed.stdout
    package.write("steps", STEP)
    assert dmypy(main, steps).returncode == 0


def test_incremental_run_follows_the_static_parameters_of_a_jitted_function(tmp_path: Path) -> None:
    """What jax.jit keeps goes into mypy's cache with the module: a warm run reports the caller
    as a cold one does, and follows an edit of the declaration."""
    (tmp_path / "steps.py").write_text(TRACED_MODE)
    (tmp_path / "main.py").write_text(CALLER.replace("PKG.", ""))
    runs = [run_mypy(tmp_path, "main.py", "steps.py") for _ in range(2)]
    assert [r.returncode for r in runs] == [1, 1] and runs[0].stdout == runs[1].stdout, runs[1].stdout
    assert "main.py" + A_STR in runs[1].stdout
    (tmp_path / "steps.py").write_text(STEP)
    assert run_mypy(tmp_path, "main.py", "steps.py").returncode == 0


DEFINITIONS = """\
import jax
import jax.numpy as jnp


def scaled(x, factor):
    return x * factor


def stepped(x, n):
    return jnp.zeros(n) + x
"""
USES = """\
import jax
import jax.numpy as jnp

from definitions import scaled, stepped

mapped = jax.vmap(scaled, in_axes=(0, None, 0))
totals = jax.jit(jax.ops.segment_sum)(jnp.ones(3), jnp.array([0, 1, 1]), 2)
moved = jax.jit(stepped)(jnp.ones(3), 3)
"""


def test_incremental_run_reports_on_functions_read_from_the_cache(tmp_path: Path) -> None:
    """After an edit of the caller alone, the functions it transforms (another module's, JAX's)
    come from mypy's cache without their parameters' nodes: the caller's reports are the same
    as in the first run, and nothing crashes."""
    (tmp_path / "definitions.py").write_text(DEFINITIONS)
    (tmp_path / "main.py").write_text(USES)
    cache = tmp_path / ".mypy_cache"
    first = run_mypy(tmp_path, "main.py", "definitions.py", cache=cache)
    assert_no_crash(first)
    assert "main.py:7: error:" in first.stdout and "[jax-jit-call]" in first.stdout, first.stdout
    (tmp_path / "main.py").write_text(USES + "# edited\n")
    second = run_mypy(tmp_path, "main.py", "definitions.py", cache=cache)
    assert_no_crash(second)
    assert second.stdout == first.stdout


DISCARDS = "import jax.numpy as jnp\n\nx = jnp.arange(3.0)\nx.at[0].set(1.0)\n"
SORTS = "import jax\nfrom PKG.arrays import make\n\ndef ranked() -> None:\n    x = make()\n    x.sort()\n    print(x)\n"
ARRAYS = "import jax\nimport jax.numpy as jnp\n\ndef make() -> jax.Array:\n    return jnp.array([2.0, 1.0])\n"


def test_daemon_follows_edits_of_a_discarded_update(package: Package, dmypy: Run) -> None:
    follows_edits(
        package,
        dmypy,
        [
            (DISCARDS, 'MAIN:4: error: Result of "x.at[0].set" is discarded'),
            (DISCARDS.replace("x.at[0]", "x = x.at[0]"), None),
            (DISCARDS.replace("x.at[0].set(1.0)", "x.sort()"), 'MAIN:4: note: Assign the sorted copy: "x = x.sort()"'),
        ],
    )


def test_daemon_follows_a_discarded_sort_whose_array_changes_library(package: Package, dmypy: Run) -> None:
    """Another module decides whether ``x.sort()`` sorts in place (NumPy) or returns a copy
    (JAX): the daemon checks the function again after each edit there, and the report follows."""
    arrays = package.write("arrays", ARRAYS)
    main = package.write("main", SORTS)
    first = dmypy(main, arrays)
    assert first.returncode == 1 and f'{main}:6: error: Result of "x.sort" is discarded' in first.stdout, first.stdout
    package.write("arrays", "import numpy as np\n\ndef make() -> np.ndarray:\n    return np.array([2.0, 1.0])\n")
    numpy_sorts = dmypy(main, arrays)
    assert numpy_sorts.returncode == 0, numpy_sorts.stdout
    package.write("arrays", ARRAYS)
    again = dmypy(main, arrays)
    assert again.returncode == 1 and f"{main}:6:" in again.stdout, again.stdout


def test_incremental_run_follows_a_discarded_update(tmp_path: Path) -> None:
    """A warm run reports as a cold one does; after an edit the report follows the code."""
    (tmp_path / "main.py").write_text(DISCARDS)
    runs = [run_mypy(tmp_path, "main.py") for _ in range(2)]
    assert [r.returncode for r in runs] == [1, 1] and runs[0].stdout == runs[1].stdout, runs[1].stdout
    assert "[jax-discarded-update]" in runs[1].stdout
    (tmp_path / "main.py").write_text(DISCARDS.replace("x.at[0]", "x = x.at[0]"))
    assert run_mypy(tmp_path, "main.py").returncode == 0


NNX_SUBMODULE = """\
import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.linear = nnx.Linear(3, 4, rngs=rngs)
        self.rngs = rngs

    def __call__(self, x):
        x = self.linear(x)
        return x * jax.random.bernoulli(self.rngs.dropout(), 0.5, x.shape)


model = MLP(rngs=nnx.Rngs(0))


def body(carry, x):
    return carry, model(x)


jax.lax.scan(body, None, jnp.ones((2, 3)))
"""


def test_a_report_through_a_librarys_class_is_the_same_from_its_cache(tmp_path: Path) -> None:
    """Following a call into a class of another module (``nnx.Linear``) must not depend on
    whether that module was analysed in this run or read from mypy's cache, where its function
    bodies and arguments are missing: the report is the same, and nothing crashes."""
    pytest.importorskip("flax.nnx")
    (tmp_path / "warm.py").write_text("from flax import nnx\n")
    run_mypy(tmp_path, "warm.py")  # Flax in the cache
    (tmp_path / "main.py").write_text(NNX_SUBMODULE)
    runs = [run_mypy(tmp_path, "main.py") for _ in range(2)]
    for run in runs:
        assert_no_crash(run, statuses=(1,))
    assert runs[0].stdout == runs[1].stdout and "main.py:20: error:" in runs[0].stdout and "[jax-nnx-trace-level]" in runs[0].stdout
