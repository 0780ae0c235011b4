"""``jax-equinox-frozen``: an attribute of an Equinox module set where Equinox refuses it.

An Equinox module is a frozen dataclass. While it is made (its ``__init__``, ``__post_init__``
and what they call), its fields may be set, each a name its class declares; any other
assignment to an attribute of a module raises. A module already made raises
``dataclasses.FrozenInstanceError`` (PyTorch's ``layer.weight = w``, ``self.hidden = h`` in
``__call__``, ``self.steps += 1``); one being made raises for a name its class does not declare
(``self.layers = [...]`` without ``layers: list`` in the class body), ``AttributeError`` before
Equinox 0.13 (``UNDECLARED_RAISES``).

Read from the hook mypy runs on each attribute of an Equinox class (``self.a`` in ``self.a = 0``
too), so a project without Equinox loads nothing of it, and only in the bodies mypy checks:
- in a method of an Equinox class of the checked module, written without a decorator, each
  ``self.<name> = ...`` (or ``+=`` on a field) of its body, found once per method: in a method
  that runs after the module is made and that the module runs (``after_init``); in one that
  runs while it is made, a name that is not a field (``during_init``);
- ``<name>.<attribute> = ...`` where every binding of the variable is what a class or a function
  of Equinox or JAX makes (not a parameter: a function may be given a module being made), or
  ``self.<field>.<attribute> = ...`` where every value the class gives the field is.

A method runs while a module is made where ``__init__`` or ``__post_init__`` of an Equinox class
of the module reaches it: by its name read there (``self._build(key)``), through the functions
of the module they call (``init_weights(self)``), or as ``self(...)``. Where a base class from
another module has an ``__init__`` or ``__post_init__`` of its own (which may call any method),
or a class defines ``__setattr__``, nothing on ``self`` is reported. Silent where Equinox's
release is unknown or older than those measured (``OLDEST_MEASURED``).
"""

from __future__ import annotations

from typing import Final, NamedTuple, TypeGuard

