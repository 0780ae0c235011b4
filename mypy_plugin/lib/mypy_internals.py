"""Every read of mypy that its plugin interface does not promise, each with its fallback.

mypy promises plugins the hook contexts and ``CheckerPluginInterface`` (``fail``, ``msg``,
``options``, ``path``, ``get_expression_type``, ...). The plugin needs a few things beyond
that; each is read here and nowhere else, so that a mypy release that moves one breaks this
file only, and each falls back on what keeps the user's type check as mypy's own: the report
that needs it is placed more simply, or not made. ``READS`` names them; the test
``tests/test_mypy_internals.py`` checks each on the installed mypy (the JAX x mypy matrix runs
it on the oldest and newest supported mypy).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.errors import ErrorInfo
from mypy.nodes import ArgKind, Argument, Block, Context, Expression, FuncDef, FuncItem, MypyFile, TypeInfo
from mypy.options import Options
from mypy.plugin import CheckerPluginInterface, Plugin
from mypy.types import CallableType, Instance, Type, TypedDictType, get_proper_type

READS: Final = (
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
    "TypeInfo.metadata['dataclass']['attributes']",
    "Errors._watchers",
    "plugins.default.DefaultPlugin",
    "TypeChecker.modules",
    "BuildManager.rechecked_modules",
    "server.subexpr.get_subexpressions",
    "Instance.extra_attrs",
    "TypedDictType.readonly_keys",
    "FuncItem.arguments",
    "Errors.error_info_map",
    "Plugin._modules",
)
"""What this module reads of mypy beyond the plugin interface, one name per function below."""


DATACLASS_FIELD: Final = "dataclasses.Field"


def module_tree(api: CheckerPluginInterface) -> MypyFile | None:
    """``TypeChecker.tree``: the syntax tree of the module being checked, whose nodes are the
    very ones the checker visits (a hook's context is found in it by identity). Fallback: None,
    and callers act as for a module that imports nothing (no Pallas note; a mismatch report at
    line 1) and holds no statement (no discarded update reported); were the nodes ever copies,
    no identity would hold, with the same effect."""
    tree = getattr(api, "tree", None)
    return tree if isinstance(tree, MypyFile) else None


def error_watchers(api: CheckerPluginInterface) -> list[object] | None:
    """``Errors.get_watchers()``: the watchers that catch errors while mypy tries something
    (an overload item, a type context). Fallback: None (unknown)."""
    get_watchers = getattr(getattr(api.msg, "errors", None), "get_watchers", None)
    if get_watchers is None:
        return None
    try:
        return list(get_watchers())
    except Exception:  # an internal that changed shape: unknown
        return None


def already_reported(api: CheckerPluginInterface, context: Context, message: str) -> bool:
    """``Errors.error_info_map``: whether mypy already holds ``message`` at ``context``'s line of
    the file being checked. A rule that reports a line from each of several hooks asks it
    first: mypy drops a repeated error's notes along with the repeat (``remove_duplicates``
    keeps the first error but drops every note whose error equals a removed one). What the
    daemon checks again starts without its old errors, so it is reported again there.
    Fallback: False (reported again)."""
    try:
        errors = api.msg.errors
        held = errors.error_info_map.get(errors.file, [])
        return any(info.line == context.line and info.message == message for info in held)
    except Exception:  # an internal that changed shape
        return False


def discards(watcher: object) -> bool:
    """``ErrorWatcher._filter`` and ``._filtered``: whether a watcher throws away what it
    catches (it filters, and keeps no list to replay). Fallback: a watcher that cannot be read
    counts as discarding, so nothing is reported into it."""
    return getattr(watcher, "_filter", True) is not False and getattr(watcher, "_filtered", None) is None


def prefer_simple_messages(api: CheckerPluginInterface) -> bool:
    """``MessageBuilder.prefer_simple_messages()``: whether mypy shows no error reported now (a
    module whose errors are hidden, an expression only tried). Fallback: False."""
    prefer = getattr(api.msg, "prefer_simple_messages", None)
    try:
        return bool(prefer()) if prefer is not None else False
    except Exception:  # an internal that changed shape
        return False


def errors_are_kept(api: CheckerPluginInterface) -> bool:
    """Whether an error reported now reaches the user: mypy does not prefer simple messages,
    and no watcher discards it. Watchers that keep what they catch and replay it (mypy 2 checks
    most expressions so) are fine. Fallback, without the list of watchers: kept."""
    if prefer_simple_messages(api):
        return False
    watchers = error_watchers(api)
    return watchers is None or not any(discards(watcher) for watcher in watchers)


def note(api: CheckerPluginInterface, text: str, context: Context, code: ErrorCode, parent_error: ErrorInfo | None) -> bool:
    """``MessageBuilder.note(..., parent_error=)``: a note tied to its error, so that an ignore
    or a disabled code silences both, and ``-O json`` carries it as the error's hint. Fallback,
    on a mypy without the parameter: a note of the same code, not tied. True when tied."""
    try:
        api.msg.note(text, context, code=code, parent_error=parent_error)
    except TypeError:  # no parent_error in this mypy
        api.msg.note(text, context, code=code)
        return False
    return True


def format_type(typ: Type, options: Options) -> str:
    """``mypy.messages.format_type``: a type as mypy prints it in its own messages
    (``"int | None"``). Fallback: the type's own text, quoted."""
    try:
        from mypy.messages import format_type as mypy_format_type

        return mypy_format_type(typ, options)
    except Exception:  # moved or changed
        return f'"{typ}"'


