"""The page of each error code (``docs/rules/<code>.md``): what JAX raises, what is reported and
left alone, the fix, how to silence it. The language server links each diagnostic to its page
and ``jax-stubs rule`` prints it.

The wheel carries the pages inside the package (``mypy_plugin/docs/rules``, pyproject's
``force-include``), so that the link and the text are the installed release's; a checkout has
them at its root.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Final

FOLDERS: Final = (
    Path(__file__).resolve().parent.parent / "docs" / "rules",  # installed from the wheel
    Path(__file__).resolve().parents[2] / "docs" / "rules",  # a checkout
)


@cache
def folder() -> Path | None:
    """Where the pages are, or None for an install without them."""
    return next((found for found in FOLDERS if found.is_dir()), None)


def page_of(code: str) -> Path | None:
    """The page of ``code``, or None where there is none."""
    found = folder()
    page = found / f"{code}.md" if found is not None else None
    return page if page is not None and page.is_file() else None


def titles() -> dict[str, str]:
    """Each code with its page's title (the first line, after the code)."""
    found = folder()
    pages = sorted(found.glob("*.md")) if found is not None else []
    return {page.stem: page.read_text(encoding="utf-8").partition("\n")[0].partition(": ")[2] for page in pages}


def show(code: str | None) -> int:
    """``jax-stubs rule [CODE]``: the page of ``code``, or every code with its title; exits 2 for
    a code without a page."""
    if folder() is None:
        print("jax-stubs rule: error: this install holds no pages (docs/rules): reinstall jax-stubs", file=sys.stderr)
        return 2
    if code is None:
        listed = titles()
        width = max(map(len, listed), default=0)
        for name, title in listed.items():
            print(f"{name:<{width}}  {title}")
        return 0
    page = page_of(code)
    if page is None:
        print(f'jax-stubs rule: error: no rule has the code "{code}"; "jax-stubs rule" lists the codes', file=sys.stderr)
        return 2
    print(page.read_text(encoding="utf-8"), end="")
    return 0
