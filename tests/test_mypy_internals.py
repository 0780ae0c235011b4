"""Each read of mypy beyond its plugin interface (``mypy_plugin/lib/mypy_internals.py``) works
on the installed mypy, so that a mypy release that moves one fails here, by name, instead of
silently switching a report to its fallback. The JAX x mypy matrix runs this file on the oldest
and the newest supported mypy.

The reads that need a running checker are made by a probe plugin at a call mypy checks, in a
module whose errors are shown and in one whose errors are ignored; it writes what it read to a
file.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mypy.errors import Errors, ErrorWatcher
from mypy.options import Options
from mypy.types import AnyType, NoneType, TypeOfAny, UnionType
from mypy_runs import run_mypy

from mypy_plugin.install import startup
from mypy_plugin.lib import mypy_internals

PROBE = """\
import json, os
from mypy.errorcodes import ErrorCode
from mypy.plugin import Plugin
from mypy_plugin.lib import checked_module, mypy_internals

CODE = ErrorCode("probe", "probe", "probe")
FOUND = {}


def probe(ctx):
    api = ctx.api
    tree = mypy_internals.module_tree(api)
    function = mypy_internals.current_function(api)
    error = api.fail("probed", ctx.context, code=CODE)
    argument = mypy_internals.type_map_type(api, ctx.args[0][0])
    with api.msg.filter_errors():  # a watcher that discards, as while mypy tries overload items
        with mypy_internals.unwatched(api) as shown:
            if shown:
                api.fail("past the watcher", ctx.context, code=CODE)
    FOUND[f"{api.path}:{ctx.context.line}"] = {
        "TypeChecker.tree": tree.fullname if tree is not None else None,
        "TypeChecker.tree nodes": checked_module.value_discarded(api, ctx.context),
        "Errors.get_watchers": mypy_internals.error_watchers(api) is not None,
        "MessageBuilder.prefer_simple_messages": mypy_internals.prefer_simple_messages(api),
        "MessageBuilder.note(parent_error=)": mypy_internals.note(api, "tied", ctx.context, CODE, error),
        "TypeChecker.scope": function.name if function is not None else None,
        "TypeChecker.lookup_type_or_none": str(argument),
        "TypeInfo.metadata['dataclass']": sorted(mypy_internals.replaceable_fields(argument.type)),
        "Errors._watchers": shown,
        "TypeChecker.modules": getattr(mypy_internals.class_named(api, "dataclasses.Field"), "fullname", None),
    }
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump(FOUND, out)
    return ctx.default_return_type


class Probe(Plugin):
    def get_function_hook(self, fullname):
        return probe if fullname.endswith(".probe") else None


def plugin(version):
    return Probe
"""
TARGET = """\
import dataclasses


@dataclasses.dataclass(frozen=True)
class Layer:
    w: int
    b: int = dataclasses.field(init=False, default=0)


def probe(layer: Layer) -> int: ...


def inside() -> None:
    probe(Layer(1))


