"""``jax-equinox-frozen``: an attribute of an Equinox module set where Equinox refuses it.

An Equinox module is a frozen dataclass. While it is made (its ``__init__``, ``__post_init__``
and the methods they call), its fields may be set, each a name its class declares; any other
assignment to an attribute of a module raises. A module already made raises
``dataclasses.FrozenInstanceError`` (PyTorch's ``layer.weight = w``, ``self.hidden = h`` in
``__call__``, ``self.steps += 1``); one being made raises for a name its class does not declare
(``self.layers = [...]`` without ``layers: list`` in the class body), ``AttributeError`` before
Equinox 0.13 (``UNDECLARED_RAISES``).

Read from the hook mypy runs on each attribute of an Equinox class, so a project without
Equinox loads nothing of it:
- in a method of an Equinox class of the checked module, each ``self.<name> = ...`` (or ``+=``)
  of its body (not of functions defined in it), found once per method and reported while mypy
  checks it (methods written without a decorator): in a method that does not run while the module is made and that the module calls
  (its name read somewhere, or ``__call__``, ``__check_init__``); in one that does, for a name
  that is not a field;
- ``<name>.<attribute> = ...`` where the variable is bound in the module on every binding to an
  Equinox module (not a parameter: a function may be given a module being made), or
  ``self.<field>.<attribute> = ...`` where the field holds one.

A method runs while the module is made where it is ``__init__`` or ``__post_init__`` of an
Equinox class of the module, or its name is read in one, or in a method they reach. Where a
base class from another module has an ``__init__`` or ``__post_init__`` of its own (which may
call any method), or a class defines ``__setattr__``, nothing on ``self`` is reported. Silent
where Equinox's release is unknown or older than those measured (``OLDEST_MEASURED``).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    AssignmentStmt,
    CallExpr,
    ClassDef,
    DictExpr,
    DictionaryComprehension,
    Expression,
    FakeInfo,
    FloatExpr,
    FuncDef,
    FuncItem,
    IntExpr,
    ListComprehension,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    OperatorAssignmentStmt,
    RefExpr,
    StarExpr,
    Statement,
    StrExpr,
    TupleExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import AttributeContext, CheckerPluginInterface
from mypy.types import Instance, Type

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import checked_module, errorcodes, libraries, mypy_internals, nodes, reporting, statements
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.rules.equinox.equinox_modules import EQUINOX_MODULE_CLASSES, is_equinox_module

CODE: Final = errorcodes.EQUINOX_FROZEN

MADE_BY: Final = ("__init__", "__post_init__")
"""The methods that run while a module is made, and may set its fields."""
RUN_BY_PYTHON: Final = frozenset({"__call__", "__check_init__"})
"""Methods the module runs without naming them: ``model(x)``, and the check after ``__init__``."""
OLDEST_MEASURED: Final = (0, 11, 10)
UNDECLARED_RAISES: Final = (((0, 13, 0), "FrozenInstanceError"), (OLDEST_MEASURED, "AttributeError"))
"""What Equinox raises where a module being made sets a name its class does not declare, from
each release on, newest first (measured on 0.11.10, 0.12.2, 0.13.0, 0.13.4 and 0.13.8; a module
already made raises ``FrozenInstanceError`` on each)."""
LIBRARY_PACKAGES: Final = ("builtins", "abc", "typing", "equinox")
"""Where the classes an Equinox module derives from without code of the user's come from."""

