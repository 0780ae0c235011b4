"""Whether the type mypy gives a name is the type of the values that reach it.

mypy types a variable by its annotation or its first binding and keeps that type: a later
binding of another kind (a table bound to a NumPy array or to ``[]`` at import, then bound again
to ``jnp.array(...)``; a dict of arrays given an inner ``{}``) is an error of mypy's own, which
lint does not show, and the variable keeps the first binding's type. A rule that decides from
that type would then report a line that runs. So before a rule reports from the type of a name,
of an item of a name or of an attribute of ``self``, it asks ``holds``: whether every binding of
the variable in the module (found by mypy's ``Var``, which every binding of one variable shares,
globals rebound under ``global`` and closures' names alike), and every store into its items,
gives a value of the kind of that type (a JAX array, a NumPy array, a list, a dict, ...).

A value's kind is read from the code without types (mypy has not checked a function's body when
a transform's hook runs, and which bodies it checks first moved between releases): a display
(``[]``, ``{}``), a literal, a call of a class or of a function declared to return a type, an
operation on the variable itself where that keeps an array an array (``x = x.at[i].set(v)``,
``x = x * 2``). Where a binding's kind cannot be read, the type holds only if that binding is the
one mypy took it from (the first, or any binding under an annotation); where the variable is
bound outside the module (an imported table), it is undecided, and the rule is silent.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    ARG_POS,
    GDEF,
    LDEF,
    AssignmentExpr,
    AssignmentStmt,
    Block,
    BytesExpr,
    CallExpr,
    ClassDef,
    ComplexExpr,
    ConditionalExpr,
    Decorator,
    DelStmt,
    DictExpr,
    DictionaryComprehension,
    Expression,
    ExpressionStmt,
    FloatExpr,
    ForStmt,
    FuncDef,
    GlobalDecl,
    Import,
    ImportAll,
    ImportFrom,
    IndexExpr,
    IntExpr,
    ListComprehension,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    NonlocalDecl,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    SetComprehension,
    SetExpr,
    StarExpr,
    Statement,
    StrExpr,
    TryStmt,
    TupleExpr,
    TypeInfo,
    UnaryExpr,
    Var,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import AnyType, Instance, NoneType, TupleType, Type, get_proper_type

from mypy_plugin.analyses.values import returned_type
from mypy_plugin.lib import checked_module, fullnames, mypy_internals, nodes, statements, types

ARRAY_KIND: Final = "jax.Array"
"""The kind of every JAX array (``jax.Array`` and its subclasses, tracers included)."""
SAME: Final = "same"
"""The kind of a value made from the variable itself in a way that keeps an array an array."""
UNKNOWN: Final = None
Kind = str | None
"""What a value is, by the full name of its class (``ARRAY_KIND`` for any JAX array), ``SAME``, or
``UNKNOWN``."""
KEEPING_METHODS: Final = frozenset(
    {
        "astype", "reshape", "transpose", "squeeze", "ravel", "flatten", "sum", "mean", "max", "min",
        "clip", "round", "conj", "real", "imag", "cumsum", "cumprod", "prod", "std", "var", "swapaxes",
        "repeat", "take", "block_until_ready", "copy", "T", "sort", "argsort", "argmax", "argmin", "dot", "all", "any",
    }
)  # fmt: skip
"""Methods of an array that return an array of its own kind (JAX's and NumPy's alike)."""
UPDATE_METHODS: Final = frozenset({"set", "add", "subtract", "multiply", "divide", "power", "min", "max", "apply", "get"})
"""The methods of ``x.at[i]``: each returns a JAX array."""
ITEM_STORES: Final = {"append": 0, "insert": 1, "setdefault": 1, "__setitem__": 1, "add": 0}
"""Methods that store a value into a container, with the position of the value stored."""
UNREAD_STORES: Final = frozenset({"update", "extend", "__ior__"})
"""Methods that store values the analysis does not read one by one."""


class BoundValue:
    """One binding of a variable: the value bound (None where it cannot be read, as for a
    ``for`` target), and whether mypy may have taken the variable's type from it."""

    __slots__ = ("value", "source", "typing", "unpacked_from")

    def __init__(self, value: Expression | None, source: Expression | None, typing: bool, unpacked_from: Expression | None = None) -> None:
        self.value = value
        self.source = source
        """The variable's own expression where the value is made from it (``x`` of ``x * 2``)."""
        self.typing = typing
        self.unpacked_from = unpacked_from
        """The value the variable is one item of, where it is unpacked (``a, b = value``)."""


