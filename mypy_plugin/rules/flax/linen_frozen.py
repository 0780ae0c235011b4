"""``jax-linen-frozen`` (``docs/rules/``): an attribute of a Flax Linen module set where Flax refuses it.

A Linen module is a frozen dataclass once its ``__post_init__`` has run: only ``setup`` (and what
it calls) may assign attributes of ``self``, and not the dataclass fields, which are given where
the module is made. So Flax raises (measured on Flax 0.12.8 and 0.10.0):

- ``SetAttributeFrozenModuleError`` for ``self.x = ...`` in a compact method, in a plain method
  that ``init`` or ``apply`` runs (a ``__call__`` ported from PyTorch's ``forward``, a method given
  as ``method=``, what those call on ``self``: ``linen_methods`` says which), and in
  ``__post_init__`` after ``super().__post_init__()``, and for an attribute set on a submodule
  already made (``dense.features = 20`` in a compact method, ``self.dense.features = 20`` in
  ``setup``);
- ``SetAttributeInModuleSetupError`` for ``self.<field> = ...`` in ``setup``, where the field is
  declared in a class of the checked module (``dropout: float`` beside ``self.dropout =
  nn.Dropout(self.dropout)``).

Compact methods are read from the hook of ``@nn.compact``; the rest from the hook mypy runs on each
attribute of a Linen class, in the bodies mypy checks (``self.dense`` in ``self.dense(x)``, ``self.h``
in ``self.h = h`` too), each method once: a project without Flax loads nothing of it.
"""

from __future__ import annotations

from typing import Final, TypeGuard

from mypy.nodes import (
    FUNC_NO_INFO,
    LDEF,
    AssignmentExpr,
    AssignmentStmt,
    Block,
    BreakStmt,
    CallExpr,
    ClassDef,
    ContinueStmt,
    Decorator,
    Expression,
    ExpressionStmt,
    FuncDef,
    MemberExpr,
    MypyFile,
    NameExpr,
    OperatorAssignmentStmt,
    RaiseStmt,
    RefExpr,
    ReturnStmt,
    Statement,
    SuperExpr,
    TryStmt,
    TypeInfo,
    Var,
)
from mypy.plugin import AttributeContext, CheckerPluginInterface, FunctionContext
from mypy.types import Instance, Type, UnboundType, get_proper_type

from mypy_plugin.analyses import sites
from mypy_plugin.analyses.transforms import receiver_of
from mypy_plugin.lib import checked_module, errorcodes, mypy_internals, nodes, reporting, statements
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.rules.flax import linen_methods
from mypy_plugin.rules.flax.linen_methods import COMPACT, LINEN_MODULE

CODE: Final = errorcodes.LINEN_FROZEN

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
    "\"{receiver}.sow('intermediates', '{name}', value)\" and apply with mutable=[\"intermediates\"]"
)
SUBMODULE_IN_SETUP: Final = 'Submodules and fields kept on "self" are assigned in "setup"'
BEFORE_SUPER: Final = 'Set it before "super().__post_init__()", which freezes the module'
FIELD_GIVEN: Final = 'A field is given where the module is made ("{cls}({name}=...)") and frozen after'
RENAMED: Final = 'Keep the submodule under a name that is no field: "self.{name} = {value}"'
ON_SUBMODULE: Final = '"{target}" set on submodule "{cls}" after it is made; Flax raises SetAttributeFrozenModuleError'
GIVE_WHERE_MADE: Final = 'A submodule is frozen once made: give "{name}" to "{made}" where it is made'
KEEP_APART: Final = 'A submodule is frozen once made: keep "{name}" in a variable of its own'


