"""The plugin answers mypy's hook getters from tables built from the rule list: every hook a
rule declares is found under its key, by method name whatever the receiver's class (or by
full name, for one class's method), nothing else is (another plugin's ``__call__`` stays its
own), each answer is decided once, and hooks of one name run in turn, after mypy's own hook
for that name (mypy takes the first plugin's hook, and asks its own plugin last)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest
from mypy.nodes import GDEF, Block, ClassDef, SymbolTable, SymbolTableNode, TypeInfo
from mypy.options import Options
from mypy.plugin import MethodContext
from mypy.plugins.default import DefaultPlugin
from mypy.types import AnyType, NoneType, Type, TypeOfAny, UninhabitedType
from mypy_runs import run_mypy

from mypy_plugin import main
from mypy_plugin.lib.guard import default_return_type
from mypy_plugin.rules import every_rule
from mypy_plugin.rules.hooked import HOOKED

MYPYS_OWN: Final = """\
import ctypes
import functools
from functools import partial, singledispatch


def scale(x: float, factor: float, *, offset: float = 0.0) -> float:
    return x * factor + offset


double = partial(scale, factor=2.0)
reveal_type(double)
reveal_type(double(1.0))
double("a")
double(1.0, offset="b")
partial(scale, 1.0, 2.0, 3.0)
functools.partial(int, "3")(base=10, extra=1)


@singledispatch
def describe(value: object) -> str:
    return "object"


@describe.register
def _(value: int) -> str:
    return "int"


