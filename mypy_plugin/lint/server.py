"""``jax-stubs lsp``: every rule in the editor, as a language server over stdio (pygls).

Pylance, pyright, basedpyright, pyrefly and ty read the stubs only: they see the ``to_device``
stream and nothing else. This server runs what ``jax-stubs lint`` runs on the document an editor
shows, the unsaved text too (mypy's ``--shadow-file``: the text is written to lint's cache
folder and mypy reads it in place of the file), and sends:

- a diagnostic per report, on open, on save and while typing (``CHANGE_DELAY`` after the last
  keystroke): the error as the message, its notes below it, the code, ``jax-stubs`` as source;
- code actions: the report's fix as a quick fix (``lib/fixes.py``, applied as ``--fix`` applies
  it), an action that adds ``# type: ignore[<code>]`` to the line, and ``source.fixAll`` for
  every safe fix of the document;
- a message in the editor, once, where the environment cannot lint (no mypy, a mypy too old, no
  JAX, stubs of another JAX) or the project's settings are wrong.

The project is the workspace's root, its settings and mypy configuration read as lint reads
them. Checks run one at a time, off the event loop, so the editor's messages are answered
while mypy runs.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any, Final

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from mypy_plugin import __version__
from mypy_plugin.lint import pages

SOURCE: Final = "jax-stubs"
CHANGE_DELAY: Final = 0.4
"""Seconds of quiet after a change before the document is checked again."""
SHADOWS: Final = "lsp"
"""The folder of lint's cache that holds the editor's unsaved texts."""
FIX_ALL: Final = "Fix all safe JAX fixes"
IGNORE: Final = re.compile(r"#\s*type:\s*ignore")
IGNORE_WITH_CODES: Final = re.compile(r"#\s*type:\s*ignore\[")
"""An ignore comment as mypy reads one (spaces are optional)."""


class JaxServer(LanguageServer):
    """The server, with what it keeps between messages: the project's settings, the reports
    published for each document, a check waiting for each, and the lock that keeps mypy to
    one build at a time."""

    def __init__(self) -> None:
        super().__init__(SOURCE, __version__)
        self.root: Path | None = None
        self.settings: Any = None
        self.problem: str | None = None
        self.reports: dict[str, list[Any]] = {}
        self.waiting: dict[str, asyncio.Task[None]] = {}
        self.lock = threading.Lock()
        self.said: set[str] = set()

    def say_once(self, problem: str) -> None:
        """A message the editor shows, once per session for each problem."""
        if problem not in self.said:
            self.said.add(problem)
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=f"jax-stubs: {problem}"))


server = JaxServer()


@server.feature(lsp.INITIALIZED)
def initialized(ls: JaxServer, params: lsp.InitializedParams) -> None:
    """Read the environment and the project's settings once; say in the editor what keeps it
    from checking."""
    from mypy_plugin.lint import codes, environment_problem, settings

    ls.problem = environment_problem(fixing=True)
    if ls.problem is None:
        try:
            ls.settings = settings.read(Path(ls.workspace.root_path or os.getcwd()), codes())
            ls.root = ls.settings.root
            os.chdir(ls.settings.root)
        except settings.SettingsError as error:
            ls.problem = str(error)
    if ls.problem is not None:
        ls.say_once(ls.problem)


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: JaxServer, params: lsp.DidOpenTextDocumentParams) -> None:
    schedule(ls, params.text_document.uri, 0.0)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: JaxServer, params: lsp.DidSaveTextDocumentParams) -> None:
    schedule(ls, params.text_document.uri, 0.0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: JaxServer, params: lsp.DidChangeTextDocumentParams) -> None:
    schedule(ls, params.text_document.uri, CHANGE_DELAY)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: JaxServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.reports.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def schedule(ls: JaxServer, uri: str, delay: float) -> None:
    """Check the document after ``delay``; a later message for it replaces a check still waiting."""
    earlier = ls.waiting.pop(uri, None)
    if earlier is not None:
        earlier.cancel()
    ls.waiting[uri] = asyncio.get_running_loop().create_task(check_later(ls, uri, delay))


async def check_later(ls: JaxServer, uri: str, delay: float) -> None:
    from mypy_plugin.lint import fixing

    await asyncio.sleep(delay)
    if ls.problem is not None or ls.root is None:
        return
    document = ls.workspace.get_text_document(uri)
    if not document.path or not document.path.endswith((".py", ".pyi")) or not inside(ls.root, document.path):
        return  # another project's file, or one of an installed package: not this project's to check
    text, version = document.source, document.version
    reports, problem = await asyncio.to_thread(check_text, ls, document.path, text)
    if problem is not None:
        ls.say_once(problem)
    if ls.workspace.get_text_document(uri).version != version:
        return  # changed while mypy ran: the check waiting now answers
    ls.reports[uri] = reports
    lines = fixing.lines_of(text)
    diagnostics = [diagnostic(report, lines) for report in reports]
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))


def inside(root: Path, path: str) -> bool:
    """Whether ``path`` is in the project's folder (the editor may open any file)."""
    try:
        return Path(path).resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def check_text(ls: JaxServer, path: str, text: str) -> tuple[list[Any], str | None]:
    """The reports of lint for the file at ``path`` (inside the root) holding ``text``, or why
    it cannot check."""
    from mypy_plugin.lint import checked_and_shown, checking

    assert ls.root is not None
    file = os.path.relpath(path, ls.root)
    shadow = ls.root / checking.CACHE / SHADOWS / file
    with ls.lock:
        shadow.parent.mkdir(parents=True, exist_ok=True)
        shadow.write_text(text, encoding="utf-8")
        try:
            _, reports = checked_and_shown([file], ls.settings, {file: str(shadow)})  # none where mypy stopped: a syntax error
        except checking.CannotCheck as error:
            return [], str(error)
    return [report for report in reports if os.path.normpath(report.file) == os.path.normpath(file)], None