probe(Layer(2))
kept = probe(Layer(3))
"""


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """What the probe read, by module and line: ``shown.py`` and ``hidden.py`` (errors ignored),
    in a function (line 14) and at the top level (line 17; 18 in hidden.py, under its comment),
    each a statement of its own, and assigned (line 18)."""
    folder = tmp_path_factory.mktemp("internals")
    (folder / "probe_plugin.py").write_text(PROBE)
    (folder / "shown.py").write_text(TARGET)
    (folder / "hidden.py").write_text("# mypy: ignore-errors\n" + TARGET)
    out = folder / "probed.json"
    result = run_mypy(
        folder,
        "shown.py",
        "hidden.py",
        cache=folder / "cache",
        plugin=False,
        extra="plugins = probe_plugin.py",
        env={**os.environ, "PROBE_OUT": str(out)},
    )
    assert out.exists(), result.stdout + result.stderr
    found: dict[str, dict[str, Any]] = json.loads(out.read_text())
    assert {"hidden.py:18", "shown.py:14", "shown.py:17", "shown.py:18"} <= set(found), found
    assert "shown.py:14: note: tied" in result.stdout, result.stdout
    assert "shown.py:17: error: past the watcher" in result.stdout, result.stdout
    assert "hidden.py" not in result.stdout, result.stdout
    return found


def test_module_tree(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeChecker.tree"] == "shown"


def test_module_tree_holds_the_nodes_the_checker_visits(probed: dict[str, dict[str, Any]]) -> None:
    """A call a hook is given is the very node of its statement in the tree (how
    ``jax-discarded-update`` tells a statement from a value that is used)."""
    assert probed["shown.py:14"]["TypeChecker.tree nodes"] is True
    assert probed["shown.py:17"]["TypeChecker.tree nodes"] is True
    assert probed["shown.py:18"]["TypeChecker.tree nodes"] is False


def test_error_watchers(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["Errors.get_watchers"] is True


@pytest.mark.parametrize(("filter_errors", "save", "discards"), [(True, False, True), (True, True, False), (False, False, False)])
def test_watcher_that_discards(filter_errors: bool, save: bool, discards: bool) -> None:
    """A watcher that filters and keeps nothing discards; one that saves what it filters (to
    replay it) or does not filter does not."""
    watcher = ErrorWatcher(Errors(Options()), filter_errors=filter_errors, save_filtered_errors=save)
    assert mypy_internals.discards(watcher) is discards


def test_prefer_simple_messages(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["MessageBuilder.prefer_simple_messages"] is False
    assert probed["hidden.py:18"]["MessageBuilder.prefer_simple_messages"] is True


def test_note_tied_to_its_error(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["MessageBuilder.note(parent_error=)"] is True


def test_current_function(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeChecker.scope"] == "inside"
    assert probed["shown.py:17"]["TypeChecker.scope"] is None


def test_type_map(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeChecker.lookup_type_or_none"] == "shown.Layer"


def test_fields_dataclasses_replace_sets(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeInfo.metadata['dataclass']"] == ["w"]


def test_errors_past_the_watchers(probed: dict[str, dict[str, Any]]) -> None:
    """An error reported past a discarding watcher reaches the user (checked in the fixture);
    in a module whose errors are ignored nothing is told shown."""
    assert probed["shown.py:17"]["Errors._watchers"] is True
    assert probed["hidden.py:18"]["Errors._watchers"] is False


def test_class_named(probed: dict[str, dict[str, Any]]) -> None:
    """A class found in the module that defines it (the way to ``jax._src.basearray.Array``)."""
    assert probed["shown.py:14"]["TypeChecker.modules"] == "dataclasses.Field"


def test_default_plugin() -> None:
    from mypy.plugins.default import DefaultPlugin

    found = mypy_internals.default_plugin(Options())
    assert isinstance(found, DefaultPlugin)
    assert found.get_method_hook("functools.partial.__call__") is not None


def test_format_type() -> None:
    from mypy.messages import format_type

    union = UnionType([AnyType(TypeOfAny.explicit), NoneType()])
    assert mypy_internals.format_type(union, Options()) == format_type(union, Options()) == '"Any | None"'


def test_search_dirs() -> None:
    from mypy.modulefinder import get_search_dirs

    sys_path, site_packages = get_search_dirs(sys.executable)
    assert mypy_internals.search_dirs(sys.executable) == (list(sys_path), list(site_packages))
    assert any(Path(folder, "mypy_plugin").is_dir() for folder in site_packages)


def test_disabled_codes() -> None:
    options = Options()
    options.disable_error_code = ["jax-stubs-mismatch"]
    assert startup.disabled(options, "jax-stubs-mismatch")
    assert not startup.disabled(Options(), "jax-stubs-mismatch")
    assert isinstance(Options().disabled_error_codes, set)


def test_rechecked_modules(tmp_path: Path) -> None:
    """A build checks a module anew, and the next one takes it from the cache (what
    ``jax-stubs lint`` counts)."""
    from mypy import build
    from mypy.modulefinder import BuildSource

    (tmp_path / "counted.py").write_text("x: int = 1\n")
    options = Options()
    options.cache_dir = str(tmp_path / "cache")
    found = [
        mypy_internals.rechecked_modules(build.build([BuildSource(str(tmp_path / "counted.py"), "counted")], options)) for _ in range(2)
    ]
    assert found[0] is not None and "counted" in found[0]
    assert found[1] is not None and "counted" not in found[1]


def test_every_read_is_tested() -> None:
    tested = {
        "TypeChecker.tree",
        "Errors.get_watchers",
        "ErrorWatcher._filter",
        "MessageBuilder.prefer_simple_messages",
        "MessageBuilder.note(parent_error=)",
        "messages.format_type",
        "modulefinder.get_search_dirs",
        "Options.disable_error_code",
        "TypeChecker.scope",
        "TypeChecker.lookup_type_or_none",
        "TypeInfo.metadata['dataclass']",
        "Errors._watchers",
        "plugins.default.DefaultPlugin",
        "TypeChecker.modules",
        "BuildManager.rechecked_modules",
    }
    assert set(mypy_internals.READS) == tested
