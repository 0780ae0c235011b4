"""Loading the plugin, in a run where the versions fit, imports only the plugin's own common
path: no rule (``rules/hooked.py`` lists their hooks; a rule is imported when mypy first asks
for a name it hooks), nothing of what says a problem (``diagnosis``, its ``messages``), and none
of the standard modules that cost start-up time (``benchmarks/startup.py`` times it; this keeps
it so)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mypy_runs import PYTHON

from mypy_plugin.rules import RULE_MODULES

STARTUP = Path(__file__).resolve().parent.parent / "benchmarks" / "startup.py"
NOT_AT_STARTUP = {
    "mypy_plugin.install.diagnosis",
    "mypy_plugin.install.messages",
    "mypy_plugin.__main__",
    "csv",
    "uuid",
    "shlex",
    "inspect",
    "pprint",
    "importlib.metadata",
    *(f"mypy_plugin.rules.{module}" for module in RULE_MODULES),
}


def test_loading_the_plugin_imports_only_its_common_path(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(PYTHON), str(STARTUP), "--runs", "1", "--json", str(tmp_path / "startup.json")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    imported = set(json.loads((tmp_path / "startup.json").read_text())["imported"])
    assert "mypy_plugin.main" in imported and "mypy_plugin.rules.hooked" in imported
    assert not imported & NOT_AT_STARTUP, sorted(imported & NOT_AT_STARTUP)