def on_compact(ctx: FunctionContext) -> Type:
    """``@nn.compact`` on a method of a Linen class: each ``self.x = ...`` of its own body (not in
    a function defined there), reported at ``@nn.compact`` with a note naming the line where mypy
    does not check the body."""
    decorator = ctx.context
    if not isinstance(decorator, Decorator) or decorator.func.info is FUNC_NO_INFO or not decorator.func.info.has_base(LINEN_MODULE):
        return ctx.default_return_type
    method = decorator.func
    receiver = receiver_of(method)
    if receiver is None or method.is_class or not own_attributes(method.info):
        return ctx.default_return_type
    shown = not method.is_dynamic() or ctx.api.options.check_untyped_defs
    for statement in statements.statements_in(method.body):
        if not isinstance(statement, AssignmentStmt):
            continue
        for target in statement.lvalues:
            if attribute_of(target, receiver) and not is_dunder(target.name):
                message, notes = IN_COMPACT.format(target=written(target), method=method.name), frozen_notes(target, receiver, method.info)
                report_in_compact(ctx.api, target, method, decorator, shown, message, notes)
    for target, made in set_on_submodules(method, receiver, kept_on_self=False):
        message, notes = submodule_report(target, made)
        report_in_compact(ctx.api, target, method, decorator, shown, message, notes)
    return ctx.default_return_type


def on_attribute(ctx: AttributeContext) -> Type:
    """Each attribute of a Linen class read or set in a body mypy checks: the method being
    checked, where it is one of a Linen class of the checked module, is read once for what it
    sets on ``self`` where Flax refuses it, and each is reported (once per line)."""
    method = mypy_internals.current_function(ctx.api)
    if not isinstance(method, FuncDef) or method.info is FUNC_NO_INFO or not method.info.has_base(LINEN_MODULE):
        return ctx.default_attr_type
    tree = mypy_internals.module_tree(ctx.api)
    if tree is None or (method.is_dynamic() and not ctx.api.options.check_untyped_defs):
        return ctx.default_attr_type
    found = frozen_sets(tree)
    if method not in found:
        with mypy_internals.unwatched(ctx.api) as shown:
            if not shown:
                return ctx.default_attr_type  # a module whose errors mypy hides (Flax's own): nothing read
        found[method] = sets_refused(tree, method)
    for report in found[method]:
        report(ctx.api)
    return ctx.default_attr_type


def sets_refused(tree: MypyFile, method: FuncDef) -> list[Report]:
    """What ``method`` sets on ``self`` where Flax refuses it, as reports to make: the first it
    runs (Flax raises there, and the method goes no further)."""
    receiver = receiver_of(method)
    info = method.info
    if receiver is None or method.is_class or not own_attributes(info):
        return []
    if method.name == SETUP:
        found = set_in_setup(tree, method, receiver) if runs_bound(tree, info, SETUP) else []
    elif method.name == POST_INIT:
        found = set_after_post_init(method, receiver, info) if runs_bound(tree, info, POST_INIT) else []
    elif targets_on(receiver, statements.statements_in(method.body)):  # most methods set nothing on self
        found = set_outside_setup(tree, method, receiver, info)
    else:
        found = []
    return sorted(found, key=lambda report: (report.target.line, report.target.column))[:1]


def set_in_setup(tree: MypyFile, method: FuncDef, receiver: str) -> list[Report]:
    """Fields of the class set in ``setup``, and attributes of submodules it made and kept on ``self``."""
    info = method.info
    fields = fields_declared(info, tree)
    found = [
        Report(target, FIELD_IN_SETUP.format(target=written(target), name=target.name, cls=info.name), setup_notes(info, target, statement))
        for statement, targets in every_target_on(receiver, reached(method.body))
        for target in targets
        if target.name in fields
    ]
    changed = set_on_submodules(method, receiver, kept_on_self=True)
    return found + [Report(target, *submodule_report(target, made)) for target, made in changed]


def set_after_post_init(method: FuncDef, receiver: str, info: TypeInfo) -> list[Report]:
    """Attributes set on the straight path of ``__post_init__`` after ``super().__post_init__()``."""
    found = []
    for statement, target in targets_on(receiver, after_super_post_init(method)):
        value = statement.rvalue if isinstance(statement, AssignmentStmt) else None
        makes = value is not None and may_make_module(value, receiver, info)
        found.append(Report(target, AFTER_POST_INIT.format(target=written(target)), [SUBMODULE_IN_SETUP if makes else BEFORE_SUPER]))
    return found