def diagnostic(report: Any, lines: list[str]) -> lsp.Diagnostic:
    """The report as the editor shows it: on its line (of ``lines``, the document's) from its
    column to the line's end."""
    line = max(report.line - 1, 0)
    written = lines[line].rstrip("\r\n") if line < len(lines) else ""
    start = utf16_column(written, max(report.column - 1, 0))
    end = max(utf16_column(written, len(written.rstrip().encode("utf-8"))), start)
    return lsp.Diagnostic(
        range=lsp.Range(start=lsp.Position(line=line, character=start), end=lsp.Position(line=line, character=end)),
        message="\n".join([report.message, *report.notes]),
        severity=lsp.DiagnosticSeverity.Error,
        code=report.code,
        code_description=lsp.CodeDescription(href=page.as_uri()) if (page := pages.page_of(report.code)) is not None else None,
        source=SOURCE,
        data={"fix": report.fix},
    )


def utf16_column(line: str, offset: int) -> int:
    """A column of mypy's (UTF-8 bytes) as LSP counts it (UTF-16 code units)."""
    chars = line.encode("utf-8")[:offset].decode("utf-8", errors="ignore")
    return len(chars.encode("utf-16-le")) // 2


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll]),
)
def code_actions(ls: JaxServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """For each of our diagnostics asked about, its fix and the ignore comment; and, where the
    editor asks for source actions, every safe fix of the document at once."""
    from mypy_plugin.lint import fixing

    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    text = document.source
    only = params.context.only
    actions = []
    for found in params.context.diagnostics if only is None or lsp.CodeActionKind.QuickFix in only else []:
        if found.source != SOURCE:
            continue
        fix = found.data.get("fix") if isinstance(found.data, dict) else None
        if fix is not None:
            fixed, count = fixing.applied(text, [fix])
            if count:
                actions.append(action(fix["title"], lsp.CodeActionKind.QuickFix, uri, text, fixed, [found], preferred=True))
        ignored = with_ignore(text, found.range.start.line, str(found.code))
        actions.append(action(f"Ignore [{found.code}] on this line", lsp.CodeActionKind.QuickFix, uri, text, ignored, [found]))
    if only is not None and any(kind.startswith(lsp.CodeActionKind.SourceFixAll) or kind == lsp.CodeActionKind.Source for kind in only):
        safe = [report.fix for report in ls.reports.get(uri, []) if report.fix is not None and report.fix["safe"]]
        fixed, count = fixing.applied(text, safe) if safe else (text, 0)
        if count:
            actions.append(action(FIX_ALL, lsp.CodeActionKind.SourceFixAll, uri, text, fixed, []))
    return actions


def action(
    title: str, kind: str, uri: str, old: str, new: str, diagnostics: list[lsp.Diagnostic], preferred: bool = False
) -> lsp.CodeAction:
    return lsp.CodeAction(
        title=title,
        kind=kind,
        diagnostics=diagnostics or None,
        is_preferred=preferred or None,
        edit=lsp.WorkspaceEdit(changes={uri: [text_edit(old, new)]}),
    )


def text_edit(old: str, new: str) -> lsp.TextEdit:
    """One edit that turns ``old`` into ``new``: the lines between what they share at both ends."""
    from mypy_plugin.lint import fixing

    before, after = fixing.lines_of(old), fixing.lines_of(new)
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return lsp.TextEdit(
        range=lsp.Range(start=lsp.Position(line=start, character=0), end=lsp.Position(line=len(before) - end, character=0)),
        new_text="".join(after[start : len(after) - end]),
    )


def with_ignore(text: str, line: int, code: str) -> str:
    """``text`` with ``# type: ignore[code]`` at the end of ``line`` (the code added to an
    ignore comment already there)."""
    from mypy_plugin.lint import fixing

    lines = fixing.lines_of(text)
    if line >= len(lines):
        return text
    written = lines[line]
    body = written.rstrip("\r\n")
    ending = written[len(body) :]
    comment = comment_start(body)
    listed = IGNORE_WITH_CODES.search(body)
    if listed is not None:
        body = f"{body[: listed.end()]}{code}, {body[listed.end() :]}"
    elif IGNORE.search(body):
        pass  # a bare ignore silences every code already
    elif comment is not None:  # mypy reads an ignore only at the start of the comment
        body = f"{body[:comment].rstrip()}  # type: ignore[{code}]  {body[comment:]}"
    else:
        body = f"{body}  # type: ignore[{code}]"
    lines[line] = body + ending
    return "".join(lines)


def comment_start(line: str) -> int | None:
    """Where the line's comment starts (not a ``#`` in a string); None without one, or where
    the line does not tokenize alone (a part of a longer statement)."""
    import io
    import tokenize

    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT:
                return token.start[1]
    except (tokenize.TokenError, SyntaxError):
        return line.index("#") if "#" in line and not any(quote in line for quote in "\"'") else None
    return None


def main() -> int:
    """Serve over stdio; mypy's and the plugin's prints go to stderr, stdout carries the protocol."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    server.start_io(stdin, stdout)
    return 0
