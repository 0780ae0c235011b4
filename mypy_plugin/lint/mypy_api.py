"""mypy's build API, as ``jax-stubs lint`` drives it: the one module of lint that calls it.

mypy documents ``mypy.api.run`` (its command line in a function) but not the finer calls lint
needs to run its own plugin over the project's configuration: ``mypy.main.process_options``,
``mypy.find_sources.create_source_list``, ``mypy.build.build`` with ``extra_plugins``,
``CompileError`` and ``FileSystemCache``. They are
called here and nowhere else, so that a mypy release that moves one breaks this file only
(``tests/test_mypy_internals.py`` checks that no other module calls them).
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any


class BuildStopped(Exception):
    """mypy stopped the build at a file it cannot check past (``CompileError``): its messages
    (often none: it has given them to ``collect`` already), and its text as the exception's."""

    def __init__(self, messages: list[str], text: str) -> None:
        super().__init__(text)
        self.messages = messages


def file_system_cache() -> Any:
    """One ``FileSystemCache`` for every call of a lint run, as mypy's command line keeps one."""
    from mypy.fscache import FileSystemCache

    return FileSystemCache()


def options_for(targets: list[str], fscache: Any, stderr: StringIO) -> tuple[list[Any], Any]:
    """``process_options``: the sources and options mypy's command line would have for
    ``targets``, from the project's configuration; its warnings go to ``stderr``. Raises
    ``SystemExit`` where mypy's command line would stop."""
    from mypy.main import process_options

    sources, options = process_options(list(targets), stdout=StringIO(), stderr=stderr, require_targets=False, fscache=fscache)
    return list(sources), options


def sources_for(paths: list[str], options: Any, fscache: Any) -> list[Any]:
    """``create_source_list``: the sources of ``paths`` as ``options`` name their modules."""
    from mypy.find_sources import create_source_list

    return list(create_source_list(paths, options, fscache))


def build(sources: list[Any], options: Any, plugin: Any, fscache: Any, collect: Callable[[str | None, list[str], bool], None]) -> object:
    """``mypy.build.build`` with ``plugin`` added: mypy's messages go to ``collect`` as they come;
    the result (``BuildResult``). Raises ``BuildStopped`` where mypy stops."""
    from mypy import build as mypy_build
    from mypy.errors import CompileError

    try:
        return mypy_build.build(sources, options, flush_errors=collect, fscache=fscache, extra_plugins=[plugin])
    except CompileError as error:
        raise BuildStopped(list(error.messages), str(error)) from None