from mypy.nodes import (
    GDEF,
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
from mypy_plugin.lib.source import operand, source
from mypy_plugin.rules.equinox.equinox_modules import EQUINOX_MODULE_CLASSES, is_equinox_module

CODE: Final = errorcodes.EQUINOX_FROZEN

MADE_BY: Final = ("__init__", "__post_init__")
"""The methods that run while a module is made, and may set its fields."""
CALLED: Final = "__call__"
CHECK_INIT: Final = "__check_init__"
RUN_BY_PYTHON: Final = frozenset({CALLED, CHECK_INIT})
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
RETURN_VALUE: Final = "Return the value instead"
AFTER_CHECK: Final = 'A module is made when "__check_init__" runs: compute the value in "__init__" or "__post_init__"'
DISPLAYS: Final = {ListExpr: "list", ListComprehension: "list", DictExpr: "dict", DictionaryComprehension: "dict", TupleExpr: "tuple"}
"""The type a display makes, for the field's declaration."""
DECLARE: Final = 'Declare it in the class body: "{name}: {annotation}"'
DECLARE_TYPED: Final = 'Declare it in the class body with its type: "{name}: <type>"'
DECLARE_INSTEAD: Final = 'A class attribute is no field: declare "{name}: <type>" in the class body in its place'


def on_attribute(ctx: AttributeContext) -> Type:
    """Each attribute of an Equinox class, read or set, in a body mypy checks: the assignments
    on ``self`` of the method being checked, then the assignment this attribute is the target
    of."""
    release = libraries.INSTALLED.equinox
    function = mypy_internals.current_function(ctx.api)
    tree = mypy_internals.module_tree(ctx.api)
    if release is None or release < OLDEST_MEASURED or tree is None or not checked(ctx.api, function):
        return ctx.default_attr_type
    classes = equinox_classes(tree)
    if isinstance(function, FuncDef):
        for found in classes.set_on_self(function):
            if found.during_init:
                report_not_a_field(ctx.api, found.target, found.statement, function.info)
            else:
                report_set_after_init(ctx.api, found.target, found.statement, function)
    if ctx.is_lvalue and isinstance(ctx.context, MemberExpr) and isinstance(ctx.type, Instance) and not own_setattr(ctx.type.type):
        if made_already(ctx.api, tree, ctx.context.expr, function):
            during_init = isinstance(function, FuncDef) and classes.runs_during_init(function)
            field = ctx.context.name in (mypy_internals.dataclass_fields(ctx.type.type) or ())
            statement = checked_module.statement_at(ctx.api, ctx.context)
            report_set_on_module(ctx.api, ctx.context, statement, function, during_init=during_init, field=field)
    return ctx.default_attr_type


def checked(api: CheckerPluginInterface, function: FuncItem | None) -> bool:
    """Whether mypy checks the body the hook runs in: a module's top level, an annotated
    function, any function under ``check_untyped_defs``."""
    return function is None or api.options.check_untyped_defs or not function.is_dynamic()


def made_already(api: CheckerPluginInterface, tree: MypyFile, receiver: Expression, function: FuncItem | None) -> bool:
    """Whether the module ``receiver`` reads is one already made: a variable of the module, or
    a field of ``self``, bound on every binding to what a class or a function of Equinox or JAX
    makes (``made_by_a_call``), and of the type mypy gives it. Not ``self``, nor a parameter (a
    function may be given a module being made)."""
    if isinstance(receiver, NameExpr):
        var = receiver.node
        if not isinstance(var, Var) or var.is_self:
            return False
        values = bindings.of(tree).bound_values(receiver)
        return (
            values is not None
            and all(not unpacked and made_by_a_call(value) for value, unpacked in values)
            and bindings.holds(api, receiver)
        )
    if is_field_of_self(receiver):
        assigned = field_values(function, receiver.name)
        return bool(assigned) and all(made_by_a_call(value) for value in assigned) and bindings.holds(api, receiver)
    return False


def is_field_of_self(node: Expression) -> TypeGuard[MemberExpr]:
    """``self.<name>``, where ``self`` is the first parameter of a method."""
    return isinstance(node, MemberExpr) and isinstance(node.expr, NameExpr) and isinstance(node.expr.node, Var) and node.expr.node.is_self


def made_by_a_call(value: Expression) -> bool:
    """A call of a class, or of a function of Equinox or JAX written where mypy knows what it
    returns: what they give back is frozen. Not ``copy.copy`` nor ``copy.deepcopy``: measured on
    Equinox 0.13.8, their copies take any assignment (Equinox marks an instance as being made in
    ``__new__``, and only its constructor ends that); 0.11.10 raises."""
    if not isinstance(value, CallExpr) or not isinstance(value.callee, RefExpr):
        return False
    callee = value.callee
    return isinstance(callee.node, TypeInfo) or callee.fullname.partition(".")[0] in ("equinox", "jax")


def field_values(function: FuncItem | None, name: str) -> list[Expression]:
    """What the methods of the class of ``function`` (a class of the checked module) assign to
    ``self.<name>``; none where it is not known (also where one of them changes it in place, or
    assigns it among several targets)."""
    if not isinstance(function, FuncDef) or isinstance(function.info, FakeInfo):
        return []
    values: list[Expression] = []
    for statement in function.info.defn.defs.body:
        for method in bindings.defined_functions(statement):
            for inner, target in targets_on_self(method):
                if target.name != name:
                    continue
                if not isinstance(inner, AssignmentStmt) or inner.lvalues != [target]:
                    return []
                values.append(inner.rvalue)
    return values


def targets_on_self(method: FuncDef) -> list[tuple[Statement, MemberExpr]]:
    """Each ``self.<name>`` that an assignment in ``method``'s body (not in functions defined
    there) binds, with its statement."""
    parameters = mypy_internals.parameters(method)
    if not parameters or method.is_static or method.is_class:
        return []
    receiver = parameters[0].variable
    return [
        (statement, target)
        for statement in statements.statements_in(method.body)
        for target in statements.assignment_targets(statement)
        if isinstance(target, MemberExpr) and isinstance(target.expr, NameExpr) and target.expr.node is receiver
    ]


class SetOnSelf(NamedTuple):
    """An assignment to an attribute of ``self`` that raises."""

    target: MemberExpr
    statement: Statement
    during_init: bool
    """Whether it runs while the module is made (a name that is not a field), or after."""


class EquinoxClasses:
    """The Equinox classes of one module: which of their methods run while a module is made,
    which the module runs, and what each sets on ``self`` that raises, read once per tree."""

    def __init__(self, tree: MypyFile) -> None:
        self.tree = tree
        self.classes = [
            statement.info
            for statement in checked_module.statements_anywhere(tree.defs)
            if isinstance(statement, ClassDef) and not isinstance(statement.info, FakeInfo) and is_equinox_module(statement.info)
        ]
        """The Equinox classes defined in the module, at any depth (a test's own class too)."""
        self.methods: dict[str, list[FuncDef]] = {}
        """The methods of the Equinox classes, by name."""
        self.undecorated: set[int] = set()
        """The methods written without a decorator: a property's setter never runs (Equinox
        raises at the assignment that would call it), a transform's wrapper is not read."""
        for info in self.classes:
            for statement in info.defn.defs.body:
                if isinstance(statement, FuncDef):
                    self.undecorated.add(id(statement))
                for method in bindings.defined_functions(statement):
                    self.methods.setdefault(method.name, []).append(method)
        self.functions: dict[str, list[FuncDef]] = {}
        """The module's own functions, by name, which a method may run (``init_weights(self)``)."""
        for statement in tree.defs:
            for function in bindings.defined_functions(statement):
                self.functions.setdefault(function.name, []).append(function)
        self.during_init = self.reached_from([method for name in MADE_BY for method in self.methods.get(name, [])])
        self.read_names: set[str] | None = None
        self.found: dict[int, list[SetOnSelf]] = {}

    def reached_from(self, starts: list[FuncDef]) -> set[int]:
        """The methods and functions ``starts`` run, by the names they read (``self(...)`` runs
        ``__call__``), and those they run in turn."""
        reached: set[int] = set()
        pending = list(starts)
        while pending:
            function = pending.pop()
            if id(function) in reached:
                continue
            reached.add(id(function))
            for node in nodes.walk(function.body.body):
                if isinstance(node, (MemberExpr, NameExpr)):
                    pending.extend(self.methods.get(node.name, []))
                    pending.extend(self.functions.get(node.name, []))
                elif isinstance(node, CallExpr) and isinstance(node.callee, NameExpr) and isinstance(node.callee.node, Var):
                    if node.callee.node.is_self:
                        pending.extend(self.methods.get(CALLED, []))
        return reached

    def runs_during_init(self, function: FuncDef) -> bool:
        return id(function) in self.during_init

    def runs(self, name: str) -> bool:
        """Whether the module runs a method of this name: its name read anywhere in the module."""
        if self.read_names is None:
            self.read_names = {node.name for node in nodes.walk(self.tree.defs) if isinstance(node, (MemberExpr, NameExpr))}
        return name in RUN_BY_PYTHON or name in self.read_names

    def set_on_self(self, method: FuncDef) -> list[SetOnSelf]:
        """The assignments to attributes of ``self`` in ``method``'s body that raise; none where
        the method is not one of an Equinox class of the module, or where it cannot be told."""
        known = self.found.get(id(method))
        if known is None:
            known = self.found[id(method)] = self.read_set_on_self(method)
        return known

    def read_set_on_self(self, method: FuncDef) -> list[SetOnSelf]:
        if id(method) not in self.undecorated:  # not a method of an Equinox class of the module, or decorated
            return []
        info = method.info
        during_init = self.runs_during_init(method)
        if not made_here(info, self.tree.fullname) or not (during_init or self.runs(method.name)):
            return []
        fields = mypy_internals.dataclass_fields(info)
        if fields is None:
            return []
        found = []
        named: set[str] = set()
        for statement, target in targets_on_self(method):
            name = target.name
            if during_init:
                # a name that is not a field, the first time; Equinox lets a wrapper set its
                # __doc__, __name__, ..., and a class of the module may declare it for its subclass
                if isinstance(statement, OperatorAssignmentStmt) or name in fields or name in named or is_dunder(name):
                    continue
                if self.declared_below(info, name):
                    continue
                named.add(name)
            elif isinstance(statement, OperatorAssignmentStmt) and name not in fields and not class_attribute(info, name):
                continue  # ``self.x += 1`` reads first: AttributeError where nothing is there
            found.append(SetOnSelf(target, statement, during_init))
        return found

    def declared_below(self, info: TypeInfo, name: str) -> bool:
        """Whether a subclass of ``info`` in the module declares ``name`` as a field: the base's
        ``__init__`` then sets it for the subclass's modules."""
        return any(
            other is not info and info in other.mro and name in (mypy_internals.dataclass_fields(other) or ()) for other in self.classes
        )


equinox_classes: Final = checked_module.PerTree(EquinoxClasses)
"""The ``EquinoxClasses`` of the tree checked now, read once."""


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


def class_attribute(info: TypeInfo, name: str) -> bool:
    """Whether the class body of ``info`` or a base gives ``name`` a value (``calls = 0``)."""
    member = info.get(name)
    return member is not None and isinstance(member.node, Var) and member.node.is_initialized_in_class


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def undeclared_raises() -> str | None:
    """What the installed Equinox raises for a name that is not a field; None where unknown."""
    release = libraries.INSTALLED.equinox
    return next((exception for since, exception in UNDECLARED_RAISES if release is not None and release >= since), None)


def new_value(target: MemberExpr, statement: Statement | None) -> str | None:
    """The value an assignment gives ``target``, as the code writes it (``self.steps + 1`` for
    ``self.steps += 1``, ``self.w * (1 + lr)`` for ``self.w *= 1 + lr``); None where it gives
    several."""
    if isinstance(statement, OperatorAssignmentStmt):
        written, value = source(target), operand(statement.rvalue)
        return None if written is None or value is None else f"{written} {statement.op} {value}"
    if isinstance(statement, AssignmentStmt) and statement.lvalues == [target]:
        return source(statement.rvalue)
    return None


def report_set_after_init(api: CheckerPluginInterface, target: MemberExpr, statement: Statement, method: FuncDef) -> None:
    """``jax-equinox-frozen``: an attribute of ``self`` set in a method that runs after the
    module is made."""
    notes = [FROZEN]
    value = new_value(target, statement)
    if method.name == CHECK_INIT:
        notes.append(AFTER_CHECK)
    elif target.name not in (mypy_internals.dataclass_fields(method.info) or ()):
        notes.append(RETURN_VALUE)  # eqx.tree_at reaches fields only
    elif value is not None:
        tree_at, needs = tree_at_reference(api)
        notes.append(RETURN_COPY.format(tree_at=tree_at, change=where_changed(target, "self"), value=value, needs=needs))
    report_elsewhere(api, target, SET_AFTER_MADE.format(target=source(target), method=method.name), notes)


def report_not_a_field(api: CheckerPluginInterface, target: MemberExpr, statement: Statement, info: TypeInfo) -> None:
    """``jax-equinox-frozen``: a name that is not a field of the class, set while a module is made."""
    exception = undeclared_raises()
    if exception is not None:
        message = NOT_A_FIELD.format(target=source(target), cls=info.name, exception=exception)
        report_elsewhere(api, target, message, [declare(info, target, statement)])


def report_elsewhere(api: CheckerPluginInterface, target: MemberExpr, message: str, notes: list[str]) -> None:
    """A report of a line of the method being checked, made from the hooks of its other lines:
    past the watchers of a call mypy only tries (``mypy_internals.unwatched``), and once (the
    first of the line stands: mypy drops a repeated error's notes)."""
    with mypy_internals.unwatched(api) as shown:
        if shown and not mypy_internals.already_reported(api, target, message):
            reporting.error_with_notes(api, target, CODE, message, notes)


def report_set_on_module(
    api: CheckerPluginInterface,
    target: MemberExpr,
    statement: Statement | None,
    function: FuncItem | None,
    *,
    during_init: bool,
    field: bool,
) -> None:
    """``jax-equinox-frozen``: an attribute set on a module already made. An updated copy of a
    ``field`` goes where the module came from: the variable (not a global, from inside a
    function, where binding it would make it local), a field of ``self`` while the module is
    made, else an updated copy of ``self`` returned."""
    notes = [FROZEN]
    value = new_value(target, statement)
    receiver = source(target.expr)
    tree_at, needs = tree_at_reference(api)
    if value is None or receiver is None or not field:
        pass
    elif is_field_of_self(target.expr) and not during_init:
        change = f"lambda m: m.{target.expr.name}.{target.name}"
        notes.append(RETURN_COPY.format(tree_at=tree_at, change=change, value=value, needs=needs))
    elif not (isinstance(target.expr, NameExpr) and target.expr.kind == GDEF and function is not None):
        change = where_changed(target, receiver)
        notes.append(REBIND_COPY.format(receiver=receiver, tree_at=tree_at, change=change, value=value, needs=needs))
    reporting.error_with_notes(api, target, CODE, SET_ON_MODULE.format(target=source(target)), notes)


def tree_at_reference(api: CheckerPluginInterface) -> tuple[str, str]:
    """``eqx.tree_at`` as the module can name it, and the import it needs where it cannot yet."""
    written, imports = checked_module.reference(api, "equinox", "tree_at")
    return written, checked_module.needs(imports)


def where_changed(target: MemberExpr, receiver: str | None) -> str:
    """The function that picks the changed field out of the module, for ``eqx.tree_at``; its
    parameter named apart from the receiver (``m``, unless the receiver is ``m``)."""
    parameter = "module" if receiver == "m" else "m"
    return f"lambda {parameter}: {parameter}.{target.name}"


def declare(info: TypeInfo, target: MemberExpr, statement: Statement) -> str:
    """The note naming the field to declare, with its type where the value written shows it (a
    literal, a display, or a class called; mypy has not yet typed the value where the method is
    read), or naming the class attribute it takes the place of."""
    name = target.name
    if class_attribute(info, name) or name in info.names and getattr(info.names[name].node, "is_classvar", False):
        return DECLARE_INSTEAD.format(name=name)
    value = statement.rvalue if isinstance(statement, AssignmentStmt) and statement.lvalues == [target] else None
    annotation = None
    if isinstance(value, (IntExpr, FloatExpr, StrExpr)):
        annotation = type(value.value).__name__
    elif value is not None and type(value) in DISPLAYS:
        annotation = DISPLAYS[type(value)]
    elif isinstance(value, CallExpr) and isinstance(value.callee, RefExpr) and isinstance(value.callee.node, TypeInfo):
        annotation = source(value.callee)
    return DECLARE.format(name=name, annotation=annotation) if annotation else DECLARE_TYPED.format(name=name)


RULE: Final = Rule(CODE, attribute_hooks=dict.fromkeys(EQUINOX_MODULE_CLASSES, on_attribute))