SET_AFTER_MADE: Final = '"{target}" set in "{method}", after the Equinox module is made; Equinox raises FrozenInstanceError'
SET_ON_MODULE: Final = '"{target}" set on an Equinox module already made; Equinox raises FrozenInstanceError'
NOT_A_FIELD: Final = '"{target}" is not a field of "{cls}"; Equinox raises {exception}'
FROZEN: Final = "An Equinox module is frozen once made"
RETURN_COPY: Final = 'Return the value instead, or an updated copy of the module: "{tree_at}({change}, self, {value})"{needs}'
REBIND_COPY: Final = 'Make an updated copy instead: "{receiver} = {tree_at}({change}, {receiver}, {value})"{needs}'
DISPLAYS: Final = {ListExpr: "list", ListComprehension: "list", DictExpr: "dict", DictionaryComprehension: "dict", TupleExpr: "tuple"}
"""The type a display makes, for the field's declaration."""
DECLARE: Final = 'Declare it in the class body: "{name}: {annotation}"'
DECLARE_TYPED: Final = 'Declare it in the class body with its type: "{name}: <type>"'


def on_attribute(ctx: AttributeContext) -> Type:
    """Each attribute of an Equinox class, read or set: the assignments on ``self`` of the
    method being checked, then the assignment this attribute is the target of."""
    if libraries.INSTALLED.equinox is None or libraries.INSTALLED.equinox < OLDEST_MEASURED:
        return ctx.default_attr_type
    tree = mypy_internals.module_tree(ctx.api)
    function = mypy_internals.current_function(ctx.api)
    if tree is not None and isinstance(function, FuncDef):
        for target, statement, made in module_classes(tree).set_on_self(function):
            report_on_self(ctx.api, target, statement, function, made)
    if tree is not None and isinstance(ctx.context, MemberExpr) and isinstance(ctx.type, Instance):
        for target, statement, method in module_classes(tree).undeclared(ctx.type.type, ctx.context.name):
            if ctx.api.options.check_untyped_defs or not method.is_dynamic():
                report_on_self(ctx.api, target, statement, method, made=True)
    if ctx.is_lvalue and isinstance(ctx.context, MemberExpr):
        receiver = ctx.context.expr
        instance = ctx.type
        if isinstance(instance, Instance) and not own_setattr(instance.type) and made_already(ctx.api, receiver, function):
            report_set_on_module(ctx.api, ctx.context, checked_module.statement_at(ctx.api, ctx.context))
    return ctx.default_attr_type


def made_already(api: CheckerPluginInterface, receiver: Expression, function: FuncItem | None) -> bool:
    """Whether the module ``receiver`` reads is one already made: a variable of the module, or
    a field of ``self``, bound on every binding to what a class or a function of Equinox or JAX
    makes (``made_by_a_call``), and of the type mypy gives it. Not ``self``, nor a parameter (a
    function may be given a module being made)."""
    if isinstance(receiver, NameExpr):
        var = receiver.node
        tree = mypy_internals.module_tree(api)
        if not isinstance(var, Var) or var.is_self or tree is None:
            return False
        values = bindings.of(tree).bound_values(receiver)
        return (
            values is not None
            and all(not unpacked and made_by_a_call(value) for value, unpacked in values)
            and bindings.holds(api, receiver)
        )
    if (
        isinstance(receiver, MemberExpr)
        and isinstance(receiver.expr, NameExpr)
        and isinstance(receiver.expr.node, Var)
        and receiver.expr.node.is_self
    ):
        assigned = field_values(function, receiver.name)
        return bool(assigned) and all(made_by_a_call(value) for value in assigned) and bindings.holds(api, receiver)
    return False


def made_by_a_call(value: Expression) -> bool:
    """A call of a class, or of a function of Equinox or JAX (``eqx.tree_at``, ``jax.tree.map``):
    what they give back is frozen. Not ``copy.copy`` nor ``copy.deepcopy``: measured on Equinox
    0.13.8, their copies take any assignment (Equinox marks an instance as being made in
    ``__new__``, and only its constructor ends that); 0.11.10 raises."""
    if not isinstance(value, CallExpr) or not isinstance(value.callee, RefExpr):
        return False
    callee = value.callee
    return isinstance(callee.node, TypeInfo) or callee.fullname.partition(".")[0] in ("equinox", "jax")


