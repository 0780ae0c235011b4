"""The plugin class: mypy's hook getters, answered from tables built from the rule list.

mypy asks the getters about every call it checks (over 600,000 times in a cold run of the
sweep's libraries, ``benchmarks/README.md``), nearly always about a name no rule knows. Each
getter decides once per full name and answers from a dictionary afterwards. Which rules hook
a name is read from ``rules/hooked.py`` without importing them; a rule's module is imported the
first time a name it hooks is asked. Each hook is wrapped in the guard; where several apply to
one name, they run in turn, each given the previous one's result as mypy's default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from mypy.nodes import TypeInfo
from mypy.options import Options
from mypy.plugin import AttributeContext, FunctionContext, FunctionSigContext, MethodContext, MethodSigContext, Plugin, ReportConfigContext
from mypy.types import CallableType, FunctionLike, Type, get_proper_type

from mypy_plugin import __version__
from mypy_plugin.install import mismatch, startup
from mypy_plugin.lib import (
    errorcodes,  # noqa: F401 (makes every code before mypy checks the configuration's)
    libraries,
    mypy_internals,
)
from mypy_plugin.lib.guard import default_attribute_type, default_return_type, default_signature, guarded
from mypy_plugin.lib.stderr import say
from mypy_plugin.rules import Hooked
from mypy_plugin.rules.hooked import HOOKED

UNLOADED: set[str] = set()
"""The rules whose module failed to load in this process, each said once."""
SIGNATURE_FIELD: Final = "default_signature"
RETURN_TYPE_FIELD: Final = "default_return_type"
ATTRIBUTE_TYPE_FIELD: Final = "default_attr_type"
FIELDS: Final[dict[str, tuple[str, Callable[[Any], Any]]]] = {
    "method_signature_hooks": (SIGNATURE_FIELD, default_signature),
    "function_signature_hooks": (SIGNATURE_FIELD, default_signature),
    "attribute_hooks": (ATTRIBUTE_TYPE_FIELD, default_attribute_type),
}
"""The context field that holds mypy's own result for each kind of hook, and the guard's
fallback that returns it (``default_return_type`` for the kinds not named)."""
RulesOf = Callable[[Mapping[str, Sequence[Hooked]], str], list[tuple[Hooked, str]]]
"""How a getter finds the rules hooking a name: by the name itself, or by a class it names."""


def method_name(fullname: str) -> str:
    """``pkg.Cls.to_device`` and mypy's ``to_device of Cls`` both give ``to_device``."""
    return fullname.partition(" of ")[0].rpartition(".")[2]


def of_method(hooked: Mapping[str, Sequence[Hooked]], fullname: str) -> list[tuple[Hooked, str]]:
    """The rules hooking a method, each with its key: those keyed by its full name (one class's
    method, such as ``functools.partial.__call__``), then those keyed by its name (any receiver,
    the hook deciding)."""
    name = method_name(fullname)
    return [*((rule, fullname) for rule in hooked.get(fullname, [])), *((rule, name) for rule in hooked.get(name, []))]


def of_function(hooked: Mapping[str, Sequence[Hooked]], fullname: str) -> list[tuple[Hooked, str]]:
    """The rules hooking a function, each with its key (the function's full name)."""
    return [(rule, fullname) for rule in hooked.get(fullname, [])]


def of_class(hooked: Mapping[str, Sequence[Hooked]], class_name: str, lookup: Callable[[str], Any]) -> list[tuple[Hooked, str]]:
    """The rules keyed by the class ``class_name`` or a class it derives from, each with its key.
    The class is looked up only where some rule hooks classes of that kind."""
    if not hooked:
        return []
    found = lookup(class_name)
    info = found.node if found is not None else None
    if not isinstance(info, TypeInfo):
        return []
    return [(rule, base.fullname) for base in info.mro for rule in hooked.get(base.fullname, [])]


def class_itself(fullname: str) -> str:
    """The class a constructor hook is asked for: the name is the class's."""
    return fullname


def class_of_attribute(fullname: str) -> str:
    """The class an attribute hook is asked for (``pkg.Linear.weight``: the class that declares it)."""
    return fullname.rpartition(".")[0]


def table(rules: Iterable[Hooked], kind: str) -> dict[str, list[Hooked]]:
    """The rules hooking each name with a hook of ``kind``, in the rules' order."""
    found: dict[str, list[Hooked]] = {}
    for rule in rules:
        for name in getattr(rule, kind):
            found.setdefault(name, []).append(rule)
    return found


def loaded(keyed: Sequence[tuple[Hooked, str]], kind: str, fallback: Callable[[Any], Any]) -> list[Callable[[Any], Any]]:
    """The hooks of ``kind`` that the rules declare under their keys, each behind the guard; a
    rule whose module fails to import is left out, and said."""
    hooks = []
    for rule, key in keyed:
        try:
            hook = getattr(rule.rule(), kind)[key]
        except Exception as error:  # a broken install must not end the type check
            if rule.module not in UNLOADED:
                UNLOADED.add(rule.module)
                say(f"could not load its rule {rule.module} ({type(error).__name__}: {error}); reinstall jax-stubs")
            continue
        hooks.append(guarded(hook, fallback))
    return hooks


