"""The ``jax-stubs`` command (or ``python -m mypy_plugin``): ``check`` and ``lint``.

``jax-stubs check``: do the installed stubs fit the installed JAX, and will mypy load this
plugin?

For CI and for users of checkers other than mypy, which cannot tell. Prints the versions and
any problem, one line each, with the command that fixes it; exits 1 when something is wrong,
0 when the stubs fit. It looks where this Python reads packages, or with
``--python-executable`` where mypy would given the same option. Needs no mypy.

``jax-stubs lint``: every rule of the plugin for projects that do not run mypy (``lint/``);
``jax-stubs lsp`` serves them to an editor; ``jax-stubs rule CODE`` prints a code's page.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from importlib.machinery import PathFinder
from pathlib import Path

from mypy_plugin import __version__
from mypy_plugin.install import messages
from mypy_plugin.install.diagnosis import Diagnosis
from mypy_plugin.install.installed import search_dirs_of

PLUGIN_MODULE = "mypy_plugin"
DESCRIPTION = (
    "Check that the installed jax-stubs describe the installed JAX release and that mypy will "
    "load this plugin; exits 1 on a problem, with the command that fixes it."
)
LINT_DESCRIPTION = (
    "Run mypy with the plugin and print only its reports, each error with its notes; exits 1 when "
    "it reports, 0 when not, 2 when it cannot check. Configured by [tool.jax-stubs.lint] in pyproject.toml."
)
LSP_DESCRIPTION = (
    "Serve the plugin's reports to an editor over stdin and stdout (the Language Server Protocol): "
    "diagnostics on open, change and save, a quick fix where a report offers one, an ignore action, and "
    "source.fixAll. Needs jax-stubs[lsp]."
)
RULE_DESCRIPTION = (
    "Print the page of an error code: what JAX raises and why, what is reported and what is left alone, "
    "the fix and its safety, how to silence it. Without a code, list the codes."
)
VERSION = re.compile(r'^__version__ = "([^"]+)"$', re.MULTILINE)


def check(python_executable: str | None = None) -> int:
    if python_executable is None:
        diagnosis = Diagnosis.of_this_environment()
    else:
        try:
            sys_path, site_packages = search_dirs_of(python_executable)
            diagnosis = Diagnosis.of_environment([*sys_path, *site_packages], python_executable)
        except Exception as error:  # the other Python's failure, said in one line
            print(f"error: cannot read the environment of {python_executable}: {type(error).__name__}: {error}")
            return 1
    if diagnosis.folder is not None:
        print(f"jax-stubs {__version__}: stubs for jax {diagnosis.stubs or '(release unreadable)'} in {diagnosis.folder}")
    else:
        print(f"jax-stubs {__version__}: no stub folder installed where this Python reads packages")
    print(f"jax: {diagnosis.jax or '(not installed)'}")
    print(shared_analysis())
    shadows = shadowing_modules()
    problems = diagnosis.environment_problems() + [problem for problem, same_release in shadows if not same_release]
    for note, same_release in shadows:
        if same_release:
            print(f"note: {note}")
    for problem in problems:
        print(f"error: {problem}")
    if diagnosis.mismatched:
        print(f"error: {diagnosis.mismatch_error()}")
        for note in diagnosis.mismatch_notes():
            print(f"note: {note}")
    elif not problems:
        print("ok: the stubs describe the installed jax")
    return 1 if problems or diagnosis.mismatched else 0


def shared_analysis() -> str:
    """Where lint keeps the analysis of JAX it shares between projects, and how big it is."""
    from mypy_plugin.lint import settings, shared_cache

    try:
        configured = settings.read(Path.cwd(), None).shared_cache
    except settings.SettingsError:  # lint says what is wrong with the section
        configured = None
    try:
        folder = shared_cache.folder(configured)
        if folder is None:
            return f"lint's shared analysis of JAX: off ({shared_cache.ENVIRONMENT} or shared-cache is empty)"
        entries, size = shared_cache.size(folder)
    except (OSError, RuntimeError) as error:  # no home folder, an unreadable one
        return f"lint's shared analysis of JAX: unknown ({type(error).__name__}: {error})"
    return f"lint's shared analysis of JAX: {folder} ({entries} {'entry' if entries == 1 else 'entries'}, {size / 1e6:.0f} MB)"


def shadowing_modules(folder: Path | None = None) -> list[tuple[str, bool]]:
    """A ``mypy_plugin`` that mypy would import instead of this one: from the current folder
    (first on ``sys.path`` under ``python -m mypy``) or from ``PYTHONPATH`` (both ways). Each
    comes with whether it is this release's own source (a checkout of this package: the same
    checks run, a note) or another module (the checks are off, an error)."""
    ours = Path(__file__).resolve().parent
    places = [("python -m mypy run in this folder", [str(folder or Path.cwd())])]
    pythonpath = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    if pythonpath:
        places.append(("mypy with this PYTHONPATH", pythonpath))
    found_shadows = []
    for how, path in places:
        spec = PathFinder.find_spec(PLUGIN_MODULE, path)
        found = Path(spec.origin) if spec is not None and spec.origin else None
        if spec is not None and spec.submodule_search_locations and found is None:
            found = Path(next(iter(spec.submodule_search_locations)))  # a namespace folder
        if found is None or found.resolve() in (ours, ours / "__init__.py"):
            continue
        if declared_version(found) == __version__:
            found_shadows.append((messages.plugin_source_of_this_release(found.parent, how, __version__), True))
        else:
            found_shadows.append((messages.shadowed_plugin(found, how), False))
    return found_shadows


def declared_version(module: Path) -> str | None:
    """The ``__version__`` a ``mypy_plugin`` package's ``__init__.py`` declares, read without
    importing it; None for a single-file module, a namespace folder or an unreadable file."""
    if module.name != "__init__.py":
        return None
    try:
        found = VERSION.search(module.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found.group(1) if found else None


def serve() -> int:
    """``jax-stubs lsp``: the server, or why it cannot start, in one line."""
    from importlib.util import find_spec

    if find_spec("pygls") is None:
        from mypy_plugin.install.diagnosis import Installer

        install = Installer.of_this_python().install(f"jax-stubs[lsp]=={__version__}")
        print(f"jax-stubs lsp: error: the server needs pygls: {install}", file=sys.stderr)
        return 2
    from mypy_plugin.lint import server

    return server.main()


def main(argv: list[str] | None = None) -> int:
    from mypy_plugin.lint.output import FORMS

    parser = argparse.ArgumentParser(
        prog="jax-stubs",
        description="Refined stubs for JAX and a mypy plugin that report JAX calls that always raise, before they run.",
        epilog="Run jax-stubs <command> --help for a command's options.",
    )
    # Before the command, as earlier releases took it: jax-stubs --python-executable PY check
    parser.add_argument("--python-executable", dest="python_executable_before", help=argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{check,lint,lsp,rule}")
    check_command = commands.add_parser(
        "check", help="check that the stubs fit the installed jax and that mypy will load the plugin", description=DESCRIPTION
    )
    check_command.add_argument(
        "--python-executable", metavar="PYTHON", help="look in that Python's environment, as mypy's option of the same name does"
    )
    lint_command = commands.add_parser(
        "lint", help="report JAX calls that always raise (every rule of the plugin)", description=LINT_DESCRIPTION
    )
    lint_command.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files and folders to check (default: paths in [tool.jax-stubs.lint], files in "
        "the mypy configuration, else the project's root)",
    )
    lint_command.add_argument(
        "--output",
        choices=FORMS,
        default="text",
        help="text (mypy's form), github (GitHub Actions annotations) or json (one object per line)",
    )
    lint_command.add_argument("--fix", action="store_true", help="apply the fixes that keep what the code means (needs jax-stubs[lint])")
    lint_command.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix or --diff, also the fixes that change what runs (review them)"
    )
    lint_command.add_argument("--diff", action="store_true", help="print the fixes as a diff and change no file")
    commands.add_parser(
        "lsp",
        help="a language server over stdio: every rule's reports, quick fixes and fix-all in the editor",
        description=LSP_DESCRIPTION,
    )
    rule_command = commands.add_parser(
        "rule", help="print a code's page: what JAX raises, what is reported, the fix", description=RULE_DESCRIPTION
    )
    rule_command.add_argument("code", nargs="?", metavar="CODE", help="an error code, such as jax-traced-value (default: list them)")
    args = parser.parse_args(argv)
    if args.command == "rule":
        from mypy_plugin.lint import pages

        return pages.show(args.code)
    if args.command == "lsp":
        return serve()
    if args.command == "lint":
        from mypy_plugin.lint import FixRequest, run

        status = run(args.paths, args.output, FixRequest(args.fix, args.unsafe_fixes, args.diff))
        sys.stderr.flush()
        os._exit(status)  # as mypy's own command ends: freeing the program mypy built takes seconds
    return check(args.python_executable or args.python_executable_before)


if __name__ == "__main__":
    sys.exit(main())
