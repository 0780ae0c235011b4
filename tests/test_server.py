"""``jax-stubs lsp`` driven as an editor drives it, by an LSP client (pytest-lsp), from the
installed wheel: initialize, open the lint sample (a misuse of every rule), diagnostics, code
actions (a quick fix, the ignore comment, source.fixAll), the edit applied and sent back as a
change, save, close; and the message an editor shows where the environment has no JAX.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest
from cases import PORTED_FROM_NUMPY, marked_misuses
from environments import JAX, linked_environment
from lsprotocol import types as lsp
from mypy_runs import PYTHON
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lint import sample_project

DIAGNOSTICS = lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
WAIT = 300.0
"""Seconds a check may take on a slow machine (the first one reads JAX's stubs)."""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_project(tmp_path_factory.mktemp("lsp-project"))


async def started(server_python: Path, root: Path) -> LanguageClient:
    """A client connected to ``jax-stubs lsp`` of ``server_python``, its session initialized
    on ``root``. (pytest-lsp's client, without its pytest plugin, whose hook breaks the YAML
    items of the rest of the suite: it returns before yielding for items without arguments.)"""
    # -I: the installed package, never a mypy_plugin of the folder the tests run in
    client = cast(LanguageClient, await ClientServerConfig(server_command=[str(server_python), "-I", "-m", "mypy_plugin", "lsp"]).start())
    await client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri()))
    return client


async def published(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    """The next diagnostics the server publishes for ``uri``."""
    while True:
        await asyncio.wait_for(client.wait_for_notification(DIAGNOSTICS), WAIT)
        if uri in client.diagnostics:
            return list(client.diagnostics.pop(uri))


def applied(text: str, action: lsp.CodeAction, uri: str) -> str:
    """``text`` with the action's one edit applied, as an editor applies it."""
    assert action.edit is not None and action.edit.changes is not None
    [edit] = action.edit.changes[uri]
    lines = text.splitlines(keepends=True)
    start, end = edit.range.start, edit.range.end
    assert start.character == end.character == 0
    return "".join(lines[: start.line]) + edit.new_text + "".join(lines[end.line :])


async def changed(client: LanguageClient, uri: str, text: str, version: int) -> list[lsp.Diagnostic]:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    return await published(client, uri)


def lines_and_codes(diagnostics: list[lsp.Diagnostic]) -> list[tuple[int, str]]:
    return sorted((found.range.start.line + 1, str(found.code)) for found in diagnostics)


def test_an_editor_session_on_every_rule(project: Path) -> None:
    asyncio.run(editor_session(project))


async def editor_session(project: Path) -> None:
    client = await started(PYTHON, project)
    path = project / PORTED_FROM_NUMPY.name
    uri, text = path.as_uri(), path.read_text(encoding="utf-8")
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    diagnostics = await published(client, uri)
    assert lines_and_codes(diagnostics) == marked_misuses(), "one diagnostic per rule, where lint reports it"
    for found in diagnostics:
        assert found.source == "jax-stubs" and found.severity == lsp.DiagnosticSeverity.Error
        assert "\n" in found.message, "the notes follow the error"
        assert text.splitlines()[found.range.start.line][found.range.start.character :].strip(), "the range starts at the code"
        assert found.code_description is not None, "each diagnostic links to its code's page"
        page = Path(url2pathname(urlparse(found.code_description.href).path))
        assert page.name == f"{found.code}.md" and page.read_text(encoding="utf-8").startswith(f"# `{found.code}`: ")
        assert "site-packages" in page.parts, "the installed release's page, from the wheel"

    # the quick fix of the item assignment, applied and sent back
    [assignment] = [found for found in diagnostics if found.code == "jax-immutable-array"]
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=assignment.range,
            context=lsp.CodeActionContext(diagnostics=[assignment]),
        )
    )
    assert actions is not None
    titles = [action.title for action in actions if isinstance(action, lsp.CodeAction)]
    assert titles == ['Write "window = window.at[0].set(0.0)"', "Ignore [jax-immutable-array] on this line"]
    fix = actions[0]
    assert isinstance(fix, lsp.CodeAction) and fix.kind == lsp.CodeActionKind.QuickFix and fix.is_preferred
    text = applied(text, fix, uri)
    assert "    window = window.at[0].set(0.0)  # jax-immutable-array\n" in text, "the comment on the line stays"
    diagnostics = await changed(client, uri, text, 2)
    assert lines_and_codes(diagnostics) == [misuse for misuse in marked_misuses() if misuse[1] != "jax-immutable-array"]

    # the ignore comment
    [key] = [found for found in diagnostics if found.code == "jax-prng-key"]
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), range=key.range, context=lsp.CodeActionContext(diagnostics=[key])
        )
    )
    assert actions is not None
    [ignore] = [action for action in actions if isinstance(action, lsp.CodeAction) and action.title.startswith("Ignore")]
    text = applied(text, ignore, uri)
    assert text.splitlines()[key.range.start.line].endswith("  # type: ignore[jax-prng-key]  # jax-prng-key")
    diagnostics = await changed(client, uri, text, 3)
    assert "jax-prng-key" not in {found.code for found in diagnostics}

    # source.fixAll: the safe fixes (kind="mergesort" -> stable=True)
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0)),
            context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.SourceFixAll]),
        )
    )
    assert actions is not None
    [fix_all] = actions
    assert isinstance(fix_all, lsp.CodeAction) and fix_all.kind == lsp.CodeActionKind.SourceFixAll
    text = applied(text, fix_all, uri)
    assert "jnp.sort(jnp.asarray(signal), stable=True)" in text
    diagnostics = await changed(client, uri, text, 4)
    assert "jax-unsupported-argument" not in {found.code for found in diagnostics}

    # saved, then closed
    path.write_text(text, encoding="utf-8")
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert lines_and_codes(await published(client, uri)) == lines_and_codes(diagnostics)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert await published(client, uri) == []
    await client.shutdown_session()


