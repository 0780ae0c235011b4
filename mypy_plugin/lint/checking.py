"""mypy with the plugin over a project, as a linter needs it.

It runs in the project's root (``settings.Settings.root``), so that paths in the settings, in
the mypy configuration and in the reports all mean the same thing wherever the command started.
mypy's options start from the project's own mypy configuration, found as mypy finds it, so what
it says about files and modules holds (``files``, ``exclude``, per-module sections such as
``ignore_errors``, ``disable_error_code``); then linting sets what it needs of the rest:

- the plugin, and no other (a project's other plugins need not be installed where it lints);
  ``mypy_plugin.typed_jit`` where the configuration names it; no parallel workers (they load
  plugins from the configuration alone);
- unannotated functions checked (``check_untyped_defs``), so that arrays made by ``jnp`` calls
  are known there; imports followed silently, missing ones ignored;
- a cache of its own, ``.jax_stubs_cache`` in the project's root, so that the project's own
  mypy cache is left as it is and a second run checks only what changed;
- mypy's JSON output, read back into reports (an error and its notes are one object there),
  each report with the fix it offers as its last note (``lib/fixes.py``, ``OFFERING_ENTRY``);
  mypy's own errors that are JAX failures on every run (a removed name, a keyword JAX's
  function does not take) under the package's codes (``mypy_errors.py``).

Files the exclusions match are left out even when named one by one (as pre-commit names
them). Files that share a module name (``conftest.py`` in two folders without
``__init__.py``, which mypy refuses in one run) are checked in turns, each under its own name.
A file that mypy names twice (a script's folder imported as a package) is named as the imports
name it (``layout.py``).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from io import StringIO
from pathlib import Path
from typing import Any, Final

from mypy_plugin.lib.fixes import OFFERING_ENTRY
from mypy_plugin.lint import layout, mypy_api, mypy_errors
from mypy_plugin.lint.settings import Settings

CACHE: Final = ".jax_stubs_cache"
TYPED_JIT: Final = "mypy_plugin.typed_jit"
CODE_PREFIX: Final = "jax-"
UNPARSABLE_HINT: Final = "Python cannot run this file either: fix it, or leave it out with exclude in [tool.jax-stubs.lint]"
"""What to do where mypy stops at a file it cannot parse."""


class CannotCheck(Exception):
    """Why the project cannot be checked, in one line (exit status 2)."""


class Checked:
    """What the runs found: the plugin's errors (mypy's JSON objects, each error's notes and
    fix in its hint), the error that stopped mypy (if one did), how many source files were
    checked and how many of them again (None where unknown)."""

    __slots__ = ("errors", "stopped_at", "sources", "rechecked")

    def __init__(self, errors: list[dict[str, Any]], stopped_at: dict[str, Any] | None, sources: int, rechecked: int | None) -> None:
        self.errors, self.stopped_at, self.sources, self.rechecked = errors, stopped_at, sources, rechecked


def check(targets: list[str], settings: Settings, shadows: dict[str, str] | None = None) -> Checked:
    """Check ``targets`` (relative to the root, where this runs), or what the settings or the
    mypy configuration name, or the root; a file in ``shadows`` is read from the file it maps
    to (an editor's unsaved text), as mypy's ``--shadow-file`` reads it."""
    fscache = mypy_api.file_system_cache()
    sources, options = source_files(targets or list(settings.paths), settings, fscache)
    configured_plugins = list(options.plugins)
    lint_options(options, settings.root)
    options.shadow_file = [[file, shadow] for file, shadow in (shadows or {}).items()]
    fill_from_shared_cache(options, settings, configured_plugins, fscache)
    checked = check_in_turns(sources, options, configured_plugins, fscache)
    if layout.refused(checked.stopped_at):
        paths = [source.path for source in sources if source.path is not None]
        for mypy_path in layout.namings(sources, paths, options.explicit_package_bases, list(options.mypy_path)):
            options.explicit_package_bases, options.mypy_path = True, mypy_path
            named = [*mypy_api.sources_for(paths, options, fscache), *(source for source in sources if source.path is None)]
            checked = check_in_turns(named, options, configured_plugins, fscache)
            if not layout.refused(checked.stopped_at):
                break
    if layout.refused(checked.stopped_at):
        assert checked.stopped_at is not None
        checked.stopped_at["message"] = f"{checked.stopped_at['message']}; {layout.SETTINGS_HINT}"
    elif checked.stopped_at is not None and checked.stopped_at.get("code") == "syntax":
        checked.stopped_at["message"] = f"{checked.stopped_at['message']}; {UNPARSABLE_HINT}"
    return checked


def fill_from_shared_cache(options: Any, settings: Settings, configured_plugins: list[str], fscache: Any) -> None:
    """Give the project's first check mypy's analysis of JAX and NumPy from the shared cache
    (``shared_cache.py``), built there first where it is not yet."""
    from mypy_plugin.install import installed
    from mypy_plugin.lib import mypy_internals
    from mypy_plugin.lint import shared_cache

    try:
        shared = shared_cache.folder(settings.shared_cache)
        version = shared_cache.version_folder(options)
        if shared is None or (Path(options.cache_dir) / version).exists():
            return
        sys_path, site_packages = mypy_internals.search_dirs(options.python_executable)
        if installed.read([*sys_path, *site_packages]).has_problems or shared_cache.shadowed_here(site_packages):
            return  # the check's own plugin says the install's problem (a mismatch's config data changes every run)
        key = shared_cache.entry_key(options, plugin_class(configured_plugins)(options), site_packages)

        def build_entry(source_folder: Path, cache_folder: Path) -> bool:
            """The seed checked with no path of the project's (nothing in its root shadows
            what it imports): the entry holds installed packages only."""
            seed_options = options.apply_changes({})
            seed_options.cache_dir, seed_options.shadow_file, seed_options.mypy_path = str(cache_folder), [], []
            seed = mypy_api.sources_for([str(path) for path in source_folder.iterdir()], seed_options, fscache)
            return build(seed, seed_options, configured_plugins, fscache)[1] is None

        shared_cache.fill(Path(options.cache_dir), version, shared, key, build_entry)
    except (Exception, SystemExit):  # never breaks a check (mypy exits on its own crash): without it, only slower
        return


def check_in_turns(sources: list[Any], options: Any, configured_plugins: list[str], fscache: Any) -> Checked:
    """Check ``sources`` in as few builds as keep each module name once in a build."""
    errors: list[dict[str, Any]] = []
    rechecked: int | None = 0
    cache = options.cache_dir
    try:
        for number, turn in enumerate(turns(sources)):
            # Each turn its own cache: there a module name always means the same file (mypy takes
            # a cached module of equal content for fresh, whichever file it was read from).
            options.cache_dir = cache if number == 0 else str(Path(cache) / f"turn-{number + 1}")
            found, stopped_at, again = build(turn, options, configured_plugins, fscache)
            if stopped_at is not None:
                return Checked([], stopped_at, len(sources), None)
            errors += found
            rechecked = rechecked + len(again) if rechecked is not None and again is not None else None
    finally:
        options.cache_dir = cache
    return Checked(errors, None, len(sources), rechecked)


def build(
    sources: list[Any], options: Any, configured_plugins: list[str], fscache: Any
) -> tuple[list[dict[str, Any]], dict[str, Any] | None, set[str] | None]:
    """One mypy build: the plugin's errors, the error that stopped it (or None), and the files
    of the sources it checked again (None where unknown)."""
    from mypy_plugin.lib import mypy_internals

    messages: list[str] = []

    def collect(path: str | None, new: list[str], serious: bool) -> None:
        messages.extend(new)

    try:
        result = mypy_api.build(sources, options, plugin_class(configured_plugins)(options), fscache, collect)
    except mypy_api.BuildStopped as stopped:  # mypy stops right after the file it cannot check past
        said = [found for found in parsed([*messages, *stopped.messages]) if found.get("severity") == "error"]
        said = said or parsed([str(stopped)])
        return [], next(found for found in said if found.get("file") == said[-1].get("file")), None
    rechecked = mypy_internals.rechecked_modules(result)
    everything = parsed(messages)
    plugin_errors = [found for found in everything if found.get("severity") == "error" and is_plugin_code(found.get("code"))]
    reported = {(found.get("file"), found.get("line"), found.get("column")) for found in plugin_errors}
    shadows = {file: shadow for file, shadow in options.shadow_file or []}

    def text_of(path: str) -> str | None:
        return source_text(shadows.get(path, path))

    python = (options.python_version[0], options.python_version[1])
    paths = [source.path for source in sources if source.path is not None]
    for found in [*mypy_errors.translated(everything, text_of, python), *mypy_errors.removed_imports(paths, text_of, python)]:
        where = (found.get("file"), found.get("line"), found.get("column"))
        if where not in reported:  # the plugin's own report there wins, and a line's first translation
            reported.add(where)
            plugin_errors.append(found)
    return plugin_errors, None, {source.path for source in sources if source.module in rechecked} if rechecked is not None else None


def is_plugin_code(code: object) -> bool:
    return str(code or "").startswith(CODE_PREFIX)


def source_text(path: str) -> str | None:
    """A checked file's text (an editor's unsaved text where it gave one), or None."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def source_files(targets: list[str], settings: Settings, fscache: Any) -> tuple[list[Any], Any]:
    """The files to check and mypy's options for them, from the project's configuration: the
    targets as mypy expands them (else the configuration's ``files``, else the root), less the
    files the exclusions match. mypy's own warnings about the configuration go to stderr."""
    for target in targets:
        if not Path(target).exists():
            raise CannotCheck(f"no such file or folder: {target}")
    sources, options = mypy_options(targets, fscache)
    if not sources and not targets:  # nothing named, nothing in the configuration: the root
        sources, options = mypy_options(["."], fscache)
    options.exclude = [*options.exclude, *settings.exclude]
    excluded = [re.compile(pattern) for pattern in options.exclude]
    kept = [
        source for source in sources if source.path is None or not any(pattern.search(Path(source.path).as_posix()) for pattern in excluded)
    ]
    return kept, options


