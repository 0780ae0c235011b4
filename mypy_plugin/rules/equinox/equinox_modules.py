"""``jax-equinox-module`` (``docs/rules/``): an Equinox module that holds a function, given to
JAX's own transforms.

``jax.jit`` and ``jax.grad`` flatten every argument they trace into arrays; an Equinox module is a
pytree whose fields are its leaves, and a function there (``eqx.nn.MLP``'s activation, a pool's
operation) is no JAX type: ``TypeError`` at each call (measured on Equinox 0.13.8: the classes of
``FUNCTION_FIELDS``, which ``tests/test_equinox_modules.py`` constructs and jits). Equinox's own
transforms (``eqx.filter_jit``, ``eqx.filter_grad``) trace only the arrays.

Read from the hooks of those classes' constructors, so a project without Equinox imports nothing
of the rule: the instance made (``model = eqx.nn.MLP(...)``, the module's one binding of that
name, or the construction itself passed on, or an ``eqx.nn.Sequential`` made with it among the
layers written in the call) and the calls in the module that pass it where a transformed
function of the module traces it (``@jax.jit``, ``jax.jit(f)(model)``, ``jax.grad(loss)(model, x)``).

The module's own Equinox classes hold one the same way, as a field that is not static: a default
or an assignment in ``__init__`` (on its straight path) of a function, a lambda or a string, one of
those layers, or another such class of the module, three deep. Those are read where a call of a
jitted function (``JitWrapped.__call__``'s hook, which jit already costs) passes an instance of
them to a parameter the function traces; classes of other modules are left alone, as their bodies
are not in mypy's cache.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    LDEF,
    AssignmentStmt,
    CallExpr,
    Decorator,
    Expression,
    FuncDef,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    StrExpr,
    TupleExpr,
    TypeInfo,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import Instance, Type, get_proper_type

from mypy_plugin.analyses import bindings, transforms
from mypy_plugin.analyses.transforms import TransformedFunction
from mypy_plugin.lib import arguments, errorcodes, mypy_internals, nodes, reporting, statements
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source

CODE: Final = errorcodes.EQUINOX_MODULE

ALWAYS: Final = ()
FUNCTION_FIELDS: Final[dict[str, tuple[tuple[int, str], ...]]] = {
    "equinox.nn._mlp.MLP": ((-1, "activation"), (-1, "final_activation")),
    "equinox.nn._sequential.Lambda": ((0, "fn"),),
    **{
        f"equinox.nn._pool.{name}": ALWAYS
        for name in (
            "MaxPool1d",
            "MaxPool2d",
            "MaxPool3d",
            "AvgPool1d",
            "AvgPool2d",
            "AvgPool3d",
            "AdaptiveMaxPool1d",
            "AdaptiveMaxPool2d",
            "AdaptiveMaxPool3d",
            "AdaptiveAvgPool1d",
            "AdaptiveAvgPool2d",
            "AdaptiveAvgPool3d",
        )
    },  # fmt: skip
    "equinox.nn._weight_norm.WeightNorm": ALWAYS,
}
"""Equinox's classes whose instances hold a function as a traced field: always (a pool's
``operation``, ``WeightNorm``'s norm), or unless the constructor is given something else at the
parameters named (by position, ``-1`` for keyword only): ``MLP``'s activations default to
functions, ``Lambda`` wraps what it is given."""
EQUINOX_MODULE_CLASSES: Final = ("equinox._module._module.Module", "equinox._module.Module")
"""``eqx.Module`` as mypy names it: from Equinox 0.13 (a package ``_module``), and before (Equinox
0.11.10 raises the same ``TypeError``, run in the matrix's JAX 0.4.31 cell)."""
JITTED_CALL: Final = "jax._src.pjit.JitWrapped.__call__"
SEQUENTIAL: Final = "equinox.nn._sequential.Sequential"
SEQUENTIAL_DEPTH: Final = 3
"""How many ``eqx.nn.Sequential``, each a layer of the next, are followed from a layer."""
DEPTH: Final = 3
"""How many of the module's own classes, each holding the next, are followed."""
HOLDS_A_FUNCTION: Final = "{module} holds a function, which {transform} cannot trace; JAX raises TypeError"
USE_FILTERED: Final = 'Use Equinox\'s transform, which traces only its arrays: "{filtered}"'
HOLDS_A_STRING: Final = "{module} holds a string, which {transform} cannot trace; JAX raises TypeError"
FIELD_AT: Final = 'Field "{field}" of "{cls}" holds {value} (line {line}){through}'
LAYER_HOLDS: Final = 'Its "{path}", an {cls} (line {line}), holds a function'
OR_STATIC: Final = 'Or keep it out of the traced leaves: "{field}: {annotation} = eqx.field(static=True)"'


def is_equinox_module(info: TypeInfo) -> bool:
    return any(info.has_base(name) for name in EQUINOX_MODULE_CLASSES)


def on_construct(ctx: FunctionContext) -> Type:
    """One of ``FUNCTION_FIELDS`` made: where the module passes it to a transformed function."""
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    if not isinstance(call, CallExpr) or not isinstance(call.callee, RefExpr) or tree is None:
        return ctx.default_return_type
    fields = FUNCTION_FIELDS.get(call.callee.fullname)
    if fields is None or not holds_a_function(call, fields):
        return ctx.default_return_type
    layer_class = "eqx.nn." + call.callee.fullname.rsplit(".", 1)[-1]
    for holder, path in [(call, ""), *sequentials_holding(tree, call)]:
        cls = "eqx.nn.Sequential" if path else layer_class
        notes = [LAYER_HOLDS.format(path=path, cls=layer_class, line=call.line)] if path else []
        for use, arg in passed_on(tree, holder):
            traced = tracing(use, arg, tree.fullname)
            if traced is not None:
                report(ctx.api, arg, cls, traced, notes)
    return ctx.default_return_type


def sequentials_holding(tree: MypyFile, made: CallExpr) -> list[tuple[CallExpr, str]]:
    """Each ``eqx.nn.Sequential`` of the module whose layers, a list or tuple written in the call
    (by position or as ``layers=``), include ``made``, or a ``Sequential`` that does, up to
    ``SEQUENTIAL_DEPTH`` deep, with the path to ``made`` (``layers[1].layers[0]``): it holds what
    its layers hold, so JAX cannot trace it either (``patrick-kidger/equinox#706``)."""
    parents: dict[int, tuple[CallExpr, int]] = {}
    for node in nodes.walk(tree.defs):
        if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and node.callee.fullname == SEQUENTIAL:
            layers = next(
                (arg for arg, kind, name in zip(node.args, node.arg_kinds, node.arg_names) if kind == ARG_POS or name == "layers"), None
            )
            for index, item in enumerate(layers.items if isinstance(layers, (ListExpr, TupleExpr)) else []):
                parents[id(item)] = (node, index)
    found: list[tuple[CallExpr, str]] = []
    inner, path = made, ""
    while id(inner) in parents and len(found) < SEQUENTIAL_DEPTH:
        inner, index = parents[id(inner)]
        path = f"layers[{index}]" + (f".{path}" if path else "")
        found.append((inner, path))
    return found


def on_jitted_call(ctx: MethodContext) -> Type:
    """A call of a jitted function given an instance of an Equinox class of the checked module
    that holds a function or a string."""
    call = ctx.context
    if not isinstance(call, CallExpr):
        return ctx.default_return_type
    given = [
        (arg, typ.type)
        for args, types in zip(ctx.args, ctx.arg_types)
        for arg, typ in zip(args, map(get_proper_type, types))
        if isinstance(typ, Instance) and is_equinox_module(typ.type) and bindings.holds(ctx.api, arg)
    ]
    tree = mypy_internals.module_tree(ctx.api) if given else None
    if tree is None:
        return ctx.default_return_type
    for arg, info in given:
        held = untraceable_field(info, tree.fullname, DEPTH) if info.module_name == tree.fullname else None
        if held is not None and held.default and not keeps_default(arg, held, tree):
            continue
        traced = tracing(call, arg, tree.fullname) if held is not None else None
        if held is not None and traced is not None:
            report_field(ctx.api, arg, info, held, traced)
    return ctx.default_return_type


def tracing(use: CallExpr, arg: Expression, module: str) -> TransformedFunction | None:
    """The transformed function of the module that ``use`` calls, where it flattens the
    parameter ``arg`` is given to into arrays (not static, not ``vmap``'s ``None`` axis)."""
    traced = transformed_callee(use, module)
    if traced is None or not (traced.kind in transforms.TRACING_EVERY_ARGUMENT or traced.differentiated):
        return None
    every = mypy_internals.parameters(traced.function)
    if every is None:
        return None  # read from mypy's cache: not decided
    parameters = every[1:] if traced.bound else every
    positional = [a.variable.name for a in parameters if a.kind in (ARG_POS, ARG_OPT)]
    written = dict(zip(map(id, use.args), arguments.parameters_written(use, positional)))
    return traced if written.get(id(arg)) in traced.flattened else None


class Held:
    """A field of an Equinox class that JAX cannot trace: the class, the field, the value it is
    given and whether it is a string; ``through``, the fields of the module's classes that hold
    the instance it is in; ``default``, whether it is a class default a constructor may replace."""

    __slots__ = ("cls", "field", "value", "string", "through", "default")

    def __init__(self, cls: TypeInfo, field: str, value: Expression, *, string: bool = False, default: bool = False) -> None:
        self.cls = cls
        self.field = field
        self.value = value
        self.string = string
        self.through: list[str] = []
        self.default = default


def untraceable_field(info: TypeInfo, module: str, depth: int) -> Held | None:
    """The first field of ``info`` (or of a base of the same module) that holds a function or
    a string whenever an instance is made, and that Equinox does not keep static."""
    for cls in info.mro:
        if cls.module_name != module or cls.fullname in EQUINOX_MODULE_CLASSES:
            continue
        static = static_fields(cls)
        for field, value, default in set_fields(cls):
            if field in static:
                continue
            if isinstance(value, StrExpr) or nodes.names_a_function(value):
                return Held(cls, field, value, string=isinstance(value, StrExpr), default=default)
            if isinstance(value, CallExpr) and isinstance(value.callee, RefExpr):
                fields = FUNCTION_FIELDS.get(value.callee.fullname)
                if fields is not None and holds_a_function(value, fields):
                    return Held(cls, field, value, default=default)
                inner = value.callee.node
                if depth > 1 and isinstance(inner, TypeInfo) and inner.module_name == module and is_equinox_module(inner):
                    held = untraceable_field(inner, module, depth - 1)
                    if held is not None and not held.default:
                        held.through.insert(0, f'"{field}" of "{cls.name}"')
                        return held
    return None


def set_fields(cls: TypeInfo) -> list[tuple[str, Expression, bool]]:
    """The values the class gives its fields, each with whether a constructor may replace it:
    defaults in its body (replaceable where the class has no ``__init__`` of its own), and
    ``self.<field> = ...`` on the straight path of its ``__init__``."""
    symbol = cls.names.get("__init__")
    init = symbol.node if symbol is not None else None
    own_init = isinstance(init, FuncDef) and bool(init.arg_kinds) and symbol is not None and not symbol.plugin_generated
    found = [(name, value, not own_init) for name, value in class_assignments(cls)]
    if isinstance(init, FuncDef) and own_init:
        found.extend((name, value, False) for name, value in statements.set_on_receiver(init))
    return found


def class_assignments(cls: TypeInfo) -> list[tuple[str, Expression]]:
    """``<name>[: T] = <value>`` in the class's body, in order: its fields' declarations."""
    return [
        (statement.lvalues[0].name, statement.rvalue)
        for statement in cls.defn.defs.body
        if isinstance(statement, AssignmentStmt) and len(statement.lvalues) == 1 and isinstance(statement.lvalues[0], NameExpr)
    ]


def keeps_default(arg: Expression, held: Held, tree: MypyFile) -> bool:
    """Whether the instance ``arg`` passes keeps the class default ``held``: made there, or by
    the name's one binding in the module, with no argument for the field (by name, or by a
    position that may reach it)."""
    made: Expression | None = arg
    if isinstance(arg, NameExpr):
        made = None
        if bindings.of(tree).assigned_once(arg.name):
            for node in nodes.walk(tree.defs):
                if isinstance(node, AssignmentStmt) and len(node.lvalues) == 1 and isinstance(node.lvalues[0], NameExpr):
                    if node.lvalues[0].node is arg.node:
                        made = node.rvalue
    if not (isinstance(made, CallExpr) and isinstance(made.callee, RefExpr) and made.callee.node is held.cls):
        return False
    declared = [name for name, _ in class_assignments(held.cls)]
    position = declared.index(held.field) if held.field in declared else 0
    positional = sum(1 for name in made.arg_names if name is None)
    unpacked = ARG_STAR in made.arg_kinds or ARG_STAR2 in made.arg_kinds
    return held.field not in made.arg_names and positional <= position and not unpacked


def static_fields(cls: TypeInfo) -> set[str]:
    """The fields declared static: ``eqx.field(static=True)`` (or any ``field`` call given
    ``static``), ``eqx.static_field()``, and ``ClassVar``s, which are no fields."""
    found = set()
    for name, value in class_assignments(cls):
        if isinstance(value, CallExpr) and isinstance(value.callee, (NameExpr, MemberExpr)):
            called = value.callee.name
            if called == "static_field" or (called == "field" and "static" in value.arg_names):
                found.add(name)
        symbol = cls.names.get(name)
        if symbol is not None and getattr(symbol.node, "is_classvar", False):
            found.add(name)
    return found


def holds_a_function(call: CallExpr, fields: tuple[tuple[int, str], ...]) -> bool:
    """Whether the instance ``call`` makes holds a function: a field that always does, or one the
    call leaves at its default (a function) or gives a function."""
    if not fields:
        return True
    for position, name in fields:
        given = next((arg for arg, arg_name in zip(call.args, call.arg_names) if arg_name == name), None)
        if given is None and 0 <= position < len(call.args) and call.arg_names[position] is None:
            given = call.args[position]
        if given is None or nodes.names_a_function(given):
            return True
    return False


def passed_on(tree: MypyFile, made: CallExpr) -> list[tuple[CallExpr, Expression]]:
    """The calls of the module given the instance ``made``, each with the argument: the
    construction itself, or the name it is assigned to where that is the name's one binding in
    the module."""
    target: NameExpr | None = None
    calls: list[CallExpr] = []
    for node in nodes.walk(tree.defs):
        if isinstance(node, AssignmentStmt) and node.rvalue is made and len(node.lvalues) == 1 and isinstance(node.lvalues[0], NameExpr):
            target = node.lvalues[0]
        elif isinstance(node, CallExpr):
            calls.append(node)
    once = target is not None and bindings.of(tree).assigned_once(target.name)
    return [
        (call, arg)
        for call in calls
        for arg in call.args
        if arg is made or (once and target is not None and isinstance(arg, NameExpr) and arg.node is target.node)
    ]


def transformed_callee(call: CallExpr, module: str) -> TransformedFunction | None:
    """The function of the module that ``call`` calls through a transform: decorated
    (``@jax.jit``) or transformed where it is called (``jax.jit(step)(model, x)``)."""
    callee = call.callee
    if isinstance(callee, NameExpr) and isinstance(callee.node, Decorator):
        # another module's: its decorators are gone where mypy's cache holds it, and a report
        # must not depend on which modules a run checks again
        defined_here = callee.kind == LDEF or callee.node.fullname == f"{module}.{callee.node.name}"
        return transforms.decorated(callee.node) if defined_here else None
    if isinstance(callee, CallExpr):
        return transforms.transformed_by(callee, module)
    return None


def report(api: CheckerPluginInterface, arg: Expression, cls: str, traced: TransformedFunction, notes: list[str]) -> None:
    """``jax-equinox-module``: a module holding a function, traced by JAX's own transform;
    ``notes`` say where it holds it."""
    name = source(arg) if isinstance(arg, NameExpr) else None
    module = f'"{name}" ({cls})' if name is not None else f"An {cls}"
    message = HOLDS_A_FUNCTION.format(module=module, transform=traced.transform)
    filtered = "eqx.filter_grad" if traced.differentiated else "eqx.filter_jit"
    reporting.error_with_notes(api, arg, CODE, message, [*notes, USE_FILTERED.format(filtered=filtered)])


def report_field(api: CheckerPluginInterface, arg: Expression, info: TypeInfo, held: Held, traced: TransformedFunction) -> None:
    """``jax-equinox-module``: an instance of the module's own class that holds a function or a
    string, traced by JAX's own transform."""
    name = source(arg) if isinstance(arg, NameExpr) else None
    module = f'"{name}" ({info.name})' if name is not None else f"An instance of {info.name}"
    message = (HOLDS_A_STRING if held.string else HOLDS_A_FUNCTION).format(module=module, transform=traced.transform)
    value = source(held.value) or "a function"
    filtered = "eqx.filter_grad" if traced.differentiated else "eqx.filter_jit"
    through = ", reached through " + ", then ".join(held.through) if held.through else ""
    notes = [
        FIELD_AT.format(field=held.field, cls=held.cls.name, value=value, line=held.value.line, through=through),
        USE_FILTERED.format(filtered=filtered),
    ]
    if held.string or nodes.names_a_function(held.value):
        notes.append(OR_STATIC.format(field=held.field, annotation="str" if held.string else "Callable"))
    reporting.error_with_notes(api, arg, CODE, message, notes)


RULE: Final = Rule(
    CODE,
    function_hooks=dict.fromkeys(FUNCTION_FIELDS, on_construct),
    method_hooks={JITTED_CALL: on_jitted_call},
)
