"""``jax-linen-mutable`` (``docs/rules/``): a Linen module applied with ``batch_stats``
immutable, where its own code updates them.

``nn.BatchNorm`` with ``use_running_average=False`` updates its running mean and variance
whenever it runs inside ``apply``; unless the call makes the collection mutable
(``mutable=["batch_stats"]``), Flax raises ``ModifyScopeVariableError`` there (measured on Flax
0.12.8: absent, ``mutable=False`` and a list without ``"batch_stats"`` raise, ``True``, the string
or a list holding it run). Read from the hook on ``Module.apply``, so a project without Flax loads
nothing of it; decided only where the module's own code says so: the class and the classes it
calls are of the checked module, the layer is made and called on the straight path of
``__call__`` (no branch or loop decides whether it runs), and ``use_running_average`` is ``False``
as written, or ``not train`` (or ``train``) of a parameter that the ``apply`` call, or its default,
sets.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    AssignmentStmt,
    CallExpr,
    Decorator,
    Expression,
    ExpressionStmt,
    FuncDef,
    ListExpr,
    MemberExpr,
    NameExpr,
    OperatorAssignmentStmt,
    RefExpr,
    ReturnStmt,
    StrExpr,
    TupleExpr,
    TypeInfo,
    UnaryExpr,
)
from mypy.plugin import MethodContext
from mypy.types import Instance, Type

from mypy_plugin.lib import errorcodes, fullnames, mypy_internals, nodes, reporting, statements
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.rules.flax.linen_methods import LINEN_MODULE

CODE: Final = errorcodes.LINEN_MUTABLE

APPLY: Final = "apply"
"""Keyed by the method's name: mypy names a method after the receiver's class
(``models.CNN.apply``), not after Flax's class that defines it."""
BATCH_NORM: Final = "flax.linen.normalization.BatchNorm"
COLLECTION: Final = "batch_stats"
DEPTH: Final = 3
"""How many of the module's own classes, each called by the one before, are followed."""

IMMUTABLE: Final = '"{cls}.apply" updates "batch_stats", which this call keeps immutable; Flax raises ModifyScopeVariableError'
UPDATED_AT: Final = "BatchNorm with use_running_average=False updates its running statistics at line {line}"
MAKE_MUTABLE: Final = (
    'Make the collection mutable and keep the update: "y, updates = {call}", then "{variables} = {{**{variables}, **updates}}"'
)
OR_EVALUATE: Final = "To evaluate with the running statistics instead, run BatchNorm with use_running_average=True"

SIMPLE: Final = (AssignmentStmt, ExpressionStmt, OperatorAssignmentStmt, ReturnStmt)
"""The statements whose calls run whenever they do (a compound one's blocks may not)."""

Truths = dict[str, "bool | None"]
"""The parameters of a ``__call__`` whose truth the call decides: True or False, None unknown."""


def on_apply(ctx: MethodContext) -> Type:
    """``model.apply(variables, ...)`` of a Linen class of the checked module."""
    call = ctx.context
    receiver = ctx.type
    if not isinstance(call, CallExpr) or not isinstance(receiver, Instance) or not receiver.type.has_base(LINEN_MODULE):
        return ctx.default_return_type
    info = receiver.type
    tree = mypy_internals.module_tree(ctx.api)
    if tree is None or info.module_name != tree.fullname or not collection_immutable(call):
        return ctx.default_return_type
    method = own_call(info)
    if method is None:
        return ctx.default_return_type
    env = parameters_given(method, call, skip=1)
    if env is None:
        return ctx.default_return_type
    updated = updating_layer(info, method, env, tree.fullname, DEPTH)
    if updated is not None and isinstance(call.callee, MemberExpr):
        error_immutable(ctx, call, info.name, source(call.callee.expr) or "model", updated)
    return ctx.default_return_type


def collection_immutable(call: CallExpr) -> bool:
    """The call keeps ``batch_stats`` immutable: no ``mutable``, ``mutable=False``, or a list of
    collections without it; False where it is mutable or undecided (a name, ``method=``)."""
    keywords = dict(zip(call.arg_names, call.args))
    if "method" in keywords or any(kind == ARG_STAR2 for kind in call.arg_kinds):
        return False
    mutable = keywords.get("mutable")
    if mutable is None:
        return True
    if truth(mutable, {}) is False:
        return True
    if isinstance(mutable, (ListExpr, TupleExpr)) and all(isinstance(item, StrExpr) for item in mutable.items):
        return COLLECTION not in [item.value for item in mutable.items if isinstance(item, StrExpr)]
    return False


def own_call(info: TypeInfo) -> FuncDef | None:
    """The class's own ``__call__`` (compact or not)."""
    symbol = info.names.get("__call__")
    node = symbol.node if symbol is not None else None
    if isinstance(node, Decorator):
        node = node.func
    return node if isinstance(node, FuncDef) and node.body.body else None


def parameters_given(method: FuncDef, call: CallExpr, *, skip: int) -> Truths | None:
    """The truth of each parameter of ``method`` (after ``self``) as ``call`` passes it (its
    first ``skip`` positional arguments are not the method's: ``apply``'s variables), else as
    its default says; None where ``*args`` leaves the mapping undecided."""
    every = mypy_internals.parameters(method)
    if any(kind == ARG_STAR for kind in call.arg_kinds) or every is None:
        return None
    names = [argument.variable.name for argument in every[1:]]
    env: Truths = {}
    for argument in every[1:]:
        default = argument.initializer
        env[argument.variable.name] = truth(default, {}) if default is not None else None
    position = 0
    for kind, name, arg in zip(call.arg_kinds, call.arg_names, call.args):
        if kind == ARG_POS:
            if position >= skip and position - skip < len(names):
                env[names[position - skip]] = truth(arg, {})
            position += 1
        elif kind == ARG_NAMED and name in env:
            env[name] = truth(arg, {})
    return env