def mypy_options(targets: list[str], fscache: Any) -> tuple[list[Any], Any]:
    """``process_options`` of mypy, as its command line would run for ``targets``."""
    stderr = StringIO()
    try:
        sources, options = mypy_api.options_for(targets, fscache, stderr)
    except SystemExit:
        raise CannotCheck(f"mypy cannot start: {one_line(stderr.getvalue())}") from None
    except Exception as error:  # an unreadable configuration file, said in one line
        raise CannotCheck(f"mypy cannot read the project's configuration: {type(error).__name__}: {error}") from None
    for line in stderr.getvalue().splitlines():
        if line.strip():
            print(f"jax-stubs lint: mypy: {line}", file=sys.stderr)
    return list(sources), options


def turns(sources: list[Any]) -> list[list[Any]]:
    """The sources in as few builds as keep each module name once in a build: every file in
    the first, but the second and later files of a shared name (mypy refuses two modules of one
    name in a build, and a name made up for one would break the imports that reach it)."""
    seen: Counter[str] = Counter()
    found: list[list[Any]] = []
    for source in sources:
        turn = seen[source.module]
        seen[source.module] += 1
        if turn == len(found):
            found.append([])
        found[turn].append(source)
    return found


LINT_OPTIONS: Final = {
    "plugins": [OFFERING_ENTRY],  # the plugin itself is given to the build (``plugin_class``); this makes each report carry its fix
    "num_workers": 0,  # mypy's parallel workers load plugins from the configuration alone
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
    "fixed_format_cache": True,  # mypy's faster cache format, the default from mypy 2.0
}
"""What linting sets of mypy's options, over the project's own (those this mypy has)."""