TARGETS: Final = frozenset({OperatorAssignmentStmt, ForStmt, WithStmt, TryStmt, DelStmt, GlobalDecl, NonlocalDecl})
"""The other statements that bind names, or say a function binds another scope's (``Bindings.statement``)."""


def every_expression(code: MypyFile | FuncDef) -> list[Expression]:
    """Every expression of a module, or of a function with the functions defined in it: mypy's
    own list (``mypy_internals.subexpressions``), else a walk."""
    expressions = mypy_internals.subexpressions(code)
    if expressions is None:
        body = code.defs if isinstance(code, MypyFile) else code.body.body
        expressions = [node for node in nodes.walk(body) if isinstance(node, Expression)]
    return expressions


class Mentions:
    """Every mention of a name in a module, or in a function with the functions defined in it,
    but the one that defines it (a binding again counts), with the call it is the callee of (or
    None), by name; and the ``functools.partial`` applications of a name. Read from mypy's own
    list of the expressions (``mypy_internals.subexpressions``), which is not kept: mypy clears a
    module's statements once it has checked it, and a list of every expression kept here would
    hold them all until the next module's reading replaced it. Which node a name refers to is
    read when asked (``NameExpr.node``)."""

    def __init__(self, code: MypyFile | FuncDef) -> None:
        # exact types: mypy's compiled classes have no subclasses here, and the test is the
        # cost of this loop over every expression read
        self.by_name: dict[str, list[NameExpr]] = {}
        self.callee_of: dict[int, CallExpr] = {}
        """The call each name is the callee of, by the name's id."""
        self.partials: list[CallExpr] = []
        """The calls of ``functools.partial`` whose first argument is a name (``partial(f, x=1)``)."""
        for expression in every_expression(code):
            if type(expression) is NameExpr:
                if not expression.is_new_def:
                    found = self.by_name.get(expression.name)
                    if found is None:
                        self.by_name[expression.name] = [expression]
                    else:
                        found.append(expression)
            elif type(expression) is CallExpr:
                callee = expression.callee
                if type(callee) is NameExpr:
                    self.callee_of[id(callee)] = expression
                if (
                    expression.args
                    and type(expression.args[0]) is NameExpr
                    and expression.arg_kinds[0] == ARG_POS
                    and isinstance(callee, RefExpr)
                    and callee.fullname == fullnames.PARTIAL
                ):
                    self.partials.append(expression)

    def calls(self, name: str, node: object) -> list[CallExpr]:
        """The calls of ``name`` where it refers to ``node``."""
        return [self.callee_of[id(use)] for use in self.by_name.get(name, []) if use.node is node and id(use) in self.callee_of]

    def escapes(self, name: str, node: object) -> bool:
        """Whether ``name``, referring to ``node``, is used other than called, or bound again
        (which binding a call sees is then not known)."""
        return any(use.node is node and id(use) not in self.callee_of for use in self.by_name.get(name, []))


