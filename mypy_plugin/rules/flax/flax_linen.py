"""``jax-linen-unbound`` (``docs/rules/``): a Flax Linen module run before anything binds it.

A Linen module runs its ``@nn.compact`` methods only bound, inside ``init`` or ``apply``: calling
a compact method on an instance made outside any module (``MLP()(x)``) raises
``CallCompactUnboundModuleError``, as calling its ``setup`` does (``CallSetupUnboundModuleError``;
measured on Flax 0.12.8, the release of the test extra). Read from the hook mypy runs when it
checks ``@nn.compact`` itself, so a project without Flax imports nothing of this rule: the
instances of its class that the module makes and calls at its top level (a notebook's or a
script's), where no module can bind them; and ``setup()`` called there on such an instance of any
Linen class, from the hook of the ``setup`` call. Instances made or called in a function are left
alone: a function called from a compact method makes bound submodules. (``@nn.compact``'s other
rule, an attribute set in the method, is ``linen_frozen``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from mypy.nodes import (
    FUNC_NO_INFO,
    AssignmentStmt,
    Block,
    CallExpr,
    ClassDef,
    Decorator,
    Expression,
    ExpressionStmt,
    FuncDef,
    MemberExpr,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    ReturnStmt,
    Statement,
    TypeInfo,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import Instance, Type

from mypy_plugin.lib import checked_module, errorcodes, mypy_internals, nodes, reporting, statements
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.rules.flax.linen_methods import COMPACT, LINEN_MODULE

UNBOUND_CODE: Final = errorcodes.LINEN_UNBOUND

COMPACT_LAYERS: Final = frozenset(
    {
        "flax.linen.activation.PReLU", "flax.linen.attention.MultiHeadAttention",
        "flax.linen.attention.MultiHeadDotProductAttention", "flax.linen.attention.SelfAttention",
        "flax.linen.combinators.Sequential", "flax.linen.linear.Conv", "flax.linen.linear.ConvLocal",
        "flax.linen.linear.ConvTranspose", "flax.linen.linear.Dense", "flax.linen.linear.DenseGeneral",
        "flax.linen.linear.Einsum", "flax.linen.normalization.BatchNorm", "flax.linen.normalization.GroupNorm",
        "flax.linen.normalization.InstanceNorm", "flax.linen.normalization.LayerNorm", "flax.linen.normalization.RMSNorm",
        "flax.linen.normalization.SpectralNorm", "flax.linen.normalization.WeightNorm", "flax.linen.recurrent.ConvLSTMCell",
        "flax.linen.recurrent.GRUCell", "flax.linen.recurrent.LSTMCell", "flax.linen.recurrent.MGUCell",
        "flax.linen.recurrent.OptimizedLSTMCell", "flax.linen.recurrent.SimpleCell", "flax.linen.stochastic.Dropout",
    }
)  # fmt: skip
"""Flax's own layers whose ``__call__`` is ``@nn.compact`` (mypy's cache keeps no decorator of
another module's function; ``tests/test_flax_linen.py`` reads them from the installed Flax)."""

UNBOUND: Final = 'compact "{cls}.{method}" called on an unbound module; Flax raises CallCompactUnboundModuleError'
SETUP_CALLED: Final = '"setup" of "{cls}" called on an unbound module; Flax raises CallSetupUnboundModuleError'
SETUP_BY_FLAX: Final = 'Flax runs "setup" itself when it binds the module: "bound = {model}.bind(variables)" gives "bound.<submodule>"'
INIT_THEN_APPLY: Final = 'Initialise, then apply: "variables = {model}.init(jax.random.key(0), x)", then "{model}.apply(variables, x)"'


def on_compact(ctx: FunctionContext) -> Type:
    """``@nn.compact`` on a method of a Linen module of the checked module."""
    decorator = ctx.context
    if not isinstance(decorator, Decorator) or decorator.func.info is FUNC_NO_INFO:
        return ctx.default_return_type
    info = decorator.func.info
    if not info.has_base(LINEN_MODULE):
        return ctx.default_return_type
    tree = mypy_internals.module_tree(ctx.api)
    if tree is not None:
        for call, model in unbound_calls(tree, lambda node: constructs(node, info), decorator.func.name):
            report_unbound(ctx.api, call, info.name, decorator.func.name, model)
    return ctx.default_return_type


