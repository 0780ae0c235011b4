"""What the README, the guides (``docs/*.md``) and the rule pages (``docs/rules/<code>.md``) show
works as printed, and every link between them leads somewhere.

Every Python block is one of two kinds:

- **the JAX way** (no marker): it runs under JAX on the CPU and type-checks without an error in
  mypy (plugin on, unannotated bodies checked) and in the four other checkers;
- **a misuse**: lines marked ``# error [<code>]: raises <Exception>``, ``: each call raises
  <Exception>`` (a declaration that every later call of it trips), ``: its use after raises
  <Exception>`` (a store that a later line trips), ``: the call raises <Exception>`` (a call that
  raises in the block's code it runs, a module's ``__call__``) or ``: runs, changes nothing``.
  mypy with the plugin reports exactly the marked lines, under the marked codes (mypy's own code
  first where it reports one too: ``# error [arg-type, <code>]``), and the block,
  run, raises that exception (or a subclass of it) from the marked line (from a later line for a
  declaration or a store, through it for a call), or runs to its end. A misuse of a code that ``jax-stubs lint`` shows for one of
  mypy's own errors (``lint/mypy_errors.py``) is read from lint instead. An output block right after it (lines ``example.py:...``)
  is what mypy prints for it, word for word.

Each page documents one code (the codes of ``lib/errorcodes.py``, one page each) in the same
sections, shows at least one misuse of its own code with mypy's output and the JAX way, and the
README's table links every page. Only ```` ```python ```` fences are read: a page uses no other
spelling of them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest
from checkers import CHECKERS, PYREFLY_CONFIG, Diagnostic, run
from mypy.errorcodes import ErrorCode
from mypy_runs import PYTHON, run_mypy

from mypy_plugin.lib import errorcodes
from mypy_plugin.lib.reporting import CATEGORY
from mypy_plugin.lint import mypy_errors

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDES = sorted((ROOT / "docs").glob("*.md"))
"""The documents beside the README: installing, mypy, lint, checkers, editors, releases, internals."""
PAGES = sorted((ROOT / "docs" / "rules").glob("*.md"))
CODES = sorted(value.code for value in vars(errorcodes).values() if isinstance(value, ErrorCode) and value.category == CATEGORY)
SECTIONS = ["What JAX raises", "What is reported", "What is left alone", "The fix", "Silencing"]
"""The sections of every page, in this order (as ``## <name>``)."""
MARKER = re.compile(
    r"# error \[(?:(?P<mypys>[a-z-]+), )?(?P<code>[a-z-]+)\]: "
    r"(?:(?P<later>each call |its use after |the call )?raises (?P<raises>\w+)|runs, changes nothing)$"
)
CANARY = "import jax.numpy as jnp\n\nwrong: int = jnp.zeros(3)\n"
"""Checked beside the JAX-way blocks: its one error shows that a checker read the folder and JAX."""
RUNNER = """\
import json, runpy, sys, traceback
path = sys.argv[1]
try:
    runpy.run_path(path, run_name="__main__")
except Exception as error:
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == path]
    raised = [kind.__name__ for kind in type(error).__mro__]
    print(json.dumps({"raised": raised, "line": lines[-1] if lines else None, "through": lines}))
else:
    print(json.dumps({"raised": None}))
"""
"""Runs a misuse block and prints what it raised and from which of its lines."""


class Block(NamedTuple):
    """A Python block of a document: where it is, its text, its marked lines (line in the block:
    code, the exception's name or ``None`` for a block that runs, and where it raises: ``""``
    from the line, else the marker's words for a later line or a call through it), and the output
    block that follows it, if any (its lines)."""

    where: str
    text: str
    marked: dict[int, tuple[str, str | None, str]]
    output: list[str] | None
    mypys: dict[int, str]
    """mypy's own code at a marked line where mypy reports one too (``# error [arg-type,
    jax-random-shape]: ...``): the plugin's run shows it, lint does not."""


def blocks_of(document: Path) -> list[Block]:
    text = document.read_text(encoding="utf-8")
    found = []
    for match in re.finditer(r"```python\n(.*?)```\n", text, re.DOTALL):
        marked = {}
        mypys = {}
        for number, line in enumerate(match[1].splitlines(), start=1):
            if marker := MARKER.search(line):
                marked[number] = (marker["code"], marker["raises"], marker["later"] or "")
                if marker["mypys"]:
                    mypys[number] = marker["mypys"]
        output = re.match(r"\n[^\n]*\n\n```\n(example\.py:.*?)```\n", text[match.end() :], re.DOTALL)
        where = f"{document.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 2}"
        found.append(Block(where, match[1], marked, output[1].splitlines() if output else None, mypys))
    return found


BLOCKS = [block for document in [README, *GUIDES, *PAGES] for block in blocks_of(document)]
JAX_WAY = [block for block in BLOCKS if not block.marked]
MISUSES = [block for block in BLOCKS if block.marked]


def folder_of(blocks: list[Block], root: Path) -> Path:
    for index, block in enumerate(blocks):
        (root / f"block_{index}.py").write_text(block.text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def jax_way(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The JAX-way blocks as ``block_<n>.py`` in one folder that every checker reads."""
    root = folder_of(JAX_WAY, tmp_path_factory.mktemp("jax_way").resolve())
    (root / "canary.py").write_text(CANARY)
    (root / "pyrefly.toml").write_text(PYREFLY_CONFIG)
    return root


@pytest.fixture(scope="module")
def misuses(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return folder_of(MISUSES, tmp_path_factory.mktemp("misuses").resolve())


def mypy_output(folder: Path, count: int, *others: str) -> dict[str, list[str]]:
    """What mypy prints for each ``block_<n>.py`` of ``folder`` and for ``others``, by file: its
    lines, each without the file's name."""
    files = [*others, *(f"block_{index}.py" for index in range(count))]
    result = run_mypy(folder, *files, extra="check_untyped_defs = True")
    assert result.stderr == "", result.stderr
    printed: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        if match := re.match(r"(\w+\.py)(:\d+: (?:error|note): .*)$", line):
            printed.setdefault(match[1], []).append(match[2])
        else:
            assert re.match(r"Found \d+ errors? in |Success: ", line), result.stdout
    return printed


def errors_of(printed: list[str]) -> list[tuple[int, str]]:
    """The errors (line, code) among a file's printed lines."""
    return [(int(match[1]), match[2]) for line in printed if (match := re.match(r":(\d+): error: .*\[([a-z-]+)\]$", line))]


def test_every_code_has_a_page_with_its_sections() -> None:
    assert [page.stem for page in PAGES] == CODES
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert text.startswith(f"# `{page.stem}`: "), page
        assert re.findall(r"^## (.*)$", text, re.MULTILINE) == SECTIONS, page
        silencing = text.split("## Silencing", 1)[1]
        assert f"# type: ignore[{page.stem}]" in silencing, page


@pytest.mark.parametrize("code", [code for code in CODES if code != errorcodes.STUBS_MISMATCH.code])
def test_every_rule_page_shows_a_misuse_of_its_code_its_report_and_the_jax_way(code: str) -> None:
    page = f"docs/rules/{code}.md:"
    shown = [block for block in MISUSES if block.where.startswith(page)]
    assert shown, f"{page} shows no misuse"
    assert {code for block in shown for code, _, _ in block.marked.values()} == {code}
    assert shown[0].output is not None, f"{page} shows no output after its first misuse"
    assert any(block.where.startswith(page) for block in JAX_WAY), f"{page} shows no JAX way"


def test_python_is_fenced_one_way() -> None:
    for document in [README, *GUIDES, *PAGES]:
        assert not re.search(r"^\s*```(py|python3|pycon)\s*$", document.read_text(encoding="utf-8"), re.MULTILINE), document


DESCRIPTIONS = {
    value.code: value.description for value in vars(errorcodes).values() if isinstance(value, ErrorCode) and value.category == CATEGORY
}
"""Each code's one description (``lib/errorcodes.py``)."""


@pytest.mark.parametrize("code", CODES)
def test_each_page_is_titled_with_its_codes_description(code: str) -> None:
    title = (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8").partition("\n")[0]
    assert title == f"# `{code}`: {DESCRIPTIONS[code]}"


def test_the_readme_table_says_each_codes_description() -> None:
    rows = re.findall(r"^\| \[`([a-z-]+)`\]\(docs/rules/[a-z-]+\.md\) \| (.*?) \|", README.read_text(encoding="utf-8"), re.MULTILINE)
    assert rows and all(described == DESCRIPTIONS[code] for code, described in rows), rows


def test_every_figure_comes_from_its_result() -> None:
    """Every figure the documents print between markers is the one its benchmark result holds."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("figures", ROOT / "scripts" / "figures.py")
    assert spec is not None and spec.loader is not None
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    printed = [match for document in figures.documents() for match in figures.MARK.finditer(document.read_text(encoding="utf-8"))]
    assert len(printed) >= 10, "the documents print their figures between markers"
    assert figures.differences() == []


def test_a_figure_older_than_what_it_measures_says_its_revision(tmp_path: Path) -> None:
    """A result that records no revision, or whose revision is older than a commit that changed
    what it measures, fails unless the paragraph printing its figure also prints the revision."""
    import figures
    import provenance  # on the path figures sets: the helper that wrote the results' revisions

    first = provenance.git("rev-list", "--max-parents=0", "HEAD")
    head = provenance.git("rev-parse", "HEAD")
    if not first or not head:
        pytest.skip("no git history here")
    assert figures.outdated("share.json", {}) == "records no revision: run its script again"
    assert figures.outdated("share.json", {"revision": head}) is None
    assert "commits changed what it measures" in (figures.outdated("share.json", {"revision": first.split()[0]}) or "")
    loaded = {"share.json": {"revision": first.split()[0], "share": 0.01, "hooks_s": 1.0, "run_s": 100.0}}
    bare = "The share: <!-- figure:share.percent -->1.00 %<!-- /figure -->.\n"
    stated = bare.replace(".\n", " (at <!-- figure:share.revision -->x<!-- /figure -->).\n")
    assert figures.unstated_revisions(figures.ROOT / "README.md", bare, loaded)
    assert figures.unstated_revisions(figures.ROOT / "README.md", stated, loaded) == []


LINK = re.compile(r"\]\((?P<target>[^)\s#]*)(?:#(?P<anchor>[^)\s]+))?\)")


def anchors(document: Path) -> set[str]:
    """The anchors GitHub gives ``document``'s headings: lower case, punctuation but ``-`` dropped."""
    headings = re.findall(r"^#+ (.+)$", document.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("document", [README, *GUIDES, *PAGES], ids=lambda document: str(document.relative_to(ROOT)))
def test_every_link_leads_somewhere(document: Path) -> None:
    """A relative link names a file of the repository, and its anchor a heading there."""
    broken = []
    for link in LINK.finditer(document.read_text(encoding="utf-8")):
        target = link["target"]
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path = (document.parent / target).resolve() if target else document
        if not path.exists():
            broken.append(link[0])
        elif link["anchor"] and path.suffix == ".md" and link["anchor"] not in anchors(path):
            broken.append(link[0])
    assert broken == []


def test_the_readme_links_every_page() -> None:
    text = README.read_text(encoding="utf-8")
    linked = re.findall(r"^\| \[`([a-z-]+)`\]\(docs/rules/([a-z-]+)\.md\) \|", text, re.MULTILINE)
    assert [code for code, _ in linked] == [page for _, page in linked]
    assert sorted(code for code, _ in linked) == CODES


def test_every_misuse_block_raises_once() -> None:
    for block in MISUSES:
        raising = [line for line, (_, raises, _) in block.marked.items() if raises is not None]
        assert len(raising) <= 1, f"{block.where}: only the first raise runs; one raising line per block"


@pytest.mark.parametrize("index", range(len(JAX_WAY)), ids=[block.where for block in JAX_WAY])
def test_jax_way_runs(index: int, jax_way: Path) -> None:
    result = subprocess.run(
        [str(PYTHON), f"block_{index}.py"], cwd=jax_way, capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"}
    )
    assert result.returncode == 0, JAX_WAY[index].text + result.stderr[-3000:]


def test_jax_way_passes_mypy_with_the_plugin(jax_way: Path) -> None:
    printed = mypy_output(jax_way, len(JAX_WAY), "canary.py")
    assert errors_of(printed.pop("canary.py", [])) == [(3, "assignment")]
    assert printed == {}, {JAX_WAY[int(name[6:-3])].where: found for name, found in printed.items()}


@pytest.mark.parametrize("name", CHECKERS)
def test_jax_way_has_no_error_in(name: str, jax_way: Path) -> None:
    diagnostics: list[Diagnostic] = run(CHECKERS[name], PYTHON, jax_way)
    errors = [d for d in diagnostics if d.severity == "error"]
    assert [(d.file, d.line) for d in errors] == [("canary.py", 3)], "\n".join(map(str, errors))


def shown_by_lint(block: Block) -> bool:
    """A misuse of a code that ``jax-stubs lint`` shows for one of mypy's own errors."""
    return {code for code, _, _ in block.marked.values()} <= mypy_errors.CODES


def test_misuses_are_reported_on_their_lines_as_the_pages_print(misuses: Path) -> None:
    printed = mypy_output(misuses, len(MISUSES))
    for index, block in enumerate(MISUSES):
        if shown_by_lint(block):
            continue  # mypy reports the line under its own code: the next test reads lint
        expected = sorted([*((line, code) for line, (code, _, _) in block.marked.items()), *block.mypys.items()])
        assert sorted(errors_of(printed.get(f"block_{index}.py", []))) == expected, block.where
        if block.output is not None:
            assert ["example.py" + line for line in printed[f"block_{index}.py"]] == block.output, block.where


def test_lint_shows_its_codes_on_their_lines_as_the_pages_print(misuses: Path) -> None:
    """The misuses of the codes lint shows for mypy's own errors, through the installed
    ``jax-stubs lint``: the marked lines under the marked codes, and the output as printed."""
    indexes = [index for index, block in enumerate(MISUSES) if shown_by_lint(block)]
    assert indexes, "the pages of lint's codes show misuses"
    command = [str(PYTHON.parent / "jax-stubs"), "lint", *(f"block_{index}.py" for index in indexes)]
    result = subprocess.run(command, cwd=misuses, capture_output=True, text=True)
    printed: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        if match := re.match(r"(\w+\.py)(:\d+:\d+: (?:error|note): .*)$", line):
            printed.setdefault(match[1], []).append(match[2])
    for index in indexes:
        block = MISUSES[index]
        found = [
            (int(match[1]), match[2])
            for line in printed.get(f"block_{index}.py", [])
            if (match := re.match(r":(\d+):\d+: error: .*\[([a-z-]+)\]$", line))
        ]
        assert sorted(found) == sorted((line, code) for line, (code, _, _) in block.marked.items()), (
            block.where,
            result.stdout,
            result.stderr,
        )
        if block.output is not None:
            assert ["example.py" + line for line in printed[f"block_{index}.py"]] == block.output, block.where


@pytest.mark.parametrize("index", range(len(MISUSES)), ids=[block.where for block in MISUSES])
def test_misuse_raises_from_its_line(index: int, misuses: Path) -> None:
    block = MISUSES[index]
    path = misuses / f"block_{index}.py"
    result = subprocess.run(
        [str(PYTHON), "-c", RUNNER, str(path)], capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"}
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout.splitlines()[-1])
    raising = [(line, raises, later) for line, (_, raises, later) in block.marked.items() if raises is not None]
    if not raising:
        assert outcome == {"raised": None}, f"{block.where}: {outcome}"
        return
    [(line, raises, later)] = raising
    assert outcome["raised"] is not None and raises in outcome["raised"], f"{block.where}: {outcome}\n{result.stderr[-2000:]}"
    if later == "the call ":
        assert line in outcome["through"], f"{block.where}: raised through lines {outcome['through']}, not {line}"
    elif later:
        assert outcome["line"] is not None and outcome["line"] > line, (
            f"{block.where}: raised from line {outcome['line']}, not a call after {line}"
        )
    else:
        assert outcome["line"] == line, f"{block.where}: raised from line {outcome['line']} of the block, not {line}"


def test_jax_stubs_rule_prints_the_installed_page() -> None:
    """``jax-stubs rule CODE``, the installed command, prints the page (the wheel's copy: its
    package has no checkout around it to read one from); without a code it lists them all."""
    command = str(PYTHON.parent / "jax-stubs")
    for page in PAGES:
        shown = subprocess.run([command, "rule", page.stem], capture_output=True, text=True)
        assert (shown.returncode, shown.stdout) == (0, page.read_text(encoding="utf-8")), page
    listed = subprocess.run([command, "rule"], capture_output=True, text=True)
    assert listed.returncode == 0 and [line.split()[0] for line in listed.stdout.splitlines()] == CODES
    assert [line.split(maxsplit=1)[1] for line in listed.stdout.splitlines()] == [DESCRIPTIONS[code] for code in CODES]
    unknown = subprocess.run([command, "rule", "jax-nothing"], capture_output=True, text=True)
    assert (unknown.returncode, unknown.stdout) == (2, "") and unknown.stderr.startswith(
        'jax-stubs rule: error: no rule has the code "jax-nothing"'
    )