class Bindings:
    """Every binding of the variables of one module, and every store into their items and into
    the attributes of ``self``; and every mention of a name, for where a function is called
    (``Mentions.calls``) and whether it is used otherwise (``Mentions.escapes``): each read from the module's
    tree once, where first asked (most modules ask neither). Which node a name refers to is
    read when asked (``NameExpr.node``), so a tree that mypy analyses again in place (the
    daemon) answers as it is now."""

    def __init__(self, tree: MypyFile) -> None:
        self.tree = tree
        self.module = tree.fullname
        self.of_var: dict[int, list[BoundValue]] = {}
        self.stored_items: dict[int, list[BoundValue]] = {}
        self.set_attributes: dict[tuple[str, str], list[BoundValue]] = {}
        self.assignments: dict[str, int] = {}
        """How many ``name = ...`` (and unpackings) bind each name, anywhere in the module."""
        self.bindings_read = False
        self.mentions: Mentions | None = None
        self.declared_outside: set[str] = set()
        """The names a function of the module declares ``global`` or ``nonlocal``: a call may
        bind them."""

    def read_bindings(self) -> None:
        if not self.bindings_read:
            self.bindings_read = True
            self.read(self.tree.defs, receiver=None, info=None)
            self.assignment_expressions()

    def assignment_expressions(self) -> None:
        """Bind the target of every ``(name := value)``. Which binding of its variable comes
        first is not known from here, so none of them counts as the one mypy typed it from,
        unless it is the variable's only binding."""
        for expression in [each for each in every_expression(self.tree) if type(each) is AssignmentExpr]:
            target = expression.target
            self.assignments[target.name] = self.assignments.get(target.name, 0) + 1
            if not isinstance(target.node, Var):
                continue
            found = self.of_var.get(id(target.node))
            binding = BoundValue(expression.value, source_of(expression.value, target), typing=found is None)
            if found is None:
                self.of_var[id(target.node)] = [binding]
            else:
                for earlier in found:
                    earlier.typing = False
                found.append(binding)

    def assigned_once(self, name: str) -> bool:
        """Whether one assignment in the module binds ``name`` (``name = value``)."""
        self.read_bindings()
        return self.assignments.get(name, 0) == 1

    def declared_outside_read(self) -> set[str]:
        """``declared_outside``, once the module's bindings are read."""
        self.read_bindings()
        return self.declared_outside

    def mentions_read(self) -> Mentions:
        """The module's mentions of names, read where first asked."""
        if self.mentions is None:
            self.mentions = Mentions(self.tree)
        return self.mentions

    # Questions

    def holds(self, node: Expression) -> bool:
        """Whether the type mypy declares for what ``node`` reads (a variable, an item of one,
        an attribute of ``self``) is that of every value bound there; True for other
        expressions, whose type is their own. Where the declared type is wide (a union,
        ``Any``), mypy narrows it at each binding, and it holds too."""
        self.read_bindings()
        if isinstance(node, NameExpr):
            return self.name_holds(node)
        if isinstance(node, IndexExpr):
            return self.item_holds(node)
        if isinstance(node, MemberExpr) and isinstance(node.expr, NameExpr) and isinstance(node.expr.node, Var):
            return self.attribute_holds(node)
        return True

    def bound_values(self, node: NameExpr) -> list[tuple[Expression, bool]] | None:
        """What each binding of the variable ``node`` reads binds it to, with whether the variable
        is one item of that value (``a, b = value``); None where one cannot be read (a parameter,
        a ``for`` target, ``x += 1``), where something is stored into its items, and where the
        variable is not one of this module's."""
        self.read_bindings()
        var = node.node
        if not isinstance(var, Var) or node.kind not in (GDEF, LDEF) or self.stored_items.get(id(var)):
            return None
        found = self.of_var.get(id(var))
        if not found:
            return None
        values: list[tuple[Expression, bool]] = []
        for binding in found:
            if binding.unpacked_from is not None:
                values.append((binding.unpacked_from, True))
            elif binding.value is None or binding.value is binding.source:
                return None
            else:
                values.append((binding.value, False))
        return values

    def name_holds(self, node: NameExpr) -> bool:
        var = node.node
        if not isinstance(var, Var) or node.kind not in (GDEF, LDEF):
            return True
        found = self.of_var.get(id(var))
        if found is None:
            # bound only in another module (an imported table): its bindings are not read here;
            # Python's own constants (True) and names declared Final are bound once
            elsewhere = node.kind == GDEF and not var.fullname.startswith(self.module + ".")
            return not elsewhere or var.fullname.startswith("builtins.") or var.is_final
        return agree(found, type_kind(var.type), annotated=not var.is_inferred)

    def item_holds(self, node: IndexExpr) -> bool:
        """An item of a variable: the variable's own bindings, and every value stored into its
        items (``table[k] = v``, ``.append(v)``; ``.update(...)`` cannot be read), agree with
        the type of its items."""
        base = node.base
        if not isinstance(base, NameExpr) or not isinstance(base.node, Var):
            return self.holds(base)
        if not self.name_holds(base):
            return False
        stores = self.stored_items.get(id(base.node), [])
        return agree(stores, type_kind(item_type(base.node.type)), annotated=False)

    def attribute_holds(self, node: MemberExpr) -> bool:
        """``self.x`` in a method of a class of the module: every ``self.x = ...`` in its
        methods and the class body's own binding agree with the attribute's type."""
        assert isinstance(node.expr, NameExpr) and isinstance(node.expr.node, Var)  # the caller says so
        owner = node.expr.node.type
        proper = get_proper_type(owner) if owner is not None else None
        if not isinstance(proper, Instance):
            return True
        found = self.set_attributes.get((proper.type.fullname, node.name))
        member = proper.type.get(node.name)
        if not found or member is None or not isinstance(member.node, Var):
            return True
        return agree(found, type_kind(member.node.type), annotated=not member.node.is_inferred)

    # Reading the tree

    def read(self, body: list[Statement], receiver: str | None, info: TypeInfo | None) -> None:
        """The statements of a module, class or function body, then the bodies of the functions
        defined in it, as mypy reads them (a module's or a class's own statements first: a
        global's first binding is the one at the top level, wherever a function is written)."""
        functions: list[tuple[FuncDef, TypeInfo | None]] = []
        self.body(body, receiver, info, functions)
        functions.reverse()  # a stack: the first function found last
        while functions:
            function, owner = functions.pop()
            self.parameters(function)
            inner: list[tuple[FuncDef, TypeInfo | None]] = []
            self.body(function.body.body, first_parameter(function) if owner is not None else None, owner, inner)
            functions[:0] = [(nested, None) for nested, _ in reversed(inner)]

    def body(
        self, body: list[Statement], receiver: str | None, info: TypeInfo | None, functions: list[tuple[FuncDef, TypeInfo | None]]
    ) -> None:
        pending = body[::-1]  # a stack: the next statement last
        while pending:
            statement = pending.pop()
            if type(statement) in statements.COMPOUND:  # its blocks' statements come next
                pending += [s for block in reversed(statements.compound_blocks(statement)) for s in reversed(block.body)]
            if isinstance(statement, (FuncDef, Decorator, OverloadedFuncDef)):
                functions += [(function, info) for function in defined_functions(statement)]
            elif isinstance(statement, ClassDef):
                self.body(statement.defs.body, None, statement.info, functions)
            else:
                self.statement(statement, receiver, info)

    def parameters(self, function: FuncDef) -> None:
        for argument in mypy_internals.parameters(function) or []:
            self.bind(argument.variable, BoundValue(None, None, typing=True))

    def statement(self, node: Statement, receiver: str | None, info: TypeInfo | None) -> None:
        # by exact class, the commonest first: this runs for every statement of a module
        if type(node) is AssignmentStmt:
            for target in node.lvalues:
                self.assigned(target, node.rvalue, receiver, info)
        elif type(node) is ExpressionStmt:
            if type(node.expr) is CallExpr and type(node.expr.callee) is MemberExpr:
                call, callee = node.expr, node.expr.callee
                if callee.name in ITEM_STORES and len(call.args) > ITEM_STORES[callee.name]:
                    self.stored(callee.expr, BoundValue(call.args[ITEM_STORES[callee.name]], None, typing=False))
                elif callee.name in UNREAD_STORES:
                    self.stored(callee.expr, BoundValue(None, None, typing=False))
        elif type(node) not in TARGETS:
            return
        elif isinstance(node, OperatorAssignmentStmt):
            if isinstance(node.lvalue, NameExpr):
                self.named(node.lvalue, BoundValue(node.lvalue, node.lvalue, typing=False))
            elif isinstance(node.lvalue, IndexExpr):
                self.stored(node.lvalue.base, BoundValue(node.lvalue, node.lvalue, typing=False))
        elif isinstance(node, ForStmt):
            self.unknown_targets(node.index)
        elif isinstance(node, WithStmt):
            for bound in node.target:
                if bound is not None:
                    self.unknown_targets(bound)
        elif isinstance(node, TryStmt):
            for variable in node.vars:
                if variable is not None:
                    self.unknown_targets(variable)
        elif isinstance(node, DelStmt):
            self.unknown_targets(node.expr)
        elif isinstance(node, (GlobalDecl, NonlocalDecl)):
            self.declared_outside.update(node.names)

    def assigned(
        self,
        target: Expression,
        value: Expression | None,
        receiver: str | None,
        info: TypeInfo | None,
        unpacked_from: Expression | None = None,
    ) -> None:
        """``unpacked_from``: the value a name target is one item of (``a, b = value``)."""
        if isinstance(target, NameExpr):
            self.assignments[target.name] = self.assignments.get(target.name, 0) + 1
            self.named(target, BoundValue(value, source_of(value, target), typing=True, unpacked_from=unpacked_from))
        elif isinstance(target, (TupleExpr, ListExpr)):
            items = value.items if isinstance(value, (TupleExpr, ListExpr)) and len(value.items) == len(target.items) else None
            for position, item in enumerate(target.items):
                if items is not None:
                    self.assigned(item, items[position], receiver, info)
                else:  # a nested target's items get None: they are items of an item
                    self.assigned(item, None, receiver, info, unpacked_from=value)
        elif isinstance(target, IndexExpr):
            self.stored(target.base, BoundValue(value, None, typing=False))
        elif isinstance(target, MemberExpr) and info is not None and isinstance(target.expr, NameExpr) and target.expr.name == receiver:
            found = self.set_attributes.setdefault((info.fullname, target.name), [])
            found.append(BoundValue(value, None, typing=not found))

    def named(self, target: NameExpr, binding: BoundValue) -> None:
        if isinstance(target.node, Var):
            self.bind(target.node, binding)

    def bind(self, var: Var, binding: BoundValue) -> None:
        found = self.of_var.get(id(var))
        if found is None:
            self.of_var[id(var)] = [binding]
        else:
            binding.typing = False  # mypy infers from the first binding only
            found.append(binding)

    def stored(self, container: Expression, binding: BoundValue) -> None:
        if isinstance(container, NameExpr) and isinstance(container.node, Var):
            self.stored_items.setdefault(id(container.node), []).append(binding)

    def unknown_targets(self, target: Expression) -> None:
        """Targets bound to values not read here (a ``for`` target, ``with ... as``, ``except
        ... as``, ``del``): mypy may type the variable from the first of them."""
        if isinstance(target, NameExpr):
            self.named(target, BoundValue(None, None, typing=True))
        elif isinstance(target, (TupleExpr, ListExpr)):
            for item in target.items:
                self.unknown_targets(item)