def set_outside_setup(tree: MypyFile, method: FuncDef, receiver: str, info: TypeInfo) -> list[Report]:
    """Attributes set in a plain method that runs outside ``setup`` (``linen_methods``): anywhere it
    runs when reached where nothing else runs the method, else on the straight path of its body; not
    where the value may make a module (Flax raises ``AssignSubModuleError`` first), nor an augmented
    assignment of a name the class may not have yet (``AttributeError`` first)."""
    only_outside = linen_methods.linen_classes(tree).outside.get(method)
    if only_outside is None:
        return []
    run = reached(method.body) if only_outside else statements.straight_path(method.body)
    found = []
    for statement, target in targets_on(receiver, run):
        value = statement.rvalue if isinstance(statement, (AssignmentStmt, OperatorAssignmentStmt)) else None
        if value is not None and may_make_module(value, receiver, info):
            continue
        if isinstance(statement, OperatorAssignmentStmt) and not readable(info, target.name):
            continue
        found.append(Report(target, IN_PLAIN.format(target=written(target), method=method.name), frozen_notes(target, receiver, info)))
    return found


def reached(block: Block) -> list[Statement]:
    """The statements of ``block`` and of the compound statements in it that run where reached: not
    those after a ``return``, ``raise``, ``break`` or ``continue`` of their block, nor those of a
    ``try`` (an ``except`` may take what they raise)."""
    found: list[Statement] = []
    for statement in block.body:
        found.append(statement)
        if isinstance(statement, TryStmt):
            continue
        for inner in statements.compound_blocks(statement):
            found.extend(reached(inner))
        if isinstance(statement, (ReturnStmt, RaiseStmt, BreakStmt, ContinueStmt)):
            break
    return found


def runs_bound(tree: MypyFile, info: TypeInfo, name: str) -> bool:
    """Whether the module runs ``init`` or ``apply`` of ``info``, or of a class deriving from it
    that runs ``info``'s ``name`` (``setup``, ``__post_init__``) as its own (no class between defines
    it again), where Flax makes and binds the module (``linen_methods``); for ``setup``, also where
    a Linen method makes one as a submodule."""
    classes = linen_methods.linen_classes(tree)
    if info.name in classes.defined_twice:
        return False
    bound = classes.applied | classes.made_as_submodule if name == SETUP else classes.applied  # a submodule runs its setup where used
    for cls in classes_named(tree, bound):
        defining = next((base for base in cls.mro if name in base.names), None)
        if defining is info:
            return True
    return False


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


def classes_named(tree: MypyFile, fullnames: set[str]) -> list[TypeInfo]:
    return [
        defn.info for defn in checked_module.statements_anywhere(tree.defs) if isinstance(defn, ClassDef) and defn.fullname in fullnames
    ]


def every_target_on(receiver: str, run: list[Statement]) -> list[tuple[Statement, list[MemberExpr]]]:
    """Every attribute of ``receiver`` each of the statements ``run`` sets, in order."""
    found: list[tuple[Statement, list[MemberExpr]]] = []
    for statement in run:
        targets = statements.assignment_targets(statement)
        on_receiver = [target for target in targets if attribute_of(target, receiver)]
        if on_receiver:
            found.append((statement, [t for t in on_receiver if not is_dunder(t.name)]))
    return found


def attribute_of(node: Expression, receiver: str) -> TypeGuard[MemberExpr]:
    """``self.<name>``: an attribute of the method's receiver."""
    return isinstance(node, MemberExpr) and isinstance(node.expr, NameExpr) and node.expr.name == receiver


def is_dunder(name: str) -> bool:
    """``__doc__``: Flax 0.12 lets any name starting ``__`` be set, Flax 0.10 none (``self.__private``
    is stored mangled, which no release lets)."""
    return name.startswith("__") and name.endswith("__")