def on_layer(ctx: FunctionContext) -> Type:
    """One of Flax's compact layers made (``nn.Dense(3)``): where the module's top level makes
    it, its calls there."""
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    if not isinstance(call, CallExpr) or tree is None or not isinstance(call.callee, RefExpr):
        return ctx.default_return_type
    chain = checked_module.enclosing_statements(ctx.api, call)
    if not chain or any(isinstance(s, (FuncDef, Decorator, OverloadedFuncDef, ClassDef)) for s in chain):
        return ctx.default_return_type
    fullname = call.callee.fullname
    name = fullname.rsplit(".", 1)[-1]
    for found, model in unbound_calls(tree, lambda node: node is call, "__call__"):
        report_unbound(ctx.api, found, name, "__call__", model)
    return ctx.default_return_type


def on_setup(ctx: MethodContext) -> Type:
    """``model.setup()`` of a Linen module: where the module's top level makes the instance."""
    call = ctx.context
    receiver = ctx.type
    tree = mypy_internals.module_tree(ctx.api)
    if not isinstance(call, CallExpr) or not isinstance(receiver, Instance) or tree is None:
        return ctx.default_return_type
    info = receiver.type
    if not info.has_base(LINEN_MODULE):
        return ctx.default_return_type
    for found, model in unbound_calls(tree, lambda node: constructs(node, info), "setup"):
        if found is call:
            report_setup(ctx.api, call, info.name, model)
    return ctx.default_return_type


def unbound_calls(tree: MypyFile, made_by: Callable[[Expression], bool], method: str) -> list[tuple[CallExpr, str]]:
    """Calls of the compact ``method`` on instances that ``made_by`` says are made (of the
    class) at the module's top level:
    ``MLP()(x)`` or ``MLP().encode(x)``, and ``model = MLP()`` then ``model(x)`` below it, each
    with how the instance is written."""
    top = [s for s in statements.statements_in(Block(tree.defs)) if not isinstance(s, (FuncDef, Decorator, OverloadedFuncDef, ClassDef))]
    made: dict[object, int] = {}
    found = []
    for statement in top:
        for call in calls_run_by_statement(statement):
            receiver = instance_called(call, method)
            if receiver is None:
                continue
            if made_by(receiver):
                found.append((call, source(receiver) or "model"))
            elif isinstance(receiver, NameExpr) and receiver.node in made and made[receiver.node] < call.line:
                found.append((call, receiver.name))
        if isinstance(statement, AssignmentStmt) and made_by(statement.rvalue):
            [target] = statement.lvalues if len(statement.lvalues) == 1 else [None]
            if isinstance(target, NameExpr) and target.node is not None:
                made[target.node] = statement.line
        elif isinstance(statement, AssignmentStmt):
            for target in statement.lvalues:  # bound again to anything else: no longer known
                if isinstance(target, NameExpr):
                    made.pop(target.node, None)
    return found


def calls_run_by_statement(statement: Statement) -> list[CallExpr]:
    """The calls a simple statement runs (compound statements' blocks are walked as statements
    of their own; a lambda's body runs where the lambda is called)."""
    if isinstance(statement, (ExpressionStmt, AssignmentStmt, ReturnStmt)):
        return list(nodes.calls_run_by([statement]))
    return []


def instance_called(call: CallExpr, method: str) -> Expression | None:
    """The instance ``call`` calls ``method`` of: ``model`` in ``model(x)`` for ``__call__``,
    in ``model.encode(x)`` for ``encode``."""
    if method == "__call__" and not isinstance(call.callee, MemberExpr):
        return call.callee
    if isinstance(call.callee, MemberExpr) and call.callee.name == method:
        return call.callee.expr
    return None


def constructs(node: Expression, info: TypeInfo) -> bool:
    """``MLP(...)``: the class itself called."""
    return isinstance(node, CallExpr) and isinstance(node.callee, NameExpr) and node.callee.node is info


def report_unbound(api: CheckerPluginInterface, call: CallExpr, cls: str, method: str, model: str) -> None:
    """``jax-linen-unbound``: a compact method called on an instance no module binds."""
    name = model if model.isidentifier() else "model"
    message = UNBOUND.format(cls=cls, method=method)
    reporting.error_with_notes(api, call, UNBOUND_CODE, message, [INIT_THEN_APPLY.format(model=name)])


def report_setup(api: CheckerPluginInterface, call: CallExpr, cls: str, model: str) -> None:
    """``jax-linen-unbound``: ``setup`` called on an instance no module binds."""
    name = model if model.isidentifier() else "model"
    notes = [SETUP_BY_FLAX.format(model=name), INIT_THEN_APPLY.format(model=name)]
    reporting.error_with_notes(api, call, UNBOUND_CODE, SETUP_CALLED.format(cls=cls), notes)


RULE: Final = Rule(
    UNBOUND_CODE,
    function_hooks={COMPACT: on_compact, **dict.fromkeys(COMPACT_LAYERS, on_layer)},
    method_hooks={"setup": on_setup},
)