def agree(found: list[BoundValue], expected: Kind, annotated: bool) -> bool:
    """Whether every binding gives a value of kind ``expected``: a binding whose value cannot be
    read counts only where mypy may have typed the variable from it."""
    if expected is UNKNOWN:
        return True
    if expected == fullnames.JIT_WRAPPED and len(found) > 1:
        return False  # what mypy keeps of a jitted function (its signature, what it donates) is its first binding's
    for binding in found:
        kind = value_kind(binding.value, binding.source) if binding.value is not None else UNKNOWN
        if kind == SAME and expected in (ARRAY_KIND, "numpy.ndarray"):
            continue
        if kind is UNKNOWN and (annotated or binding.typing):
            continue
        if kind != expected:
            return False
    return True


def value_kind(node: Expression, source: Expression | None) -> Kind:
    """The kind of the value ``node`` makes, read from the code (``source``: the variable it
    is made from, for ``SAME``; ``node`` itself for an augmented assignment, ``x += 1``)."""
    if node is source:
        return SAME
    if isinstance(node, (ListExpr, ListComprehension)):
        return "builtins.list"
    if isinstance(node, (DictExpr, DictionaryComprehension)):
        return "builtins.dict"
    if isinstance(node, TupleExpr):
        return "builtins.tuple"
    if isinstance(node, (SetExpr, SetComprehension)):
        return "builtins.set"
    literal = LITERALS.get(type(node))
    if literal is not None:
        return literal
    if isinstance(node, NameExpr) and node.fullname == "builtins.None":
        return "builtins.None"
    if isinstance(node, ConditionalExpr):
        kinds = {value_kind(node.if_expr, source), value_kind(node.else_expr, source)}
        return kinds.pop() if len(kinds) == 1 else UNKNOWN
    if source is not None and derived_from(node, source):
        return SAME
    if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr):
        callee = node.callee.node
        if isinstance(callee, TypeInfo):
            return ARRAY_KIND if types.is_array(Instance(callee, [])) else callee.fullname
        return type_kind(returned_type(callee))
    return UNKNOWN


