#!/usr/bin/env python3
"""The plugin's share of one cold mypy run over the sweep's libraries, measured in mypy's process.

Unpacks the sweep's libraries and JAX's Pallas kernels (``sweep.fetch_sources``) and runs a share
tool on them (``--tool``: a script that loads the plugin into mypy's own process, counts every
hook lookup, prices each at its measured extra cost, times every hook, and prints one JSON line
last), cold (an empty cache), with ``check_untyped_defs`` and the imports not installed ignored,
as the sweep checks them. Run it with the Python of the environment ``scripts/test`` builds:

    .venv-test/bin/python benchmarks/plugin_share.py --tool ../shared/tools/plugin_share.py \\
        --json benchmarks/results/share.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep  # noqa: E402

CONFIG = sweep.BASE_CONFIG + "plugins = mypy_plugin\nfollow_imports = silent\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", type=Path, required=True, help="the share tool (prints one JSON line last)")
    parser.add_argument("--json", type=Path, help="write the result here")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        packages = sweep.fetch_sources(work)
        (work / "src" / "mypy.ini").write_text(CONFIG)
        command = [sys.executable, str(options.tool.resolve()), "--config-file", "mypy.ini", "--cache-dir", str(work / "cache"), *packages]
        run = subprocess.run(command, cwd=work / "src", capture_output=True, text=True)
        last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
        if not last.startswith("{"):
            print(run.stdout[-3000:], run.stderr[-3000:], file=sys.stderr)
            return 1
    result = {**json.loads(last), "packages": packages, "machine": {"cores": os.cpu_count(), "python": platform.python_version()}}
    print(f"plugin share of a cold run: {100 * result['share']:.2f} % (hooks {result['hooks_s']:.2f} s of {result['run_s']:.1f} s)")
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