def targets_on(receiver: str, run: list[Statement]) -> list[tuple[Statement, MemberExpr]]:
    """The first attribute of ``receiver`` each of the statements ``run`` sets (``self.h = h``,
    ``self.a, self.b = ...``, ``self.count += 1``): the first raises."""
    return [(statement, targets[0]) for statement, targets in every_target_on(receiver, run) if targets]


def set_on_submodules(method: FuncDef, receiver: str, *, kept_on_self: bool) -> list[tuple[MemberExpr, CallExpr]]:
    """Attributes set on a submodule the method made before, on the straight path of its body, each
    with the call that made it: in a compact method through a local variable (``dense =
    nn.Dense(10)``, then ``dense.features = 20``); in ``setup`` through the attribute of ``self`` it
    was assigned to (``self.dense = nn.Dense(10)``, then ``self.dense.features = 20``; a local there
    is not attached yet, and takes assignments)."""
    made: dict[str, CallExpr] = {}
    found: list[tuple[MemberExpr, CallExpr]] = []
    for statement in statements.straight_path(method.body):
        if not isinstance(statement, AssignmentStmt):
            if any(isinstance(node, AssignmentExpr) for node in nodes.walk([statement])) or not isinstance(statement, ExpressionStmt):
                made.clear()  # may bind the names kept (a walrus, a loop, a with): no longer known
            continue
        targets = statements.assignment_targets(statement)
        for target in targets:
            if isinstance(target, MemberExpr) and not is_dunder(target.name):
                key = holder(target.expr, receiver, kept_on_self)
                if key is not None and key in made:
                    found.append((target, made[key]))
        for target in targets:
            key = holder(target, receiver, kept_on_self)
            value = statement.rvalue if statement.lvalues == [target] else None
            if key is None:
                continue
            if isinstance(value, CallExpr) and makes_linen_class(value.callee) and not linen_methods.may_pass_parent(value):
                made[key] = value
            else:
                made.pop(key, None)
    return found


def holder(node: Expression, receiver: str, kept_on_self: bool) -> str | None:
    """The name a submodule is kept under: ``self.dense`` in ``setup``, a local elsewhere."""
    if kept_on_self:
        return f"{receiver}.{node.name}" if attribute_of(node, receiver) else None
    return node.name if isinstance(node, NameExpr) and node.kind == LDEF else None


def submodule_report(target: MemberExpr, made: CallExpr) -> tuple[str, list[str]]:
    """The message and notes of an attribute set on a submodule already made: a field of its class
    goes to the call that makes it, anything else to a variable of its own."""
    assert isinstance(made.callee, RefExpr) and isinstance(made.callee.node, TypeInfo)  # makes_linen_class says so
    cls = made.callee.node
    message = ON_SUBMODULE.format(target=written(target), cls=cls.name)
    call = source(made)
    if target.name in (mypy_internals.dataclass_fields(cls) or ()) and call is not None:
        return message, [GIVE_WHERE_MADE.format(name=target.name, made=call)]
    return message, [KEEP_APART.format(name=target.name)]


def after_super_post_init(method: FuncDef) -> list[Statement]:
    """The statements of ``__post_init__``'s straight path after ``super().__post_init__()``, where
    that call is one of them."""
    path = statements.straight_path(method.body)
    for index, statement in enumerate(path):
        if isinstance(statement, ExpressionStmt) and calls_super_post_init(statement.expr):
            return path[index + 1 :]
    return []


def calls_super_post_init(node: Expression) -> bool:
    return isinstance(node, CallExpr) and isinstance(node.callee, SuperExpr) and node.callee.name == POST_INIT


