"""``jax-linen-frozen`` (``docs/rules/``): an attribute of a Flax Linen module set where Flax refuses it.

A Linen module is a frozen dataclass once its ``__post_init__`` has run: only ``setup`` (and what
it calls) may assign attributes of ``self``, and not the dataclass fields, which are given where
the module is made. So Flax raises (measured on Flax 0.12.8 and 0.10.0):

- ``SetAttributeFrozenModuleError`` for ``self.x = ...`` in a compact method, in a plain method
  that ``init`` or ``apply`` runs (a ``__call__`` ported from PyTorch's ``forward``, a method given
  as ``method=``, what those call on ``self``: ``linen_methods`` says which), and in
  ``__post_init__`` after ``super().__post_init__()``;
- ``SetAttributeInModuleSetupError`` for ``self.<field> = ...`` in ``setup``, where the field is
  declared in a class of the checked module (``dropout: float`` beside ``self.dropout =
  nn.Dropout(self.dropout)``).

Compact methods are read from the hook of ``@nn.compact``; the rest from the hook mypy runs on each
attribute of a Linen class, in the bodies mypy checks (``self.dense`` in ``self.dense(x)``, ``self.h``
in ``self.h = h`` too), each method once: a project without Flax loads nothing of it.
"""

from __future__ import annotations

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
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    OperatorAssignmentStmt,
    RefExpr,
    StarExpr,
    Statement,
    SuperExpr,
    TupleExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import AttributeContext, CheckerPluginInterface, FunctionContext
from mypy.types import Instance, Type, get_proper_type

from mypy_plugin.analyses import sites
from mypy_plugin.analyses.transforms import receiver_of
from mypy_plugin.lib import checked_module, errorcodes, mypy_internals, nodes, reporting, statements
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.rules.flax import linen_methods
from mypy_plugin.rules.flax.linen_methods import LINEN_MODULE

CODE: Final = errorcodes.LINEN_FROZEN

COMPACT: Final = "flax.linen.module.compact"
SETUP: Final = "setup"
POST_INIT: Final = "__post_init__"
SAFE_CALLS: Final = ("jax.", "numpy.", "builtins.", "math.", "operator.")
"""Where the functions come from that make no Linen module (a value set on ``self`` that makes one
raises ``AssignSubModuleError`` before the assignment: that line is ``jax-linen-submodule``'s)."""

IN_COMPACT: Final = '"{target}" set in compact method "{method}"; Flax raises SetAttributeFrozenModuleError'
IN_PLAIN: Final = '"{target}" set in "{method}", which runs outside "setup"; Flax raises SetAttributeFrozenModuleError'
AFTER_POST_INIT: Final = '"{target}" set after "super().__post_init__()"; Flax raises SetAttributeFrozenModuleError'
FIELD_IN_SETUP: Final = '"{target}" set in "setup", but "{name}" is a field of "{cls}"; Flax raises SetAttributeInModuleSetupError'
FROZEN_WAY: Final = (
    'A Linen module is frozen outside "setup": return the value, or record it with '
    "\"self.sow('intermediates', '{name}', value)\" and apply with mutable=[\"intermediates\"]"
)
SUBMODULE_IN_SETUP: Final = 'Submodules and fields kept on "self" are assigned in "setup"'
BEFORE_SUPER: Final = 'Set it before "super().__post_init__()", which freezes the module'
FIELD_GIVEN: Final = 'A field is given where the module is made ("{cls}({name}=...)") and frozen after'
RENAMED: Final = 'Keep the submodule under a name that is no field: "self.{name} = {value}"'


def on_compact(ctx: FunctionContext) -> Type:
    """``@nn.compact`` on a method of a Linen class: each ``self.x = ...`` of its own body (not in
    a function defined there), reported at ``@nn.compact`` with a note naming the line where mypy
    does not check the body."""
    decorator = ctx.context
    if not isinstance(decorator, Decorator) or decorator.func.info is FUNC_NO_INFO or not decorator.func.info.has_base(LINEN_MODULE):
        return ctx.default_return_type
    method = decorator.func
    receiver = receiver_of(method)
    if receiver is None or method.is_class:
        return ctx.default_return_type
    shown = not method.is_dynamic() or ctx.api.options.check_untyped_defs
    for statement in statements.statements_in(method.body):
        if not isinstance(statement, AssignmentStmt):
            continue
        for target in statement.lvalues:
            if isinstance(target, MemberExpr) and isinstance(target.expr, NameExpr) and target.expr.name == receiver:
                report_in_compact(ctx.api, target, method, decorator, shown)
    return ctx.default_return_type


def on_attribute(ctx: AttributeContext) -> Type:
    """Each attribute of a Linen class read or set in a body mypy checks: the method being
    checked, where it is one of a Linen class of the checked module, is read once for what it
    sets on ``self`` where Flax refuses it, and each is reported (once per line)."""
    method = mypy_internals.current_function(ctx.api)
    tree = mypy_internals.module_tree(ctx.api)
    if not isinstance(method, FuncDef) or method.info is FUNC_NO_INFO or tree is None or not method.info.has_base(LINEN_MODULE):
        return ctx.default_attr_type
    if method.is_dynamic() and not ctx.api.options.check_untyped_defs:
        return ctx.default_attr_type
    found = frozen_sets(tree)
    if method not in found:
        found[method] = sets_refused(tree, method)
    for report in found[method]:
        report(ctx.api)
    return ctx.default_attr_type