reveal_type(describe(1))
describe()
numbers = (ctypes.c_int * 3)()
numbers[0] = "x"
"""
"""Code that mypy's own plugin types (``functools.partial``, ``singledispatch``, ``ctypes``
arrays): names the rules hook too (``__call__``, ``__setitem__``)."""


@pytest.fixture(scope="module")
def plugin() -> main.JaxStubsPlugin:
    return main.JaxStubsPlugin(Options())


@pytest.mark.parametrize("kind", ["method_signature_hooks", "method_hooks", "function_signature_hooks", "function_hooks"])
def test_every_declared_hook_is_found(plugin: main.JaxStubsPlugin, kind: str) -> None:
    getter = getattr(plugin, "get_" + kind[: -len("s")])
    for rule in every_rule():
        for name in getattr(rule, kind):
            by_name = kind.startswith("method") and "." not in name and " of " not in name
            keys = [f"pkg.Sub.{name}", f"{name} of Array"] if by_name else [name]
            for key in keys:
                assert getter(key) is not None, (rule.code.code, key)
                assert getter(key) is getter(key), "decided once"


def test_other_names_get_no_hook(plugin: main.JaxStubsPlugin) -> None:
    for name in [
        "builtins.str.join",
        "numpy.ndarray.sum",
        "jax.numpy.sin",
        "to_device_of",
        "pkg.to_devices",
        "pkg.Pipe.__call__",
        "returns.pipeline._Pipe.__call__",
    ]:
        assert plugin.get_method_hook(name) is None
        assert plugin.get_method_signature_hook(name) is None
        assert plugin.get_function_hook(name) is None
        assert plugin.get_function_signature_hook(name) is None


CLASSES: Final = (("lib", "Module"), ("pkg", "Block"), ("pkg", "Other"))


def test_class_keyed_hooks_reach_the_classes_deriving_from_the_key() -> None:
    """Constructor and attribute hooks keyed by a class run for its subclasses: mypy asks with the
    class made (``pkg.Block``) or the class declaring the attribute (``pkg.Block.features``)."""
    base, sub, other = (TypeInfo(SymbolTable(), ClassDef(name, Block([])), module) for module, name in CLASSES)
    for info, (module, name) in zip((base, sub, other), CLASSES):
        info._fullname = f"{module}.{name}"
    base.mro, sub.mro, other.mro = [base], [sub, base], [other]
    classes = {info.fullname: SymbolTableNode(GDEF, info) for info in (base, sub, other)}
    hooked = {"lib.Module": [HOOKED[0]]}
    assert main.of_class(hooked, "pkg.Block", classes.get) == [(HOOKED[0], "lib.Module")]
    assert main.of_class(hooked, "pkg.Other", classes.get) == []
    assert main.of_class(hooked, "pkg.missing", classes.get) == []
    assert main.of_class({}, "pkg.Block", classes.get) == []
    assert main.of_class(hooked, main.class_of_attribute("pkg.Block.features"), classes.get) == [(HOOKED[0], "lib.Module")]
    assert main.class_itself("pkg.Block") == "pkg.Block"


def test_hooks_of_one_name_run_in_turn() -> None:
    seen: list[tuple[str, Type]] = []

    def hook(name: str, result: Type) -> Callable[[MethodContext], Type]:
        def run(ctx: MethodContext) -> Type:
            seen.append((name, ctx.default_return_type))
            return result

        return run

    mypys, firsts, seconds = UninhabitedType(), AnyType(TypeOfAny.explicit), NoneType()
    fields: list[Any] = [None] * len(MethodContext._fields)
    ctx = MethodContext(*fields)._replace(default_return_type=mypys)
    both = main.in_turn([hook("first", firsts), hook("second", seconds)], main.RETURN_TYPE_FIELD)
    assert both is not None and both(ctx) is seconds
    assert seen == [("first", mypys), ("second", firsts)]
    assert main.in_turn([], main.RETURN_TYPE_FIELD) is None
    single = hook("only", seconds)
    assert main.in_turn([single], main.RETURN_TYPE_FIELD) is single


def test_mypys_own_hook_runs_first_where_a_rule_hooks_the_same_name() -> None:
    get_mypys = DefaultPlugin(Options()).get_method_hook
    name = "functools.partial.__call__"
    own = get_mypys(name)
    assert own is not None
    assert main.after_mypys(get_mypys, name, []) == [], "a name no rule hooks is left to mypy"
    chained = main.after_mypys(get_mypys, name, [default_return_type])
    assert chained == [own, default_return_type]


def test_mypys_own_support_is_unchanged(tmp_path: Path) -> None:
    """``functools.partial``, ``singledispatch`` and ``ctypes`` arrays: the same report with the
    plugin as without it, errors included."""
    (tmp_path / "own.py").write_text(MYPYS_OWN)
    without = run_mypy(tmp_path, "own.py", plugin=False)
    with_plugin = run_mypy(tmp_path, "own.py")
    assert without.stdout.count("error:") >= 5, without.stdout
    assert with_plugin.stdout == without.stdout


def test_typed_calls_only_with_their_entry_point() -> None:
    """``mypy_plugin.typed_jit`` adds the signature hook that types calls of jitted functions;
    ``mypy_plugin`` leaves those calls as JAX's stubs type them."""
    from mypy_plugin import typed_jit

    name = "jax._src.pjit.JitWrapped.__call__"
    typed = typed_jit.plugin("2.4.1")(Options())
    assert typed.get_method_signature_hook(name) is not None
    assert main.JaxStubsPlugin(Options()).get_method_signature_hook(name) is None
    assert typed.get_method_hook(name) is not None and main.JaxStubsPlugin(Options()).get_method_hook(name) is not None


def test_the_hooked_table_is_what_the_rules_declare() -> None:
    """``rules/hooked.py``, read at start-up instead of the rules, lists exactly their hooks."""
    script = Path(__file__).resolve().parent.parent / "scripts" / "generate_hooked.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_rule_is_imported_when_a_name_it_hooks_is_asked() -> None:
    """Loading the plugin imports no rule; asking for ``to_device`` imports that rule alone, with
    its family's package and the part of the family's engine it uses."""
    code = (
        "import sys\nfrom mypy.options import Options\nfrom mypy_plugin.main import JaxStubsPlugin\n"
        "plugin = JaxStubsPlugin(Options())\n"
        "before = {m for m in sys.modules if m.startswith('mypy_plugin.rules.')}\n"
        "assert plugin.get_method_hook('jax.Array.to_device') is not None\n"
        "after = {m for m in sys.modules if m.startswith('mypy_plugin.rules.')}\n"
        "print(sorted(before), sorted(after - before))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0, result.stderr
    family = "mypy_plugin.rules.arrays"
    imported = f"['{family}', '{family}.receivers', '{family}.to_device']"
    assert result.stdout.strip().split(maxsplit=1) == ["['mypy_plugin.rules.hooked']", imported], result.stdout