def fields_declared(info: TypeInfo, tree: MypyFile) -> set[str]:
    """The dataclass fields of ``info`` whose nearest declaration, in a class of the checked module,
    is ``name: type`` or ``name: type = value``: not ``= field(...)``, which may take the field out of
    ``__init__``, nor an ``InitVar``, nor one declared in a class of another module, whose
    declaration is not read."""
    known = mypy_internals.dataclass_fields(info) or set()
    here = {defn.info for defn in checked_module.statements_anywhere(tree.defs) if isinstance(defn, ClassDef)}
    found: set[str] = set()
    decided: set[str] = set()
    for base in info.mro:
        for statement in base.defn.defs.body if base in here else []:
            if not (isinstance(statement, AssignmentStmt) and statement.type is not None and len(statement.lvalues) == 1):
                continue
            target = statement.lvalues[0]
            if not isinstance(target, NameExpr) or target.name not in known or target.name in decided:
                continue
            decided.add(target.name)
            declared = statement.unanalyzed_type
            init_var = isinstance(declared, UnboundType) and declared.name.rpartition(".")[2] == "InitVar"
            if not isinstance(statement.rvalue, CallExpr) and not init_var:
                found.add(target.name)
        if base not in here:
            decided.update(name for name in base.names if name in known)  # declared there, unread
    return found


def readable(info: TypeInfo, name: str) -> bool:
    """Whether ``self.<name>`` holds a value before the method runs: a field, or an attribute that
    ``setup`` sets (``self.steps += 1`` of a name set nowhere raises ``AttributeError`` first)."""
    if name in (mypy_internals.dataclass_fields(info) or ()):
        return True
    setup = info.get_method(SETUP)
    receiver = receiver_of(setup) if isinstance(setup, FuncDef) else None
    if receiver is None or not isinstance(setup, FuncDef):
        return False
    return any(target.name == name for _, targets in every_target_on(receiver, reached(setup.body)) for target in targets)


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
        elif attribute_of(callee, receiver):
            if not runs_bound_code(info, callee.name):
                return True
        elif not (isinstance(callee, MemberExpr) and callee.name in sites.ARRAY_METHODS and not names_module_or_class(callee.expr)):
            return True
    return False


def names_module_or_class(node: Expression) -> bool:
    return isinstance(node, RefExpr) and isinstance(node.node, (MypyFile, TypeInfo))


def runs_bound_code(info: TypeInfo, name: str) -> bool:
    """Whether ``self.<name>(...)`` calls a submodule (an attribute typed as a Linen module) or a
    compact method: code that makes its submodules where Flax lets it."""
    found = info.get(name)
    node = found.node if found is not None else None
    if isinstance(node, Var):
        declared = get_proper_type(node.type)
        return isinstance(declared, Instance) and declared.type.has_base(LINEN_MODULE)
    if isinstance(node, Decorator):
        return any(isinstance(d, RefExpr) and d.fullname == COMPACT for d in node.decorators)
    return False


def own_attributes(info: TypeInfo) -> bool:
    """Whether Flax's ``__setattr__`` decides the class's attributes: no class of the user's among
    its own defines ``__setattr__``, and none derives from something mypy could not resolve (a base
    imported from a module it does not find may define one)."""
    user_classes = [base for base in info.mro if not base.fullname.startswith(("flax.", "builtins."))]
    return not any("__setattr__" in base.names or base.fallback_to_any for base in user_classes)


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


def frozen_notes(target: MemberExpr, receiver: str, info: TypeInfo) -> list[str]:
    """Return or sow the value; for a name that is no field, ``setup`` may keep it."""
    notes = [FROZEN_WAY.format(receiver=receiver, name=target.name)]
    return notes if target.name in (mypy_internals.dataclass_fields(info) or ()) else [*notes, SUBMODULE_IN_SETUP]


def report_in_compact(
    api: CheckerPluginInterface, target: MemberExpr, method: FuncDef, decorator: Decorator, shown: bool, message: str, notes: list[str]
) -> None:
    """An attribute set in a compact method: at the line, or at ``@nn.compact`` with a note naming
    the line where mypy does not check the body."""
    if shown:
        reporting.error_with_notes(api, target, CODE, message, notes)
    else:
        where = reporting.UNCHECKED_BODY.format(line=target.line, function=method.name)
        compact = next((node for node in decorator.decorators if getattr(node, "fullname", "") == COMPACT), decorator)
        reporting.error_with_notes(api, compact, CODE, message, [where, *notes])


RULE: Final = Rule(CODE, function_hooks={COMPACT: on_compact}, attribute_hooks={LINEN_MODULE: on_attribute})
