#!/usr/bin/env python3
"""How long a project's first check takes, with lint's shared analysis of JAX and without it.

    python benchmarks/first_run.py [--json first_run.json]

Run it with the Python of an environment where the jax-stubs wheel is installed with its ``lint``
and ``lsp`` extras, pytest-lsp and equinox (``.venv-test``). For two modules (the lint sample and
equinox's ``_jit.py``, as ``lsp_latency.py`` takes them), each with a shared cache folder of its
own that starts empty, side by side in one run:

- ``off``: ``jax-stubs lint``'s first run of a new project with the shared cache turned off (what
  every first run took before it);
- ``first``: the first run of a new project with the shared cache empty (it makes the entry);
- ``second``: the first run of a second project (it copies the entry);
- ``warm``: that project's second run;
- ``lsp_first``, ``lsp_second``, ``lsp_warm``: the language server's first open of a third and a
  fourth project with the same shared cache, emptied again first, and the fourth's reopen.

Each project is a fresh folder holding the module alone, so its own cache starts empty; every
figure is one wall-clock measurement from the command's start (the server's: from the open
sent) to its result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402
from lsp_latency import SAMPLE, diagnostics_after, library_module  # noqa: E402

from mypy_plugin.lint.shared_cache import ENVIRONMENT  # noqa: E402

BIN = Path(sys.executable).parent


def project(parent: Path, name: str, module: str, text: str) -> Path:
    folder = parent / name
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n')
    (folder / module).write_text(text, encoding="utf-8")
    return folder


def lint_seconds(folder: Path, shared: str) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "jax-stubs"), "lint"], cwd=folder, capture_output=True, text=True, env={**os.environ, ENVIRONMENT: shared}
    )
    seconds = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"first_run: jax-stubs lint failed in {folder}:\n{done.stdout}{done.stderr}")
    return seconds, "\n".join(line for line in done.stdout.splitlines() if ": error: " in line)


async def lsp_open(folder: Path, module: str, text: str, reopen: bool) -> list[float]:
    from lsprotocol import types as lsp
    from pytest_lsp import ClientServerConfig, LanguageClient

    uri = (folder / module).as_uri()
    client = cast(LanguageClient, await ClientServerConfig(server_command=[sys.executable, "-m", "mypy_plugin", "lsp"]).start())
    await client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=folder.as_uri()))
    document = lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
    found = [await diagnostics_after(client, uri, lambda: client.text_document_did_open(lsp.DidOpenTextDocumentParams(document)))]
    if reopen:
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri)))
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        found.append(await diagnostics_after(client, uri, lambda: client.text_document_did_open(lsp.DidOpenTextDocumentParams(document))))
    await client.shutdown_session()
    return found


def measure(module: str, text: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        parent = Path(scratch)
        shared = parent / "shared"
        found: dict[str, Any] = {"module": module, "lines": len(text.splitlines())}
        found["off"], off_reports = lint_seconds(project(parent, "off", module, text), "")
        found["first"], first_reports = lint_seconds(project(parent, "first", module, text), str(shared))
        second = project(parent, "second", module, text)
        found["second"], second_reports = lint_seconds(second, str(shared))
        found["warm"], warm_reports = lint_seconds(second, str(shared))
        found["same_reports"] = off_reports == first_reports == second_reports == warm_reports
        shutil.rmtree(shared)
        os.environ[ENVIRONMENT] = str(shared)
        [found["lsp_first"]] = asyncio.run(lsp_open(project(parent, "lsp-first", module, text), module, text, reopen=False))
        second_open = lsp_open(project(parent, "lsp-second", module, text), module, text, reopen=True)
        found["lsp_second"], found["lsp_warm"] = asyncio.run(second_open)
    return {key: round(value, 2) if isinstance(value, float) else value for key, value in found.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = [measure(name, text) for name, text in [(SAMPLE.name, SAMPLE.read_text()), library_module()]]
    print(f"{'module':<24} {'off':>6} {'first':>6} {'second':>7} {'warm':>6} {'lsp 1st':>8} {'lsp 2nd':>8} {'lsp warm':>9}  same reports")
    for result in results:
        print(
            f"{result['module']:<24} {result['off']:>6} {result['first']:>6} {result['second']:>7} {result['warm']:>6} "
            f"{result['lsp_first']:>8} {result['lsp_second']:>8} {result['lsp_warm']:>9}  {result['same_reports']}"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(provenance.stamped({"results": results}), indent=2) + "\n")
    return 0 if all(result["same_reports"] for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
