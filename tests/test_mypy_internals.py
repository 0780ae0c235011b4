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
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mypy.errors import Errors, ErrorWatcher
from mypy.options import Options
from mypy.types import AnyType, NoneType, TypeOfAny, UnionType
from mypy_runs import run_mypy

from mypy_plugin.install import startup
from mypy_plugin.lib import mypy_internals

Test = TypeVar("Test", bound=Callable[..., None])


def reads(read: str) -> Callable[[Test], Test]:
    """Marks a test as the one of ``read``, a name of ``mypy_internals.READS``."""

    def mark(test: Test) -> Test:
        test.tested_reads = (*getattr(test, "tested_reads", ()), read)  # type: ignore[attr-defined]
        return test

    return mark


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
        "TypeInfo.metadata['dataclass']['attributes']": sorted(mypy_internals.dataclass_fields(argument.type) or ["unknown"]),
        "Errors._watchers": shown,
        "Errors.error_info_map": [
            mypy_internals.already_reported(api, ctx.context, "probed"),
            mypy_internals.already_reported(api, ctx.context, "never reported"),
        ],
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


@reads("TypeChecker.tree")
def test_module_tree(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeChecker.tree"] == "shown"


def test_module_tree_holds_the_nodes_the_checker_visits(probed: dict[str, dict[str, Any]]) -> None:
    """A call a hook is given is the very node of its statement in the tree (how
    ``jax-discarded-update`` tells a statement from a value that is used)."""
    assert probed["shown.py:14"]["TypeChecker.tree nodes"] is True
    assert probed["shown.py:17"]["TypeChecker.tree nodes"] is True
    assert probed["shown.py:18"]["TypeChecker.tree nodes"] is False


@reads("Errors.get_watchers")
def test_error_watchers(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["Errors.get_watchers"] is True


@reads("ErrorWatcher._filter")
@pytest.mark.parametrize(("filter_errors", "save", "discards"), [(True, False, True), (True, True, False), (False, False, False)])
def test_watcher_that_discards(filter_errors: bool, save: bool, discards: bool) -> None:
    """A watcher that filters and keeps nothing discards; one that saves what it filters (to
    replay it) or does not filter does not."""
    watcher = ErrorWatcher(Errors(Options()), filter_errors=filter_errors, save_filtered_errors=save)
    assert mypy_internals.discards(watcher) is discards


@reads("MessageBuilder.prefer_simple_messages")
def test_prefer_simple_messages(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["MessageBuilder.prefer_simple_messages"] is False
    assert probed["hidden.py:18"]["MessageBuilder.prefer_simple_messages"] is True


@reads("MessageBuilder.note(parent_error=)")
def test_note_tied_to_its_error(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["MessageBuilder.note(parent_error=)"] is True


@reads("TypeChecker.scope")
def test_current_function(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeChecker.scope"] == "inside"
    assert probed["shown.py:17"]["TypeChecker.scope"] is None


@reads("TypeChecker.lookup_type_or_none")
def test_type_map(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeChecker.lookup_type_or_none"] == "shown.Layer"


@reads("TypeInfo.metadata['dataclass']")
def test_fields_dataclasses_replace_sets(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeInfo.metadata['dataclass']"] == ["w"]


@reads("TypeInfo.metadata['dataclass']['attributes']")
def test_fields_of_a_dataclass(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["TypeInfo.metadata['dataclass']['attributes']"] == ["b", "w"]


@reads("Errors.error_info_map")
def test_an_error_held_is_found(probed: dict[str, dict[str, Any]]) -> None:
    assert probed["shown.py:14"]["Errors.error_info_map"] == [True, False]


@reads("Errors._watchers")
def test_errors_past_the_watchers(probed: dict[str, dict[str, Any]]) -> None:
    """An error reported past a discarding watcher reaches the user (checked in the fixture);
    in a module whose errors are ignored nothing is told shown."""
    assert probed["shown.py:17"]["Errors._watchers"] is True
    assert probed["hidden.py:18"]["Errors._watchers"] is False


@reads("TypeChecker.modules")
def test_class_named(probed: dict[str, dict[str, Any]]) -> None:
    """A class found in the module that defines it (the way to ``jax._src.basearray.Array``)."""
    assert probed["shown.py:14"]["TypeChecker.modules"] == "dataclasses.Field"


@reads("Plugin._modules")
def test_module_loaded() -> None:
    """The modules mypy hands its plugins (``Plugin.set_modules``) are the run's loaded ones."""
    from mypy.nodes import MypyFile
    from mypy.plugin import Plugin

    plugin = Plugin(Options())
    assert mypy_internals.module_loaded(plugin, "flax.linen.module"), "unknown before mypy sets them: looked up"
    plugin.set_modules({"pkg": MypyFile([], [])})
    assert mypy_internals.module_loaded(plugin, "pkg")
    assert not mypy_internals.module_loaded(plugin, "flax.linen.module")


@reads("plugins.default.DefaultPlugin")
def test_default_plugin() -> None:
    from mypy.plugins.default import DefaultPlugin

    found = mypy_internals.default_plugin(Options())
    assert isinstance(found, DefaultPlugin)
    assert found.get_method_hook("functools.partial.__call__") is not None


@reads("messages.format_type")
def test_format_type() -> None:
    from mypy.messages import format_type

    union = UnionType([AnyType(TypeOfAny.explicit), NoneType()])
    assert mypy_internals.format_type(union, Options()) == format_type(union, Options()) == '"Any | None"'


@reads("modulefinder.get_search_dirs")
def test_search_dirs() -> None:
    from mypy.modulefinder import get_search_dirs

    sys_path, site_packages = get_search_dirs(sys.executable)
    assert mypy_internals.search_dirs(sys.executable) == (list(sys_path), list(site_packages))
    assert any(Path(folder, "mypy_plugin").is_dir() for folder in site_packages)


@reads("Options.disable_error_code")
def test_disabled_codes() -> None:
    options = Options()
    options.disable_error_code = ["jax-stubs-mismatch"]
    assert startup.disabled(options, "jax-stubs-mismatch")
    assert not startup.disabled(Options(), "jax-stubs-mismatch")
    assert isinstance(Options().disabled_error_codes, set)


@reads("BuildManager.rechecked_modules")
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


@reads("server.subexpr.get_subexpressions")
def test_subexpressions(tmp_path: Path) -> None:
    """Every expression of a module from mypy's own traverser: each name and call the plugin's
    own walk finds there, and the name a call calls (``bindings.Bindings.calls``)."""
    from mypy import build
    from mypy.modulefinder import BuildSource
    from mypy.nodes import CallExpr, Expression, NameExpr

    from mypy_plugin.lib import nodes

    source = tmp_path / "walked.py"
    source.write_text("def f(x):\n    return [g(y) for y in x]\n\ng = f\nh = lambda z: f(z)\nclass C:\n    w = f([1])\n")
    options = Options()
    options.cache_dir = str(tmp_path / "cache")
    options.preserve_asts = True
    tree = build.build([BuildSource(str(source), "walked")], options).graph["walked"].tree
    assert tree is not None
    found = mypy_internals.subexpressions(tree)
    assert found is not None
    walked = [node for node in nodes.walk(tree.defs) if isinstance(node, (NameExpr, CallExpr))]
    assert {id(node) for node in walked} <= {id(node) for node in found}
    assert sorted(node.callee.name for node in found if isinstance(node, CallExpr) and isinstance(node.callee, NameExpr)) == ["f", "f", "g"]
    assert all(isinstance(node, Expression) for node in found)


@reads("Instance.extra_attrs")
def test_extra_attributes() -> None:
    """An attribute put on an instance is read back, and a copy keeps it (``lib/jitted.py``)."""
    from mypy.nodes import Block, ClassDef, SymbolTable, TypeInfo
    from mypy.types import Instance

    info = TypeInfo(SymbolTable(), ClassDef("Wrapped", Block([])), "probe")
    plain = Instance(info, [])
    kept = mypy_internals.with_extra_attribute(plain, "signature", NoneType())
    assert mypy_internals.extra_attributes(plain) == {}
    assert list(mypy_internals.extra_attributes(kept)) == ["signature"]
    assert list(mypy_internals.extra_attributes(kept.copy_modified())) == ["signature"]


@reads("TypedDictType.readonly_keys")
def test_readonly_keys() -> None:
    """A ``ReadOnly`` key of a TypedDict is read as such (``lib/places.py``)."""
    from mypy.nodes import Block, ClassDef, SymbolTable, TypeInfo
    from mypy.types import Instance, TypedDictType

    fallback = Instance(TypeInfo(SymbolTable(), ClassDef("Point", Block([])), "probe"), [])
    point = TypedDictType({"fixed": NoneType(), "free": NoneType()}, {"fixed", "free"}, {"fixed"}, fallback)
    assert mypy_internals.readonly_keys(point) == frozenset({"fixed"})


@reads("FuncItem.arguments")
def test_parameters_of_a_function_from_the_cache() -> None:
    """A function mypy read from its cache has no ``arguments`` (reading it raises); its names
    and kinds stay, a positional-only one's nameless, as in the function checked afresh."""
    from mypy.nodes import ARG_OPT, ARG_POS, Argument, Block, FuncDef, Var
    from mypy.types import AnyType, TypeOfAny

    def parameter(name: str, kind: Any, pos_only: bool = False) -> Argument:
        return Argument(Var(name), AnyType(TypeOfAny.unannotated), None, kind, pos_only=pos_only)

    fresh = FuncDef("f", [parameter("a", ARG_POS, pos_only=True), parameter("b", ARG_OPT)], Block([]))
    fresh._fullname = "probe.f"
    cached = FuncDef.deserialize(fresh.serialize())
    assert [arg.variable.name for arg in mypy_internals.parameters(fresh) or []] == ["a", "b"]
    assert mypy_internals.parameters(cached) is None
    assert mypy_internals.named_parameters(fresh) == [("a", ARG_POS), ("b", ARG_OPT)]
    assert mypy_internals.named_parameters(cached) == [("", ARG_POS), ("b", ARG_OPT)]


def test_every_read_is_tested() -> None:
    """Each read ``READS`` names has a test here that says it tests it (``reads``), and no test
    claims a read that is not named."""
    claimed = {read for test in globals().values() for read in getattr(test, "tested_reads", ())}
    assert set(mypy_internals.READS) == claimed


PLUGIN_SOURCE = Path(mypy_internals.__file__).resolve().parent.parent
THE_DOORS = {PLUGIN_SOURCE / "lib" / "mypy_internals.py", PLUGIN_SOURCE / "lint" / "mypy_api.py"}
PUBLIC_MODULES = {
    "mypy",
    "mypy.nodes",
    "mypy.patterns",
    "mypy.types",
    "mypy.plugin",
    "mypy.errorcodes",
    "mypy.options",
    "mypy.version",
    "mypy.subtypes",
}
"""What mypy offers plugins (the hook contexts and the types and nodes they carry), and its version."""
NAMED_TUPLE_API = {"_replace", "_fields", "_asdict", "_make"}
OWN_NAMES = {"self", "cls", "os", "sys", "mypy_internals"}
"""Names whose attributes are not mypy's: the object itself, the standard modules, the door."""
INTERNAL_ATTRIBUTES = {
    "get_watchers", "prefer_simple_messages", "disabled_error_codes", "disable_error_code", "lookup_type_or_none",
    "rechecked_modules", "extra_attrs", "copy_with_extra_attr", "readonly_keys", "get_search_dirs", "process_options",
    "arguments",
}  # fmt: skip
"""The reads ``READS`` names, by the attribute a module would use for them (those not also a
name of the plugin interface, such as ``note``)."""


def internal_reads(path: Path) -> list[str]:
    """Where ``path`` imports a mypy module plugins are not offered, reads a private attribute of
    something other than itself, or reads one of ``INTERNAL_ATTRIBUTES``."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "mypy":
            names = {node.module} if node.module != "mypy" else {f"mypy.{alias.name}" for alias in node.names}
            found += [f"{path.name}:{node.lineno} imports {name}" for name in names - PUBLIC_MODULES]
        elif isinstance(node, ast.Import):
            found += [f"{path.name}:{node.lineno} imports {alias.name}" for alias in node.names
                      if alias.name.split(".")[0] == "mypy" and alias.name not in PUBLIC_MODULES]  # fmt: skip
        elif isinstance(node, ast.Attribute):
            private = node.attr.startswith("_") and not node.attr.startswith("__") and node.attr not in NAMED_TUPLE_API
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            if owner not in OWN_NAMES and (private or node.attr in INTERNAL_ATTRIBUTES):
                found.append(f"{path.name}:{node.lineno} reads .{node.attr}")
    return found


def test_mypy_internals_are_read_behind_one_door() -> None:
    """Only ``lib/mypy_internals.py`` (with a fallback for each read) and ``lint/mypy_api.py``
    (lint's build) reach past what mypy offers plugins."""
    modules = sorted(set(PLUGIN_SOURCE.rglob("*.py")) - THE_DOORS)
    assert len(modules) > 30
    assert [read for path in modules for read in internal_reads(path)] == []
    assert internal_reads(PLUGIN_SOURCE / "lib" / "mypy_internals.py"), "the scan finds the reads where they are"