def sets_refused(tree: MypyFile, method: FuncDef) -> list[Report]:
    """What ``method`` sets on ``self`` where Flax refuses it, as reports to make."""
    receiver = receiver_of(method)
    info = method.info
    if receiver is None or method.is_class or own_setattr(info):
        return []
    if method.name == SETUP:
        fields = fields_declared(info, tree)
        found = [
            (statement, target)
            for statement, target in targets_on(receiver, statements.statements_in(method.body))
            if target.name in fields
        ]
        message = FIELD_IN_SETUP
        return [
            Report(target, message.format(target=written(target), name=target.name, cls=info.name), setup_notes(info, target, statement))
            for statement, target in found
        ]
    if method.name == POST_INIT and not bound_somewhere(tree, info):
        return []  # made only at the top level, a module is not yet frozen there
    if method.name == POST_INIT:
        after = after_super_post_init(method)
        return [Report(target, AFTER_POST_INIT.format(target=written(target)), [BEFORE_SUPER]) for _, target in targets_on(receiver, after)]
    only_outside = linen_methods.linen_classes(tree).outside.get(method)
    if only_outside is None:
        return []
    run = statements.statements_in(method.body) if only_outside else statements.straight_path(method.body)
    message, notes = IN_PLAIN, [FROZEN_WAY, SUBMODULE_IN_SETUP]
    return [
        Report(target, message.format(target=written(target), method=method.name), [note.format(name=target.name) for note in notes])
        for statement, target in targets_on(receiver, run)
        if not (isinstance(statement, AssignmentStmt) and may_make_module(statement.rvalue, receiver, info))
    ]


class Report:
    """One report of an attribute set where Flax refuses it, made past the watchers of a call mypy
    only tries, and once per line (the hook runs for every attribute of the method)."""

    __slots__ = ("target", "message", "notes")

    def __init__(self, target: MemberExpr, message: str, notes: list[str]) -> None:
        self.target = target
        self.message = message
        self.notes = notes

    def __call__(self, api: CheckerPluginInterface) -> None:
        with mypy_internals.unwatched(api) as shown:
            if shown and not mypy_internals.already_reported(api, self.target, self.message):
                reporting.error_with_notes(api, self.target, CODE, self.message, self.notes)


frozen_sets: Final = checked_module.PerTree(lambda tree: dict[FuncDef, list[Report]]())
"""The reports of each method read so far in the tree checked now."""


def bound_somewhere(tree: MypyFile, info: TypeInfo) -> bool:
    """Whether the module runs ``init`` or ``apply`` of ``info`` or of a class deriving from it, or
    makes one as a submodule (``linen_methods``): Flax makes such a module with a parent, and
    freezes it in ``super().__post_init__()``."""
    return any(info in base.mro for base in classes_named(tree, linen_methods.linen_classes(tree).started))


def classes_named(tree: MypyFile, fullnames: set[str]) -> list[TypeInfo]:
    return [
        defn.info for defn in checked_module.statements_anywhere(tree.defs) if isinstance(defn, ClassDef) and defn.fullname in fullnames
    ]


def targets_on(receiver: str, run: list[Statement]) -> list[tuple[Statement, MemberExpr]]:
    """The first attribute of ``receiver`` each of the statements ``run`` sets (``self.h = h``,
    ``self.a, self.b = ...``, ``self.count += 1``): the first raises."""
    found: list[tuple[Statement, MemberExpr]] = []
    for statement in run:
        if isinstance(statement, AssignmentStmt):
            targets = [item for target in statement.lvalues for item in unpacked(target)]
        elif isinstance(statement, OperatorAssignmentStmt):
            targets = [statement.lvalue]
        else:
            continue
        on_receiver = [t for t in targets if isinstance(t, MemberExpr) and isinstance(t.expr, NameExpr) and t.expr.name == receiver]
        if on_receiver:
            found.append((statement, on_receiver[0]))
    return found


def unpacked(target: Expression) -> list[Expression]:
    """What a target binds, in order: the items of a tuple or list target, starred or not, and
    theirs (``self.config.mesh`` is one target, an attribute of ``self.config``)."""
    if isinstance(target, (TupleExpr, ListExpr)):
        return [each for item in target.items for each in unpacked(item)]
    if isinstance(target, StarExpr):
        return unpacked(target.expr)
    return [target]


def after_super_post_init(method: FuncDef) -> list[Statement]:
    """The statements of ``__post_init__`` that run after ``super().__post_init__()`` has, where
    that call is a statement of the body itself."""
    body = method.body.body
    for index, statement in enumerate(body):
        if isinstance(statement, ExpressionStmt) and calls_super_post_init(statement.expr):
            return statements.statements_in(Block(body[index + 1 :]))
    return []