def in_turn(hooks: list[Callable[[Any], Any]], default: str) -> Callable[[Any], Any] | None:
    """One hook that runs ``hooks`` in turn, each given the previous one's result as the
    context's ``default`` (``default_signature``, ``default_return_type`` or
    ``default_attr_type``). A signature that is not a plain callable (an overloaded one) ends
    the turn: no later hook could take it."""
    if len(hooks) <= 1:
        return hooks[0] if hooks else None

    def run(ctx: Any) -> Any:
        for hook in hooks:
            result: Type = hook(ctx)  # a signature (FunctionLike) or a return type
            if default == SIGNATURE_FIELD and not isinstance(get_proper_type(result), CallableType):
                return result
            if result is not getattr(ctx, default):  # most hooks only read, and give mypy's back
                ctx = ctx._replace(**{default: result})
        return getattr(ctx, default)

    return run


def after_mypys(mypys_hook: Callable[[str], Any], fullname: str, hooks: Sequence[Callable[[Any], Any]]) -> list[Callable[[Any], Any]]:
    """``hooks``, after mypy's own hook for ``fullname`` if it has one. mypy asks plugins in
    turn and takes the first hook given, custom plugins before its own: without this, a hook
    here for ``functools.partial.__call__`` or ``_ctypes.Array.__setitem__`` would replace
    mypy's support for those names. Names the rules do not hook are left to mypy alone."""
    if not hooks:
        return []
    own = mypys_hook(fullname)
    return [own, *hooks] if own is not None else list(hooks)


class Decided(dict[str, Any]):
    """Hooks by full name, each decided once: the first time a name is asked, ``decide`` gives
    its hook (or None), which is kept. A name asked again is a plain dictionary hit, the
    cheapest answer Python can give the getter mypy calls for every call it checks."""

    def __init__(self, decide: Callable[[str], Any]) -> None:
        super().__init__()
        self.decide = decide

    def __missing__(self, fullname: str) -> Any:
        hook = self[fullname] = self.decide(fullname)
        return hook


class JaxStubsPlugin(Plugin):
    """Reports calls that JAX always rejects at run time, each rule under its own error code.

    When the installed JAX is not the release the stubs describe, it also reports that once
    per run (``install/mismatch.py``), from a signature hook on every call into JAX.
    """

    rules: ClassVar[tuple[Hooked, ...]] = HOOKED
    """The rules whose hooks the getters answer (``typed_jit.py`` adds typed calls)."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        installed, self.mismatch = startup.start(options)
        libraries.INSTALLED.remember(installed)
        self._config_data = {"plugin": __version__, "rules": [rule.codes[0] for rule in self.rules], **installed}
        mismatch_hooks = [guarded(self.mismatch.signature_hook, default_signature)] if self.mismatch else []

        def before(fullname: str) -> list[Callable[[Any], FunctionLike]]:
            """The mismatch report's hook, first on every call into JAX while the versions differ."""
            return mismatch_hooks if mismatch_hooks and mismatch.calls_into_jax(fullname) else []

        mypys = mypy_internals.default_plugin(options)

        def decided(kind: str, of: RulesOf, *also: tuple[str, RulesOf]) -> Decided:
            """The getter's answers for one kind of hook (and the kinds ``also`` asked through
            the same getter): the rules' hooks of each name (looked up with ``of``), after
            mypy's own, the mismatch report's first for a signature."""
            signature = kind.endswith("signature_hooks")
            field, fallback = FIELDS.get(kind, (RETURN_TYPE_FIELD, default_return_type))
            tables = [(each, table(self.rules, each), find) for each, find in ((kind, of), *also)]
            mypys_getter = getattr(mypys, "get_" + kind[: -len("s")])

            def decide(name: str) -> Callable[[Any], Any] | None:
                hooks = [hook for each, hooked, find in tables for hook in loaded(find(hooked, name), each, fallback)]
                first = before(name) if signature else []
                return in_turn(after_mypys(mypys_getter, name, [*first, *hooks]), field)

            return Decided(decide)

        def by_class(class_of: Callable[[str], str]) -> RulesOf:
            """``of_class`` for the class of each name asked (``class_itself``, ``class_of_attribute``)
            with this run's lookup, asked only once a class keying the hooks is loaded: until then
            no class derives from it (most runs never load Flax or Equinox), and no name needs
            looking up."""

            by_class_name: dict[str, list[tuple[Hooked, str]]] = {}
            """The answer for each class, once: a class has many attributes, each asked apart."""

            def rules_of(hooked: Mapping[str, Sequence[Hooked]], fullname: str) -> list[tuple[Hooked, str]]:
                if not any(mypy_internals.module_loaded(self, key.rpartition(".")[0]) for key in hooked):
                    return []
                class_name = class_of(fullname)
                if class_name not in by_class_name:
                    try:
                        by_class_name[class_name] = of_class(hooked, class_name, self.lookup_fully_qualified)
                    except Exception:  # a name mypy's tables cannot resolve: no rule's business
                        by_class_name[class_name] = []
                return by_class_name[class_name]

            return rules_of

        self._method_signature_hooks = decided("method_signature_hooks", of_method)
        self._method_hooks = decided("method_hooks", of_method)
        self._function_signature_hooks = decided("function_signature_hooks", of_function)
        self._function_hooks = decided("function_hooks", of_function, ("constructor_hooks", by_class(class_itself)))
        self._attribute_hooks = decided("attribute_hooks", by_class(class_of_attribute))

    def get_method_signature_hook(self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        return self._method_signature_hooks[fullname]  # type: ignore[no-any-return]

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return self._method_hooks[fullname]  # type: ignore[no-any-return]

    def get_function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        return self._function_signature_hooks[fullname]  # type: ignore[no-any-return]

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return self._function_hooks[fullname]  # type: ignore[no-any-return]

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        return self._attribute_hooks[fullname]  # type: ignore[no-any-return]

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        if self.mismatch is not None:
            return {**self._config_data, "run": self.mismatch.config_data(ctx.path)}
        return self._config_data