def search_dirs(python_executable: str, *, fallback: bool = True) -> tuple[list[str], list[str]]:
    """``mypy.modulefinder.get_search_dirs``: where mypy reads installed packages for
    ``--python-executable`` (``sys.path`` entries, then site-packages), computed and cached by
    mypy before it loads plugins. Fallback: this process's ``sys.path``; without ``fallback``
    (the check command, which may ask about another Python), the error is raised."""
    try:
        from mypy.modulefinder import get_search_dirs

        sys_path, site_packages = get_search_dirs(python_executable)
    except Exception:  # moved or changed
        if not fallback:
            raise
        return list(sys.path), []
    return list(sys_path), list(site_packages)


def disabled_codes(options: Options) -> tuple[Collection[ErrorCode], Sequence[str]]:
    """``Options.disabled_error_codes`` and ``Options.disable_error_code``: the codes the
    configuration disables. mypy resolves the names of plugin codes only after it has loaded
    the plugins, so at start-up a plugin's code is found among the names as written. Fallback:
    none disabled."""
    return getattr(options, "disabled_error_codes", set()), getattr(options, "disable_error_code", [])


def checker_scope(api: CheckerPluginInterface) -> object | None:
    """``TypeChecker.scope``: the stack of modules, classes and functions being checked.
    Fallback: None, and ``current_function`` answers None (as at module level)."""
    scope = getattr(api, "scope", None)
    return scope if callable(getattr(scope, "current_function", None)) else None


def current_function(api: CheckerPluginInterface) -> FuncItem | None:
    """The innermost function being checked (``CheckerScope.current_function()``); None at a
    module's or a class's top level. Fallback: None."""
    scope = checker_scope(api)
    try:
        function = scope.current_function() if scope is not None else None  # type: ignore[attr-defined]
    except Exception:  # an internal that changed shape
        return None
    return function if isinstance(function, FuncItem) else None


def type_map_type(api: CheckerPluginInterface, node: Expression) -> Type | None:
    """``TypeChecker.lookup_type_or_none``: the type mypy gave ``node`` when it checked it (its
    type map). Fallback: None."""
    lookup = getattr(api, "lookup_type_or_none", None)
    try:
        found = lookup(node) if lookup is not None else None
    except Exception:  # an internal that changed shape
        return None
    return found if isinstance(found, Type) else None


def checked_type(api: CheckerPluginInterface, node: Expression) -> Type:
    """The type of an expression mypy has checked, from its type map, so that nothing is
    checked twice; for a node not in the map (or without the map), the interface's
    ``get_expression_type``, which checks it again."""
    found = type_map_type(api, node)
    return found if found is not None else api.get_expression_type(node)