def lint_options(options: Any, root: Path) -> None:
    """What linting needs of mypy's options, over the project's own, and its cache."""
    for name, value in LINT_OPTIONS.items():
        if hasattr(options, name):
            setattr(options, name, value if not isinstance(value, (list, dict)) else type(value)(value))
    options.cache_dir = str(cache_folder(root))


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


TEXT_LINE: Final = re.compile(
    r"^(?P<file>[^:\s][^:]*?)(?::(?P<line>\d+))?(?::(?P<column>\d+))?: (?P<severity>error|note): "
    r"(?P<message>.*?)(?:  \[(?P<code>[\w-]+)\])?$"
)
"""A line of mypy's text form, ``file[:line[:column]]: error: message  [code]``: mypy says some
errors so whatever the output format (a file it cannot decode; with mypy 1.19, the syntax
error it stops at)."""


def parsed(lines: list[str]) -> list[dict[str, Any]]:
    """mypy's output lines as its JSON objects (a line of its text form read into one; any
    other line as an error whose message is that text)."""
    found = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            text = TEXT_LINE.match(line)
            value = {"file": None, "line": -1, "column": -1, "message": line, "hint": None, "code": None, "severity": "error"}
            if text is not None:
                value.update(
                    file=text["file"],
                    line=int(text["line"] or -1),
                    column=int(text["column"] or 0) - 1,
                    message=text["message"],
                    code=text["code"],
                    severity=text["severity"],
                )
        if isinstance(value, dict):
            found.append(value)
    return found


def one_line(text: str) -> str:
    return " ".join(text.split()) or "(no message)"
