"""One mypy run with the plugin over a project, as a linter needs it.

mypy's options start from the project's own mypy configuration, found as mypy finds it, so what
it says about files and modules holds (``files``, ``exclude``, per-module sections such as
``ignore_errors``, ``disable_error_code``); then linting sets what it needs of the rest:

- the plugin, and no other (a project's other plugins need not be installed where it lints);
  ``mypy_plugin.typed_jit`` where the configuration names it;
- unannotated functions checked (``check_untyped_defs``), so that arrays made by ``jnp`` calls
  are known there; imports followed silently, missing ones ignored;
- a cache of its own, ``.jax_stubs_cache`` in the project's root, so that the project's own
  mypy cache is left as it is and a second run checks only what changed;
- mypy's JSON output, read back into reports (an error and its notes are one object there).

Files that share a module name (two ``conftest.py`` folders without ``__init__.py``, which mypy
refuses) are checked under names made from their paths. Files the exclusions match are left
out even when named one by one (as pre-commit names them).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from io import StringIO
from pathlib import Path
from typing import Any, Final

from mypy_plugin.lint.settings import Settings

CACHE: Final = ".jax_stubs_cache"
TYPED_JIT: Final = "mypy_plugin.typed_jit"
CODE_PREFIX: Final = "jax-"


class CannotCheck(Exception):
    """Why the project cannot be checked, in one line (exit status 2)."""


class Checked:
    """What one run found: the plugin's errors (mypy's JSON objects), errors that stopped mypy,
    how many source files it checked and how many of them again (None where unknown)."""

    __slots__ = ("errors", "blocking", "sources", "rechecked")

    def __init__(self, errors: list[dict[str, Any]], blocking: list[dict[str, Any]], sources: int,
                 rechecked: int | None) -> None:
        self.errors, self.blocking, self.sources, self.rechecked = errors, blocking, sources, rechecked


def check(targets: list[str], settings: Settings) -> Checked:
    """Check ``targets`` (or what the settings or the mypy configuration name, or the root)."""
    from mypy import build
    from mypy.errors import CompileError
    from mypy.fscache import FileSystemCache

    from mypy_plugin.lib import mypy_internals

    fscache = FileSystemCache()
    options, configured_plugins = project_options(fscache)
    sources = source_files(targets, settings, options, fscache)
    lint_options(options, settings.root)
    messages: list[str] = []
    blocking: list[str] = []

    def collect(path: str | None, new: list[str], serious: bool) -> None:
        (blocking if serious else messages).extend(new)

    try:
        result = build.build(sources, options, flush_errors=collect, fscache=fscache,
                             extra_plugins=[plugin_class(configured_plugins)(options)])
    except CompileError as error:  # a blocking error: mypy has said it, streamed or in the exception
        said = [found for found in parsed([*messages, *blocking, *error.messages]) if found.get("severity") == "error"]
        return Checked([], said or parsed([str(error)]), len(sources), None)
    rechecked = mypy_internals.rechecked_modules(result)
    modules = {source.module for source in sources}
    return Checked(
        [error for error in parsed(messages) if str(error.get("code") or "").startswith(CODE_PREFIX)],
        [], len(sources), len(modules & rechecked) if rechecked is not None else None,
    )


def project_options(fscache: Any) -> tuple[Any, list[str]]:
    """mypy's options from the project's configuration, and the plugins it names."""
    from mypy.main import process_options

    stderr = StringIO()
    try:
        _, options = process_options([], stdout=StringIO(), stderr=stderr, require_targets=False, fscache=fscache)
    except SystemExit:
        raise CannotCheck(f"mypy cannot read the project's configuration: {one_line(stderr.getvalue())}") from None
    return options, list(options.plugins)


def source_files(targets: list[str], settings: Settings, options: Any, fscache: Any) -> list[Any]:
    """The files to check, each under a module name of its own, without the excluded ones."""
    from mypy.find_sources import InvalidSourceList, create_source_list

    if not targets:
        named = [relative(settings.root / path) for path in settings.paths]
        targets = named or list(options.files or []) or [relative(settings.root)]
    for target in targets:
        if not os.path.exists(target):
            raise CannotCheck(f"no such file or folder: {target}")
    options.exclude = [*options.exclude, *settings.exclude]
    try:
        sources = create_source_list(targets, options, fscache)
    except InvalidSourceList as error:
        raise CannotCheck(one_line(str(error))) from None
    excluded = [re.compile(pattern) for pattern in options.exclude]
    kept = [source for source in sources
            if source.path is None or not any(pattern.search(Path(source.path).as_posix()) for pattern in excluded)]
    if not kept:
        raise CannotCheck(f"no Python files to check in {', '.join(targets)}")
    return unique_modules(kept)


def unique_modules(sources: list[Any]) -> list[Any]:
    """The sources, those that share a module name renamed after their paths
    (``tests/unit/conftest.py`` -> ``tests.unit.conftest``)."""
    from mypy.modulefinder import BuildSource

    count = Counter(source.module for source in sources)
    renamed = []
    for source in sources:
        if count[source.module] > 1 and source.path is not None:
            module = ".".join(Path(relative(Path(source.path))).with_suffix("").parts).lstrip(".")
            source = BuildSource(source.path, module, source.text, source.base_dir, source.followed)
        renamed.append(source)
    return renamed


LINT_OPTIONS: Final = {
    "plugins": [],  # the plugin is given to the build itself (``plugin_class``)
    "check_untyped_defs": True,
    "ignore_missing_imports": True,
    "follow_imports": "silent",
    "incremental": True,
    "output": "json",
    "show_column_numbers": True,
    "hide_error_codes": False,
    "error_summary": False,
    "pretty": False,
    "color_output": False,
    "warn_unused_ignores": False,
    "warn_unused_configs": False,
    "report_dirs": {},
    "junit_xml": None,
}
"""What linting sets of mypy's options, over the project's own."""
FASTER_CACHE: Final = "fixed_format_cache"
"""mypy's binary cache format: the default from mypy 2.0, an option in 1.19."""