def calls_super_post_init(node: Expression) -> bool:
    return isinstance(node, CallExpr) and isinstance(node.callee, SuperExpr) and node.callee.name == POST_INIT


def fields_declared(info: TypeInfo, tree: MypyFile) -> set[str]:
    """The dataclass fields ``info`` has that a class of the checked module declares in its body
    as ``name: type`` or ``name: type = value`` (not ``= field(...)``, which may take the field out
    of ``__init__``, nor a field of a class of another module, whose declaration is not read)."""
    known = mypy_internals.dataclass_fields(info) or set()
    here = {defn.info for defn in checked_module.statements_anywhere(tree.defs) if isinstance(defn, ClassDef)}
    found = set()
    for base in info.mro:
        if base not in here:
            continue
        for statement in base.defn.defs.body:
            if not (isinstance(statement, AssignmentStmt) and statement.type is not None and len(statement.lvalues) == 1):
                continue
            target = statement.lvalues[0]
            if isinstance(target, NameExpr) and target.name in known and not isinstance(statement.rvalue, CallExpr):
                found.add(target.name)
    return found


def may_make_module(value: Expression, receiver: str, info: TypeInfo) -> bool:
    """Whether ``value`` may make a Linen module as it runs (Flax then raises
    ``AssignSubModuleError`` first): any call but one of a function of JAX, NumPy or Python, a
    class that is no Linen module, a submodule or compact method of ``self``, or an array method."""
    for call in (node for node in nodes.walk([value], into_lambdas=False) if isinstance(node, CallExpr)):
        callee = call.callee
        if isinstance(callee, RefExpr) and isinstance(callee.node, TypeInfo):
            if makes_linen_class(callee):
                return True
        elif isinstance(callee, RefExpr) and callee.fullname and callee.fullname.startswith(SAFE_CALLS):
            continue
        elif isinstance(callee, MemberExpr) and isinstance(callee.expr, NameExpr) and callee.expr.name == receiver:
            if not runs_bound_code(info, callee.name):
                return True
        elif not (isinstance(callee, MemberExpr) and callee.name in sites.ARRAY_METHODS and not isinstance(callee.expr, RefExpr)):
            return True
    return False


def runs_bound_code(info: TypeInfo, name: str) -> bool:
    """Whether ``self.<name>(...)`` calls a submodule (an attribute typed as a Linen module) or a
    compact method: code that makes its submodules where Flax lets it."""
    node = info.get(name).node if info.get(name) is not None else None  # type: ignore[union-attr]
    if isinstance(node, Var):
        declared = get_proper_type(node.type)
        return isinstance(declared, Instance) and declared.type.has_base(LINEN_MODULE)
    if isinstance(node, Decorator):
        return any(isinstance(d, RefExpr) and d.fullname == COMPACT for d in node.decorators)
    return False


def own_setattr(info: TypeInfo) -> bool:
    """Whether a class of the user's among ``info``'s own defines ``__setattr__``."""
    return any("__setattr__" in base.names for base in info.mro if not base.fullname.startswith(("flax.", "builtins.")))


def written(target: MemberExpr) -> str:
    return source(target) or f"self.{target.name}"


def setup_notes(info: TypeInfo, target: MemberExpr, statement: Statement) -> list[str]:
    """The field is given where the module is made; a submodule made there is kept under another
    name, printed back where it can be (``self.dropout_layer = nn.Dropout(self.dropout)``)."""
    notes = [FIELD_GIVEN.format(cls=info.name, name=target.name)]
    value = statement.rvalue if isinstance(statement, AssignmentStmt) and statement.lvalues == [target] else None
    written_value = source(value) if isinstance(value, CallExpr) and makes_linen_class(value.callee) else None
    if written_value is not None:
        notes.append(RENAMED.format(name=free_name(info, target.name), value=written_value))
    return notes


def makes_linen_class(callee: Expression) -> bool:
    return isinstance(callee, RefExpr) and isinstance(callee.node, TypeInfo) and callee.node.has_base(LINEN_MODULE)


def free_name(info: TypeInfo, name: str) -> str:
    """``<name>_layer``, or ``<name>_layer_1`` and on where the class has that name already."""
    candidate, number = f"{name}_layer", 0
    while any(candidate in base.names for base in info.mro):
        number += 1
        candidate = f"{name}_layer_{number}"
    return candidate


def report_in_compact(api: CheckerPluginInterface, target: MemberExpr, method: FuncDef, decorator: Decorator, shown: bool) -> None:
    """An attribute of ``self`` set in a compact method."""
    message = IN_COMPACT.format(target=written(target), method=method.name)
    notes = [FROZEN_WAY.format(name=target.name), SUBMODULE_IN_SETUP]
    if shown:
        reporting.error_with_notes(api, target, CODE, message, notes)
    else:
        where = reporting.UNCHECKED_BODY.format(line=target.line, function=method.name)
        compact = next((node for node in decorator.decorators if getattr(node, "fullname", "") == COMPACT), decorator)
        reporting.error_with_notes(api, compact, CODE, message, [where, *notes])


RULE: Final = Rule(CODE, function_hooks={COMPACT: on_compact}, attribute_hooks={LINEN_MODULE: on_attribute})