def field_values(function: FuncItem | None, name: str) -> list[Expression]:
    """What the methods of the class of ``function`` (a class of the checked module) assign to
    ``self.<name>``; none where it is not known."""
    if not isinstance(function, FuncDef) or isinstance(function.info, FakeInfo):
        return []
    values: list[Expression] = []
    for statement in function.info.defn.defs.body:
        for method in bindings.defined_functions(statement):
            parameters = mypy_internals.parameters(method)
            receiver = parameters[0].variable if parameters and not method.is_static else None
            for inner in statements.statements_in(method.body) if receiver is not None else []:
                if isinstance(inner, OperatorAssignmentStmt) and isinstance(inner.lvalue, MemberExpr) and inner.lvalue.name == name:
                    return []
                if isinstance(inner, AssignmentStmt):
                    for target in assignment_targets(inner):
                        if (
                            isinstance(target, MemberExpr)
                            and isinstance(target.expr, NameExpr)
                            and target.expr.node is receiver
                            and target.name == name
                        ):
                            if inner.lvalues != [target]:
                                return []
                            values.append(inner.rvalue)
    return values


class ModuleClasses:
    """The Equinox classes of one module: which of their methods run while a module is made,
    which the module calls, and what each sets on ``self``, read once per tree."""

    def __init__(self, tree: MypyFile) -> None:
        self.tree = tree
        self.statements = tree.defs
        self.methods: dict[str, list[FuncDef]] = {}
        self.undecorated: set[int] = set()
        """The methods written without a decorator: a property's setter never runs (Equinox
        raises at the assignment that would call it), a transform's wrapper is not read."""
        for cls in classes_in(tree.defs):
            if not isinstance(cls.info, FakeInfo) and is_equinox_module(cls.info):
                for statement in cls.defs.body:
                    if isinstance(statement, FuncDef):
                        self.undecorated.add(id(statement))
                    for method in bindings.defined_functions(statement):
                        self.methods.setdefault(method.name, []).append(method)
        self.made_with = self.reached_from([method for name in MADE_BY for method in self.methods.get(name, [])])
        self.read_names: set[str] | None = None
        self.found: dict[int, list[tuple[MemberExpr, Statement, bool]]] = {}

    def reached_from(self, starts: list[FuncDef]) -> set[int]:
        """The methods ``starts`` run, by the names they read, and those they run in turn."""
        reached: set[int] = set()
        pending = list(starts)
        while pending:
            method = pending.pop()
            if id(method) in reached:
                continue
            reached.add(id(method))
            for node in nodes.walk(method.body.body):
                if isinstance(node, (MemberExpr, NameExpr)):
                    pending.extend(self.methods.get(node.name, []))
        return reached

    def called(self, name: str) -> bool:
        """Whether the module runs a method of this name: its name read anywhere in the module."""
        if self.read_names is None:
            self.read_names = {node.name for node in nodes.walk(self.tree.defs) if isinstance(node, (MemberExpr, NameExpr))}
        return name in RUN_BY_PYTHON or name in self.read_names

    def set_on_self(self, method: FuncDef) -> list[tuple[MemberExpr, Statement, bool]]:
        """The assignments to attributes of ``self`` in ``method``'s body that raise, each with
        its statement and whether it runs while the module is made; none where the method
        is not one of an Equinox class of the module, or where it cannot be told."""
        known = self.found.get(id(method))
        if known is None:
            known = self.found[id(method)] = self.read_set_on_self(method)
        return known

    def undeclared(self, info: TypeInfo, name: str) -> list[tuple[MemberExpr, Statement, FuncDef]]:
        """Where a method that runs while a module is made sets ``name``, an attribute of
        ``info`` that its class does not declare as a field, each with the method: read where
        the attribute is (``self.layers`` in ``__call__``), as a method that sets only such
        names reads no attribute of its class, and mypy's hook then never runs in it."""
        member = info.get(name)
        owner = member.node.info if member is not None and isinstance(member.node, Var) else None
        if owner is None or isinstance(owner, FakeInfo) or owner.module_name != self.tree.fullname:
            return []
        made = [method for group in self.methods.values() for method in group if method.info is owner and id(method) in self.made_with]
        return [
            (target, statement, method)
            for method in made
            for target, statement, is_made in self.set_on_self(method)
            if is_made and target.name == name
        ]

    def read_set_on_self(self, method: FuncDef) -> list[tuple[MemberExpr, Statement, bool]]:
        info = method.info
        if id(method) not in self.undecorated or not any(each is method for each in self.methods.get(method.name, [])):
            return []
        if not made_here(info, self.tree.fullname) or method.is_static or method.is_class:
            return []
        parameters = mypy_internals.parameters(method)
        if not parameters:
            return []
        receiver = parameters[0].variable
        made = id(method) in self.made_with
        if not made and not self.called(method.name):
            return []
        fields = mypy_internals.dataclass_fields(info)
        found = []
        named: set[str] = set()
        for statement in statements.statements_in(method.body):
            for target in assignment_targets(statement):
                if not (isinstance(target, MemberExpr) and isinstance(target.expr, NameExpr) and target.expr.node is receiver):
                    continue
                if isinstance(statement, OperatorAssignmentStmt) and (made or fields is None or target.name not in fields):
                    continue  # ``self.x += 1`` reads first: AttributeError where nothing is there yet
                if made and (fields is None or target.name in fields or target.name in named):
                    continue
                named.add(target.name)
                found.append((target, statement, made))
        return found