def truth(node: Expression, env: Truths) -> bool | None:
    """``True``, ``False``, a parameter ``env`` knows, or ``not`` of one of them; None else."""
    if isinstance(node, NameExpr) and node.fullname in ("builtins.True", "builtins.False"):
        return node.fullname == "builtins.True"
    if isinstance(node, NameExpr) and node.kind is not None and node.name in env:
        return env[node.name]
    if isinstance(node, UnaryExpr) and node.op == "not":
        inner = truth(node.expr, env)
        return None if inner is None else not inner
    return None


def updating_layer(info: TypeInfo, method: FuncDef, env: Truths, module: str, depth: int) -> CallExpr | None:
    """The call, on ``method``'s straight path, of a ``BatchNorm`` that updates its statistics,
    directly or in one of the module's own Linen classes it calls; None where none surely does."""
    made = dict(made_in_setup(info))
    path = statements.straight_path(method.body)
    for statement in path:
        if isinstance(statement, AssignmentStmt) and len(statement.lvalues) == 1 and isinstance(statement.lvalues[0], NameExpr):
            made[statement.lvalues[0].name] = statement.rvalue
    for call in nodes.calls_run_by([statement for statement in path if isinstance(statement, SIMPLE)]):
        layer = constructed(call.callee, made)
        if layer is None:
            continue
        target, keywords = layer
        if target.fullname == BATCH_NORM:
            given = dict(zip(call.arg_names, call.args)).get("use_running_average", keywords.get("use_running_average"))
            if given is not None and truth(given, env) is False:
                return call
        elif depth > 1 and isinstance(target.node, TypeInfo) and target.node.module_name == module and target.node.has_base(LINEN_MODULE):
            inner = own_call(target.node)
            inner_env = parameters_given(inner, call, skip=0) if inner is not None else None
            if inner is not None and inner_env is not None:
                for name, arg in zip(call.arg_names, call.args):
                    if name in inner_env:
                        inner_env[name] = truth(arg, env)
                positional = [arg for kind, arg in zip(call.arg_kinds, call.args) if kind == ARG_POS]
                for argument, arg in zip((mypy_internals.parameters(inner) or [])[2:], positional[1:]):
                    inner_env[argument.variable.name] = truth(arg, env)
                found = updating_layer(target.node, inner, inner_env, module, depth - 1)
                if found is not None:
                    return found
    return None


def made_in_setup(info: TypeInfo) -> list[tuple[str, Expression]]:
    """``self.<name> = <expression>`` on the straight path of the class's ``setup``."""
    symbol = info.names.get("setup")
    setup = symbol.node if symbol is not None else None
    if not isinstance(setup, FuncDef):
        return []
    return [(f"self.{name}", value) for name, value in statements.set_on_receiver(setup)]


def constructed(callee: Expression, made: dict[str, Expression]) -> tuple[RefExpr, dict[str, Expression]] | None:
    """The Linen class that ``callee`` is an instance of, with the keyword arguments it was made
    with: ``nn.BatchNorm(...)`` itself, a name or ``self.<name>`` bound to one, and ``norm()``
    of ``norm = partial(nn.BatchNorm, ...)``."""
    if isinstance(callee, (NameExpr, MemberExpr)):
        key = callee.name if isinstance(callee, NameExpr) else f"{source(callee.expr)}.{callee.name}"
        bound = made.get(key)
        return constructed(bound, {}) if isinstance(bound, CallExpr) else None
    if not isinstance(callee, CallExpr):
        return None
    keywords = {name: arg for name, arg in zip(callee.arg_names, callee.args) if name is not None}
    target = callee.callee
    if isinstance(target, NameExpr) and isinstance(made.get(target.name), CallExpr):
        target_call = made[target.name]
        assert isinstance(target_call, CallExpr)
        if isinstance(target_call.callee, RefExpr) and target_call.callee.fullname == fullnames.PARTIAL and target_call.args:
            first = target_call.args[0]
            if isinstance(first, RefExpr):
                partial_keywords = {name: arg for name, arg in zip(target_call.arg_names, target_call.args) if name is not None}
                return first, {**partial_keywords, **keywords}
        return None
    if isinstance(target, RefExpr) and isinstance(target.node, TypeInfo):
        return target, keywords
    return None


def error_immutable(ctx: MethodContext, call: CallExpr, cls: str, model: str, updated: CallExpr) -> None:
    """``jax-linen-mutable``: ``apply`` with ``batch_stats`` immutable where the module updates them."""
    written = [f"{name}={source(arg)}" if name else source(arg) for name, arg in zip(call.arg_names, call.args) if name != "mutable"]
    variables = source(call.args[0]) if call.args and call.arg_kinds[0] == ARG_POS else None
    if None in written or variables is None or not variables.isidentifier():
        written, variables = ["variables", "x"], "variables"
    mutable = f'{model}.apply({", ".join(str(part) for part in written)}, mutable=["{COLLECTION}"])'
    notes = [UPDATED_AT.format(line=updated.line), MAKE_MUTABLE.format(call=mutable, variables=variables), OR_EVALUATE]
    reporting.error_with_notes(ctx.api, call, CODE, IMMUTABLE.format(cls=cls), notes)


RULE: Final = Rule(CODE, method_hooks={APPLY: on_apply})