LITERALS: Final[dict[type, str]] = {
    IntExpr: "builtins.int",
    FloatExpr: "builtins.float",
    StrExpr: "builtins.str",
    BytesExpr: "builtins.bytes",
    ComplexExpr: "builtins.complex",
}


def derived_from(node: Expression, source: Expression) -> bool:
    """Whether ``node`` is the variable ``source`` put through what keeps an array an array:
    arithmetic with it as an operand, one of its ``KEEPING_METHODS``, ``x.at[i].set(v)``."""
    if isinstance(node, OpExpr) and node.op not in ("and", "or"):
        return same_variable(node.left, source) or same_variable(node.right, source) or derived_from(node.left, source)
    if isinstance(node, UnaryExpr) and node.op in ("-", "+", "~"):
        return same_variable(node.expr, source)
    if isinstance(node, CallExpr) and isinstance(node.callee, MemberExpr):
        receiver = node.callee.expr
        if node.callee.name in UPDATE_METHODS and isinstance(receiver, IndexExpr) and isinstance(receiver.base, MemberExpr):
            return receiver.base.name == "at" and same_variable(receiver.base.expr, source)
        return node.callee.name in KEEPING_METHODS and (same_variable(receiver, source) or derived_from(receiver, source))
    if isinstance(node, MemberExpr) and node.name == "T":
        return same_variable(node.expr, source)
    return False


