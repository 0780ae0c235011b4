"""The plugin answers mypy's hook getters from tables built from the rule list: every hook a
rule declares is found under its key, by method name whatever the receiver's class, nothing
else is, each answer is decided once, and hooks of one name run in turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mypy.options import Options
from mypy.plugin import MethodContext
from mypy.types import AnyType, NoneType, Type, TypeOfAny, UninhabitedType

from mypy_plugin import main
from mypy_plugin.rules import RULES


@pytest.fixture(scope="module")
def plugin() -> main.JaxStubsPlugin:
    return main.JaxStubsPlugin(Options())


@pytest.mark.parametrize("kind", ["method_signature_hooks", "method_hooks", "function_signature_hooks", "function_hooks"])
def test_every_declared_hook_is_found(plugin: main.JaxStubsPlugin, kind: str) -> None:
    getter = getattr(plugin, "get_" + kind[: -len("s")])
    for rule in RULES:
        for name in getattr(rule, kind):
            keys = [f"pkg.Sub.{name}", f"{name} of Array"] if kind.startswith("method") else [name]
            for key in keys:
                assert getter(key) is not None, (rule.code.code, key)
                assert getter(key) is getter(key), "decided once"


def test_other_names_get_no_hook(plugin: main.JaxStubsPlugin) -> None:
    for name in ["builtins.str.join", "numpy.ndarray.sum", "jax.numpy.zeros", "to_device_of", "pkg.to_devices"]:
        assert plugin.get_method_hook(name) is None
        assert plugin.get_method_signature_hook(name) is None
        assert plugin.get_function_hook(name) is None
        assert plugin.get_function_signature_hook(name) is None


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
    both = main.in_turn([hook("first", firsts), hook("second", seconds)], main.RETURN_TYPE)
    assert both is not None and both(ctx) is seconds
    assert seen == [("first", mypys), ("second", firsts)]
    assert main.in_turn([], main.RETURN_TYPE) is None
    single = hook("only", seconds)
    assert main.in_turn([single], main.RETURN_TYPE) is single