def lint_options(options: Any, root: Path) -> None:
    """What linting needs of mypy's options, over the project's own, and its cache."""
    for name, value in LINT_OPTIONS.items():
        setattr(options, name, value if not isinstance(value, (list, dict)) else type(value)())
    options.cache_dir = str(cache_folder(root))
    if hasattr(options, FASTER_CACHE):
        setattr(options, FASTER_CACHE, True)


def cache_folder(root: Path) -> Path:
    """``.jax_stubs_cache`` in the project's root, holding a ``.gitignore`` that keeps it out of
    version control (as ``.ruff_cache`` and ``.mypy_cache`` do)."""
    folder = root / CACHE
    try:
        folder.mkdir(exist_ok=True)
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# made by jax-stubs lint\n*\n")
    except OSError as error:
        raise CannotCheck(f"cannot write the cache folder {folder}: {error}") from None
    return folder


def plugin_class(configured: list[str]) -> type:
    """The plugin class the project's mypy configuration names (typed calls of jitted
    functions, or the plain one), else the plain one, from the module's entry point."""
    from mypy.version import __version__ as mypy_version

    if TYPED_JIT in configured:
        from mypy_plugin import typed_jit

        return typed_jit.plugin(mypy_version)
    from mypy_plugin import plugin

    return plugin(mypy_version)


def parsed(lines: list[str]) -> list[dict[str, Any]]:
    """mypy's JSON lines as objects; a line that is not one (a crash's text) as its message."""
    found = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            value = {"file": None, "line": -1, "column": -1, "message": line, "hint": None, "code": None, "severity": "error"}
        if isinstance(value, dict):
            found.append(value)
    return found


def relative(path: Path) -> str:
    """``path`` as mypy will print it: relative to the current folder where it is below it."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def one_line(text: str) -> str:
    return " ".join(text.split()) or "(no message)"