def same_variable(node: Expression, source: Expression) -> bool:
    return isinstance(node, NameExpr) and isinstance(source, NameExpr) and node.node is not None and node.node is source.node


def source_of(value: Expression | None, target: NameExpr) -> Expression | None:
    """The target itself, for a value that may be made from it."""
    return target if value is not None else None


def type_kind(typ: Type | None) -> Kind:
    """The kind of the values of ``typ``: an array's, a class's full name; unknown for ``Any``,
    a union and what else is not one class."""
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, Instance):
        if types.instance_of(proper, fullnames.JIT_WRAPPED):
            return fullnames.JIT_WRAPPED
        return ARRAY_KIND if types.is_array(proper) else proper.type.fullname
    if isinstance(proper, TupleType):
        return proper.partial_fallback.type.fullname  # a NamedTuple's own class, else builtins.tuple
    if isinstance(proper, NoneType):
        return "builtins.None"
    if isinstance(proper, AnyType):
        return UNKNOWN
    return UNKNOWN


def item_type(typ: Type | None) -> Type | None:
    """The type of the items of a container type: a dict's values, a list's or a tuple's items,
    an array's (an array of its kind); None for anything else."""
    proper = get_proper_type(typ) if typ is not None else None
    if not isinstance(proper, Instance):
        return None
    if types.is_array(proper) or proper.type.fullname == "numpy.ndarray":
        return proper
    if proper.type.fullname in ("builtins.dict", "builtins.list", "builtins.tuple") and proper.args:
        return proper.args[-1]
    return None


def defined_functions(statement: Statement) -> list[FuncDef]:
    if isinstance(statement, FuncDef):
        return [statement]
    if isinstance(statement, Decorator):
        return [statement.func]
    if isinstance(statement, OverloadedFuncDef):
        return [
            part.func if isinstance(part, Decorator) else part for part in (*statement.items, *([statement.impl] if statement.impl else []))
        ]
    return []


def first_parameter(function: FuncDef) -> str | None:
    parameters = mypy_internals.parameters(function)
    return parameters[0].variable.name if parameters and not function.is_static else None


def reaching_binding(api: CheckerPluginInterface, use: NameExpr) -> tuple[Expression, bool] | None:
    """The value the variable ``use`` reads was last bound to on every path to it, with whether
    it is one item of that value (``a, b = value``): bound by ``name = value`` (or unpacked) in a
    statement before the one holding ``use``, in the same block, with no statement between them
    binding the name. None where there is no such statement, where a function of the module
    declares the name ``global`` or ``nonlocal`` (a call between might bind it), or where the tree
    cannot be read."""
    tree = mypy_internals.module_tree(api)
    if tree is None:
        return None
    module = of(tree)
    if use.name in module.declared_outside_read() or use.name not in module.assignments:
        return None  # no assignment anywhere binds the name: the statements before are not searched
    chain = checked_module.enclosing_statements(api, use)
    if not chain or not any(node is use for node in nodes.walk(chain[-1:])):
        return None  # another statement on the line holds it
    before = checked_module.statements_before(api, chain)
    if not before:
        return None
    for statement in reversed(before):
        if isinstance(statement, AssignmentStmt):
            found = assigned_value(statement, use)
            if found is not None:
                return found
        if binds_name(statement, use.name):
            return None
    return None