_last: ModuleClasses | None = None


def module_classes(tree: MypyFile) -> ModuleClasses:
    """The ``ModuleClasses`` of ``tree``, read once per tree (the one checked now is kept; the
    daemon gives a changed module's tree a new list of statements)."""
    global _last
    if _last is None or _last.tree is not tree or _last.statements is not tree.defs:
        _last = ModuleClasses(tree)
    return _last


def classes_in(found: list[Statement]) -> list[ClassDef]:
    """The classes defined at a module's top level, under its conditions, and inside them."""
    classes = []
    pending = list(found)
    while pending:
        statement = pending.pop()
        if isinstance(statement, ClassDef):
            classes.append(statement)
            pending.extend(statement.defs.body)
        else:
            for block in statements.compound_blocks(statement):
                pending.extend(block.body)
    return classes


def made_here(info: TypeInfo, module: str) -> bool:
    """Whether every method that may run while a module of ``info`` is made is in ``module``:
    its bases from elsewhere (Equinox's and Python's aside) have no ``__init__`` or
    ``__post_init__`` of their own, and no class sets attributes its own way."""
    for base in info.mro:
        if base.fullname.partition(".")[0] in LIBRARY_PACKAGES:
            continue
        if "__setattr__" in base.names:
            return False
        if base.module_name != module and any(name in base.names for name in MADE_BY):
            return False
    return True


def own_setattr(info: TypeInfo) -> bool:
    """Whether a class of ``info``'s, not Equinox's, defines ``__setattr__``."""
    return any("__setattr__" in base.names for base in info.mro if base.fullname.partition(".")[0] not in LIBRARY_PACKAGES)


def assignment_targets(statement: Statement) -> list[Expression]:
    """What an assignment binds (each item of a tuple target); nothing for other statements."""
    if isinstance(statement, OperatorAssignmentStmt):
        return [statement.lvalue]
    if not isinstance(statement, AssignmentStmt):
        return []
    found: list[Expression] = []
    pending: list[Expression] = list(statement.lvalues)
    while pending:
        target = pending.pop(0)
        if isinstance(target, (TupleExpr, ListExpr)):
            pending[:0] = target.items
        elif isinstance(target, StarExpr):
            pending.insert(0, target.expr)
        else:
            found.append(target)
    return found


def undeclared_raises() -> str | None:
    """What the installed Equinox raises for a name that is not a field; None where unknown."""
    release = libraries.INSTALLED.equinox
    return next((exception for since, exception in UNDECLARED_RAISES if release is not None and release >= since), None)