def namedtuple_fields(info: TypeInfo) -> list[str]:
    """The fields of a NamedTuple class, in order (the keywords of its ``_replace``); none for
    another class."""
    if not info.is_named_tuple:
        return []
    replace = info.get_method("_replace")
    signature = replace.type if isinstance(replace, FuncDef) else None
    if not isinstance(signature, CallableType):
        return []
    return [name for name in signature.arg_names[1:] if name]


def replaceable_fields(info: TypeInfo) -> set[str]:
    """The fields ``dataclasses.replace`` can set on an instance of ``info``: the ``__init__``
    fields of a frozen class made by the standard library's ``dataclasses.dataclass``, with the
    ``__init__`` mypy's dataclass plugin made for it. Read from what that plugin records, which
    mypy's cache keeps (a class from the cache has no decorators to look at): its
    ``TypeInfo.metadata["dataclass"]`` (``frozen``, the attributes and ``is_in_init``), the
    ``__dataclass_fields__`` it adds (typed ``dict[str, dataclasses.Field[Any]]`` for the
    standard decorator only, ``dict[str, Any]`` for classes of other decorators such as
    ``flax.struct.dataclass`` or equinox modules), and ``SymbolTableNode.plugin_generated`` on
    ``__init__`` (not a hand-written one). Fallback: none."""
    try:
        record = info.metadata.get("dataclass")
        init = info.names.get("__init__")
        if not (record and record.get("frozen") and init is not None and init.plugin_generated):
            return set()
        if not made_by_the_standard_decorator(info):
            return set()
        return {attribute["name"] for attribute in record.get("attributes", []) if attribute.get("is_in_init")}
    except Exception:  # an internal that changed shape
        return set()


def dataclass_fields(info: TypeInfo) -> set[str] | None:
    """The fields of a dataclass, or of a class a ``dataclass_transform`` makes one (an Equinox
    module), its bases' included: the attributes mypy's dataclass plugin records in
    ``TypeInfo.metadata["dataclass"]``, which mypy's cache keeps. Fallback: None (unknown), also
    for a class the plugin has not read."""
    try:
        attributes = info.metadata.get("dataclass", {}).get("attributes")
        if not isinstance(attributes, list):
            return None
        return {attribute["name"] for attribute in attributes}
    except Exception:  # an internal that changed shape
        return None


def made_by_the_standard_decorator(info: TypeInfo) -> bool:
    """Whether mypy's dataclass plugin typed the class's ``__dataclass_fields__`` as the
    standard decorator makes it: a ``dict`` of ``dataclasses.Field``."""
    found = info.names.get("__dataclass_fields__")
    fields = get_proper_type(found.type) if found is not None else None
    if not isinstance(fields, Instance) or len(fields.args) != 2:
        return False
    value = get_proper_type(fields.args[1])
    return isinstance(value, Instance) and value.type.fullname == DATACLASS_FIELD


@contextmanager
def unwatched(api: CheckerPluginInterface) -> Iterator[bool]:
    """``Errors._watchers``, set aside: errors reported in the block reach the user though mypy
    is only trying the call around it (it checks the items of an overloaded callee such as
    ``jax.jit`` under watchers that discard, and keeps the first that fits without checking it
    again). For reports about code elsewhere, made once, never about the call being tried.
    Yields whether what is reported now is shown (False in a module whose errors mypy hides).
    Fallback: the watchers stay, and the block is told nothing is shown."""
    errors = getattr(api.msg, "errors", None)
    watchers = getattr(errors, "_watchers", None)
    if not isinstance(watchers, list):
        yield False
        return
    errors._watchers = []  # type: ignore[union-attr]
    try:
        yield not prefer_simple_messages(api)
    finally:
        errors._watchers = watchers  # type: ignore[union-attr]


def default_plugin(options: Options) -> Plugin:
    """``mypy.plugins.default.DefaultPlugin``: mypy's own hooks (``functools.partial``,
    ``singledispatch``, ``ctypes``, TypedDict methods), which the plugin runs first where it
    hooks the same name. Fallback: a plugin with no hooks (mypy's own support for the few names
    the rules hook is then lost, as it would be without this)."""
    try:
        from mypy.plugins.default import DefaultPlugin

        found = DefaultPlugin(options)
        return found if isinstance(found, Plugin) else Plugin(options)
    except Exception:  # moved or changed
        return Plugin(options)


