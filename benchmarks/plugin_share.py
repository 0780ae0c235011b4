#!/usr/bin/env python3
"""The plugin's share of one cold mypy run over the sweep's libraries, measured in mypy's process.

Unpacks the sweep's libraries and JAX's Pallas kernels (``sweep.fetch_sources``) and runs a share
tool on them (``--tool``: a script that loads the plugin into mypy's own process, counts every
hook lookup, prices each at its measured extra cost, times every hook, and prints one JSON line
last), cold (an empty cache), with ``check_untyped_defs`` and the imports not installed ignored,
as the sweep checks them. Run it with the Python of the environment ``scripts/test`` builds:

    .venv-test/bin/python benchmarks/plugin_share.py --tool ../shared/tools/plugin_share.py [--held-out] \\
        --json benchmarks/results/share.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402
import sweep  # noqa: E402

CONFIG = sweep.BASE_CONFIG + "plugins = mypy_plugin\nfollow_imports = silent\n"
HELD_OUT = {
    "dm-haiku": "0.0.17",
    "distrax": "0.1.9",
    "rlax": "0.1.9",
    "mctx": "0.0.71",
    "jax-md": "0.2.29",
    "dynamax": "1.0.3",
    "gymnax": "1.0.1",
    "blackjax": "1.7.1",
    "evosax": "0.3.2",
}
"""Nine JAX libraries outside the sweep, which no rule is tuned on (``--held-out``)."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", type=Path, required=True, help="the share tool (prints one JSON line last)")
    parser.add_argument("--json", type=Path, help="write the result here")
    parser.add_argument("--held-out", action="store_true", help="the libraries of HELD_OUT instead of the sweep's")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        packages = sweep.fetch_sources(work, HELD_OUT if options.held_out else None)
        (work / "src" / "mypy.ini").write_text(CONFIG)
        command = [sys.executable, str(options.tool.resolve()), "--config-file", "mypy.ini", "--cache-dir", str(work / "cache"), *packages]
        run = subprocess.run(command, cwd=work / "src", capture_output=True, text=True)
        last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
        if not last.startswith("{"):
            print(run.stdout[-3000:], run.stderr[-3000:], file=sys.stderr)
            return 1
    result = provenance.stamped({**json.loads(last), "packages": packages})
    print(f"plugin share of a cold run: {100 * result['share']:.2f} % (hooks {result['hooks_s']:.2f} s of {result['run_s']:.1f} s)")
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