def new_value(target: MemberExpr, statement: Statement | None) -> str | None:
    """The value an assignment gives ``target``, as the code writes it (``self.steps + 1`` for
    ``self.steps += 1``); None where it gives several."""
    if isinstance(statement, OperatorAssignmentStmt):
        return f"{source(target)} {statement.op} {source(statement.rvalue)}"
    if isinstance(statement, AssignmentStmt) and statement.lvalues == [target]:
        return source(statement.rvalue)
    return None


def report_on_self(api: CheckerPluginInterface, target: MemberExpr, statement: Statement, method: FuncDef, made: bool) -> None:
    """``jax-equinox-frozen`` on ``self``: a field set after the module is made, or a name that
    is not a field set while it is made. Made from the hooks of other lines, which may run
    while mypy only tries a call (``mypy_internals.unwatched``), and from each of them: the
    first report of the line stands."""
    if made:
        exception = undeclared_raises()
        if exception is None:
            return
        message = NOT_A_FIELD.format(target=source(target), cls=method.info.name, exception=exception)
        notes = [declare(target.name, statement)]
    else:
        message = SET_AFTER_MADE.format(target=source(target), method=method.name)
        notes = [FROZEN]
        value = new_value(target, statement)
        if value is not None:
            tree_at, needs = tree_at_reference(api)
            notes.append(RETURN_COPY.format(tree_at=tree_at, change=where_changed(target, "self"), value=value, needs=needs))
    with mypy_internals.unwatched(api) as shown:
        if shown and not mypy_internals.already_reported(api, target, message):
            reporting.error_with_notes(api, target, CODE, message, notes)


def report_set_on_module(api: CheckerPluginInterface, target: MemberExpr, statement: Statement | None) -> None:
    """``jax-equinox-frozen`` on another module: an attribute set on a module already made."""
    notes = [FROZEN]
    value = new_value(target, statement)
    if value is not None:
        tree_at, needs = tree_at_reference(api)
        receiver = source(target.expr)
        notes.append(
            REBIND_COPY.format(receiver=receiver, tree_at=tree_at, change=where_changed(target, receiver), value=value, needs=needs)
        )
    reporting.error_with_notes(api, target, CODE, SET_ON_MODULE.format(target=source(target)), notes)


def tree_at_reference(api: CheckerPluginInterface) -> tuple[str, str]:
    """``eqx.tree_at`` as the module can name it, and the import it needs where it cannot yet."""
    written, imports = checked_module.reference(api, "equinox", "tree_at")
    return written, " (needs " + ", ".join(f'"{statement}"' for statement in imports) + ")" if imports else ""


def where_changed(target: MemberExpr, receiver: str | None) -> str:
    """The function that picks the changed field out of the module, for ``eqx.tree_at``; its
    parameter named apart from the receiver (``m``, unless the receiver is ``m``)."""
    parameter = "module" if receiver == "m" else "m"
    return f"lambda {parameter}: {parameter}.{target.name}"


def declare(name: str, statement: Statement) -> str:
    """The note naming the field to declare, with its type where the value written shows it (a
    literal, a display, or a class called); mypy has not yet typed the value where the method is read."""
    value = statement.rvalue if isinstance(statement, AssignmentStmt) and len(statement.lvalues) == 1 else None
    annotation = None
    if isinstance(value, (IntExpr, FloatExpr, StrExpr)):
        annotation = type(value.value).__name__
    elif isinstance(value, (ListExpr, ListComprehension, DictExpr, DictionaryComprehension, TupleExpr)):
        annotation = DISPLAYS[type(value)]
    elif isinstance(value, CallExpr) and isinstance(value.callee, RefExpr) and isinstance(value.callee.node, TypeInfo):
        annotation = source(value.callee)
    return DECLARE.format(name=name, annotation=annotation) if annotation else DECLARE_TYPED.format(name=name)


RULE: Final = Rule(CODE, attribute_hooks=dict.fromkeys(EQUINOX_MODULE_CLASSES, on_attribute))
