#!/usr/bin/env python3
"""How long an editor waits for ``jax-stubs lsp``'s diagnostics.

    python benchmarks/lsp_latency.py [--reps 5] [--json lsp.json]

Run it with the Python of an environment where the jax-stubs wheel is installed with its ``lsp``
extra and pytest-lsp (``.venv-test``). For two modules, each in a fresh project (so lint's cache
starts empty), a client drives the server over stdio as an editor does and times, from the
message sent to the diagnostics received:

- ``open_cold``: the first open of the project, with no cache (mypy reads JAX's stubs);
- ``open_warm``: the module closed and opened again (the cache is warm);
- ``change``: a change to the text while typing (the server waits ``CHANGE_DELAY`` of quiet
  first, included: it is what the user waits);
- ``save``: a save.

The modules: the lint sample (``tests/lint/ported_from_numpy.py``, 120 lines, a misuse of every
rule) and equinox's ``_jit.py`` (a module of a real library, its relative imports written out).
Each figure is the median of ``--reps`` (the cold open: one per fresh project).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import provenance
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "lint" / "ported_from_numpy.py"


def library_module() -> tuple[str, str]:
    """equinox's ``_jit.py``, with ``from .x import y`` written as ``from equinox.x import y``."""
    import equinox

    path = Path(equinox.__file__).parent / "_jit.py"
    text = re.sub(r"^from \.(\w)", r"from equinox.\1", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return "equinox_jit.py", text


async def diagnostics_after(client: LanguageClient, uri: str, send: Any) -> float:
    """Seconds from ``send()`` to the next diagnostics for ``uri``."""
    client.diagnostics.pop(uri, None)
    began = time.perf_counter()
    send()
    while uri not in client.diagnostics:
        await asyncio.wait_for(client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 600)
    return time.perf_counter() - began


async def session(name: str, text: str, reps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n')
        path = project / name
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client = cast(LanguageClient, await ClientServerConfig(server_command=[sys.executable, "-m", "mypy_plugin", "lsp"]).start())
        await client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=project.as_uri()))
        document = lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        identifier = lsp.TextDocumentIdentifier(uri=uri)
        found: dict[str, list[float]] = {"open_cold": [], "open_warm": [], "change": [], "save": []}
        found["open_cold"].append(
            await diagnostics_after(client, uri, lambda: client.text_document_did_open(lsp.DidOpenTextDocumentParams(document)))
        )
        reported = len(client.diagnostics[uri])
        for rep in range(reps):
            client.text_document_did_close(lsp.DidCloseTextDocumentParams(identifier))
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            found["open_warm"].append(
                await diagnostics_after(
                    client, uri, lambda opened=document: client.text_document_did_open(lsp.DidOpenTextDocumentParams(opened))
                )
            )
            version = 2 + rep
            changed = lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=f"{text}\n# edit {rep}\n")],
            )
            found["change"].append(await diagnostics_after(client, uri, lambda change=changed: client.text_document_did_change(change)))
            found["save"].append(
                await diagnostics_after(client, uri, lambda: client.text_document_did_save(lsp.DidSaveTextDocumentParams(identifier)))
            )
            document = lsp.TextDocumentItem(uri=uri, language_id="python", version=version + 1, text=text)
        await client.shutdown_session()
    return {
        "module": name,
        "lines": len(text.splitlines()),
        "diagnostics": reported,
        **{key: round(statistics.median(values), 3) for key, values in found.items()},
        "samples": {key: [round(value, 3) for value in values] for key, values in found.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ["JAX_STUBS_CACHE_DIR"] = ""  # cold means cold: lint's shared analysis off (first_run.py times it)
    results = [asyncio.run(session(name, text, args.reps)) for name, text in [(SAMPLE.name, SAMPLE.read_text()), library_module()]]
    for result in results:
        print(
            f"{result['module']} ({result['lines']} lines, {result['diagnostics']} diagnostics): "
            f"open cold {result['open_cold']} s, open warm {result['open_warm']} s, "
            f"change {result['change']} s, save {result['save']} s"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(provenance.stamped({"results": results}), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