def assigned_variable(node: NameExpr) -> bool:
    """Whether ``node`` reads a variable whose type mypy infers from what binds it (an
    assignment, a ``for`` or ``with`` target, a walrus): one whose value may be read from its
    bindings (not a parameter, a function, a class or a module)."""
    return isinstance(node.node, Var) and node.node.is_inferred


def one_value(api: CheckerPluginInterface, use: NameExpr, read_once: bool = False) -> Expression | None:
    """The one value the variable ``use`` reads holds there, not an item of one
    (``reaching_values``); None otherwise, and for a parameter. With ``read_once``, only where
    ``use`` is the variable's one mention in the module: a container or an array read through
    its binding may have been changed in place since (``init["b"] = 1.0``, ``xs.append(x)``,
    ``a.shape = (2, 3)``, a helper given it), which any other mention may do."""
    if not assigned_variable(use):
        return None
    tree = mypy_internals.module_tree(api)
    if tree is None:
        return None
    if read_once and any(other is not use and other.node is use.node for other in of(tree).mentions_read().by_name.get(use.name, [])):
        return None
    values = reaching_values(api, use)
    return values[0][0] if len(values) == 1 and not values[0][1] else None


def reaching_values(api: CheckerPluginInterface, use: Expression) -> list[tuple[Expression, bool]]:
    """What the variable ``use`` holds where it is read, each with whether it is one item of the
    value (``a, b = value``): the binding every path to it passes last (``reaching_binding``:
    ``key = split(key, n)`` after ``key = PRNGKey(0)``), else every binding of it
    (``Bindings.bound_values``); empty for anything else and where a binding cannot be read."""
    if not isinstance(use, NameExpr):
        return []
    tree = mypy_internals.module_tree(api)
    if tree is None:
        return []
    reaching = reaching_binding(api, use)
    return [reaching] if reaching is not None else of(tree).bound_values(use) or []


def assigned_value(statement: AssignmentStmt, use: NameExpr) -> tuple[Expression, bool] | None:
    """What ``statement`` binds ``use``'s variable to (see ``reaching_binding``); None where it
    does not bind it as ``name = value`` or as a name unpacked at the top of a target."""
    for target in statement.lvalues:
        if isinstance(target, NameExpr) and target.node is use.node and target.name == use.name:
            return statement.rvalue, False
        if isinstance(target, (TupleExpr, ListExpr)):
            for position, item in enumerate(target.items):
                if isinstance(item, NameExpr) and item.node is use.node and item.name == use.name:
                    value = statement.rvalue
                    if isinstance(value, (TupleExpr, ListExpr)) and len(value.items) == len(target.items):
                        return value.items[position], False
                    return (value, True) if not any(isinstance(each, StarExpr) for each in target.items) else None
    return None


def binds_name(statement: Statement, name: str) -> bool:
    """Whether ``statement`` (or a statement inside it) may bind ``name``: an assignment, a loop,
    ``with``, ``except``, ``match``, a ``def`` or ``class``, an import."""
    if isinstance(statement, (FuncDef, Decorator, OverloadedFuncDef, ClassDef)):
        return statement.name == name
    if isinstance(statement, ImportAll):
        return True
    if isinstance(statement, Import):
        return any((alias or module.partition(".")[0]) == name for module, alias in statement.ids)
    if isinstance(statement, ImportFrom):
        return any((alias or imported) == name for imported, alias in statement.names)
    return name in statements.assigned_names(Block([statement]))


def holds(api: CheckerPluginInterface, node: Expression) -> bool:
    """``Bindings.holds`` in the module being checked; undecided (False) where its tree
    cannot be read."""
    tree = mypy_internals.module_tree(api)
    return tree is not None and of(tree).holds(node)


of: Final = checked_module.PerTree(Bindings)
"""The ``Bindings`` of the tree checked now, read once (``mypy.server.astmerge`` gives a tree the
daemon keeps new statements: a new tree there)."""