@pytest.fixture(scope="module")
def without_jax(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return linked_environment(tmp_path_factory.mktemp("no-jax") / "env", leave_out=JAX)


def test_without_jax_the_editor_is_told(without_jax: Path, tmp_path: Path) -> None:
    """An environment without JAX: the editor shows why nothing is checked."""

    async def session() -> list[lsp.ShowMessageParams]:
        client = await started(without_jax, tmp_path)
        await asyncio.wait_for(client.wait_for_notification(lsp.WINDOW_SHOW_MESSAGE), WAIT)
        await client.shutdown_session()
        return list(client.messages)

    [message] = asyncio.run(session())
    assert message.type == lsp.MessageType.Error
    assert message.message.startswith("jax-stubs: ") and "jax" in message.message and "pip install" in message.message, message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x = f()\n", "x = f()  # type: ignore[jax-prng-key]\n"),
        ("x = f()\r\n", "x = f()  # type: ignore[jax-prng-key]\r\n"),
        ("x = f()  # the key\n", "x = f()  # type: ignore[jax-prng-key]  # the key\n"),
        ("x = f()  # type:ignore[misc]\n", "x = f()  # type:ignore[jax-prng-key, misc]\n"),
        ("x = f()  # type: ignore\n", "x = f()  # type: ignore\n"),
        ('x = f("#")\n', 'x = f("#")  # type: ignore[jax-prng-key]\n'),
    ],
)
def test_the_ignore_action_writes_what_mypy_reads(text: str, expected: str) -> None:
    from mypy_plugin.lint.server import with_ignore

    assert with_ignore(text, 0, "jax-prng-key") == expected


def test_an_edit_counts_lines_as_editors_do() -> None:
    """A form feed ends no line: the edit replaces the fixed line, not the one after it."""
    from mypy_plugin.lint.server import text_edit

    edit = text_edit("# a\x0c b\nx[0] = 1\ny = 2\n", "# a\x0c b\nx = x.at[0].set(1)\ny = 2\n")
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (1, 2, "x = x.at[0].set(1)\n")