def module_loaded(plugin: Plugin, module: str) -> bool:
    """``Plugin._modules``: whether the run has loaded ``module``, which a class of it needs before
    any other class can derive from it (a getter asks it before looking a class up). Fallback:
    True (the class is looked up)."""
    modules = getattr(plugin, "_modules", None)
    return module in modules if isinstance(modules, dict) else True


def class_named(api: CheckerPluginInterface, fullname: str) -> TypeInfo | None:
    """``TypeChecker.modules``: the class ``fullname`` (``jax._src.basearray.Array``) from the
    module that defines it, which ``named_generic_type`` cannot reach when a package does not
    bind its private submodules (``jax._src``). Fallback: None."""
    module, _, name = fullname.rpartition(".")
    modules = getattr(api, "modules", None)
    tree = modules.get(module) if isinstance(modules, dict) else None
    found = tree.names.get(name) if isinstance(tree, MypyFile) else None
    return found.node if found is not None and isinstance(found.node, TypeInfo) else None


def rechecked_modules(result: object) -> set[str] | None:
    """``BuildManager.rechecked_modules`` of a finished ``mypy.build.build``: the modules it
    checked anew instead of loading them from its cache (``jax-stubs lint`` says how many).
    Fallback: None, unknown."""
    found = getattr(getattr(result, "manager", None), "rechecked_modules", None)
    return set(found) if isinstance(found, (set, frozenset)) else None


def subexpressions(tree: MypyFile | FuncDef | Block) -> list[Expression] | None:
    """``mypy.server.subexpr.get_subexpressions``: every expression of a module (or of a
    function or a block, with those of the functions defined in it), collected by mypy's own
    compiled traverser, several times faster than a walk written here. Fallback: None, and
    callers walk the tree themselves (``lib/nodes.py``)."""
    try:
        from mypy.server.subexpr import get_subexpressions

        found = get_subexpressions(tree)
    except Exception:  # moved or changed
        return None
    return found if isinstance(found, list) else None


def with_extra_attribute(instance: Instance, name: str, typ: Type) -> Instance:
    """``Instance.copy_with_extra_attr``: ``instance`` carrying ``typ`` under ``name``, kept by
    mypy with the instance's type wherever it flows (``lib/jitted.py`` keeps a jitted function's
    signature so). Fallback: ``instance`` unchanged, and nothing is kept."""
    try:
        return instance.copy_with_extra_attr(name, typ)
    except Exception:  # moved or changed
        return instance


def extra_attributes(instance: Instance) -> dict[str, Type]:
    """``Instance.extra_attrs.attrs``: what ``with_extra_attribute`` put on an instance.
    Fallback: nothing."""
    attrs = getattr(getattr(instance, "extra_attrs", None), "attrs", None)
    return dict(attrs) if isinstance(attrs, dict) else {}


def readonly_keys(typed_dict: TypedDictType) -> frozenset[str]:
    """``TypedDictType.readonly_keys``: the keys declared ``ReadOnly``. Fallback: none."""
    keys = getattr(typed_dict, "readonly_keys", ())
    return frozenset(keys) if isinstance(keys, (set, frozenset)) else frozenset()


def parameters(function: FuncItem) -> list[Argument] | None:
    """``function``'s parameters; None where mypy read the function from its cache (a module a
    warm run does not check again), which keeps only their names and kinds (``arg_names``, with
    None for a positional-only one, and ``arg_kinds``) and leaves ``arguments`` unset, so that
    reading it raises."""
    return getattr(function, "arguments", None)


def named_parameters(function: FuncItem) -> list[tuple[str, ArgKind]]:
    """Each parameter's name and kind, as its body reads them; where mypy read the function from
    its cache, the names it keeps there (a positional-only parameter's is "")."""
    found = parameters(function)
    if found is None:
        return [(name or "", kind) for name, kind in zip(function.arg_names, function.arg_kinds)]
    return [(arg.variable.name, arg.kind) for arg in found]
