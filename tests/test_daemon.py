"""mypy's daemon and incremental mode keep the targeted error correct across edits.

pytest-mypy-plugins runs each case once in a fresh process, so these are scripted here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
CODE = "[jax-to-device-stream]"
MISUSE = "import jax\nimport jax.numpy as jnp\n\njnp.zeros(3).to_device(jax.devices()[0], stream=0)\n"
FIXED = "import jax\nimport jax.numpy as jnp\n\njnp.zeros(3).to_device(jax.devices()[0])\n"


def project(folder: Path, cache: Path) -> Path:
    (folder / "mypy.ini").write_text(f"[mypy]\nplugins = mypy_plugin\ncache_dir = {cache}\n")
    return folder


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(os.environ.get("JAX_STUBS_TEST_MYPY_CACHE") or tmp_path_factory.mktemp("cache"))


@pytest.fixture
def dmypy(tmp_path: Path, cache: Path) -> Iterator[tuple[Path, callable]]:
    folder = project(tmp_path, cache)
    status = folder / ".dmypy.json"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "dmypy"), "--status-file", str(status), *args],
            cwd=folder, capture_output=True, text=True, timeout=300,
        )

    yield folder, run
    run("stop")


def test_daemon_reports_drops_and_reports_again(dmypy: tuple[Path, callable]) -> None:
    folder, run = dmypy
    (folder / "main.py").write_text(MISUSE)
    first = run("run", "--", "main.py")
    assert first.returncode == 1 and f"main.py:4: error:" in first.stdout and CODE in first.stdout
    (folder / "main.py").write_text(FIXED)
    fixed = run("run", "--", "main.py")
    assert fixed.returncode == 0 and "Success" in fixed.stdout, fixed.stdout + fixed.stderr
    (folder / "main.py").write_text(MISUSE)
    again = run("run", "--", "main.py")
    assert again.returncode == 1 and CODE in again.stdout


def test_daemon_follows_a_changed_import_across_files(dmypy: tuple[Path, callable]) -> None:
    folder, run = dmypy
    (folder / "arrays.py").write_text("import jax\n\nclass Batch(jax.Array): ...\n")
    (folder / "main.py").write_text(
        "import jax\nfrom arrays import Batch\n\n"
        "def move(x: Batch) -> jax.Array:\n    return x.to_device(jax.devices()[0], stream=1)\n"
    )
    first = run("run", "--", "main.py", "arrays.py")
    assert first.returncode == 1 and '"Batch.to_device"' in first.stdout
    # Batch now brings its own to_device: the plugin must step back.
    (folder / "arrays.py").write_text(
        "import jax\nfrom typing import Any\n\nclass Batch(jax.Array):\n"
        "    def to_device(self, device: Any, *, stream: Any = None) -> jax.Array:  # type: ignore[override]\n"
        "        return self\n"
    )
    second = run("run", "--", "main.py", "arrays.py")
    assert second.returncode == 0, second.stdout
    (folder / "arrays.py").write_text("import jax\n\nclass Batch(jax.Array): ...\n")
    third = run("run", "--", "main.py", "arrays.py")
    assert third.returncode == 1 and '"Batch.to_device"' in third.stdout


def test_incremental_run_reports_from_a_warm_cache(tmp_path: Path, cache: Path) -> None:
    folder = project(tmp_path, cache)
    (folder / "main.py").write_text(MISUSE)
    runs = [
        subprocess.run([str(BIN / "mypy"), "main.py"], cwd=folder, capture_output=True, text=True)
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stdout == runs[1].stdout and CODE in runs[1].stdout


def test_config_data_names_the_versions() -> None:
    from mypy.options import Options
    from mypy.plugin import ReportConfigContext

    from mypy_plugin import __version__
    from mypy_plugin.main import JaxToDevicePlugin

    data = [
        JaxToDevicePlugin(Options()).report_config_data(ReportConfigContext("m", "m.py", is_check))
        for is_check in (False, True)
    ]
    assert data[0] == data[1]
    assert data[0]["plugin"] == __version__
    assert data[0]["jax"] and data[0]["stubs"]
    json.dumps(data[0])
