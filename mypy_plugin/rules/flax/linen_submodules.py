"""``jax-linen-submodule`` (``docs/rules/``): a Linen submodule made where Flax does not let a
module make one.

A Linen module makes its submodules in ``setup`` or in a method decorated ``@nn.compact`` (and in
the methods those call); a submodule made in any other method of the module raises
``AssignSubModuleError`` as that method runs inside ``init`` or ``apply``. PyTorch code makes
layers where it uses them, in a ``forward`` ported as a plain ``__call__``.

Read from the hook mypy runs where the code makes an instance of a Linen class (a constructor
hook keyed by ``flax.linen.Module``: Flax's layers and the user's own classes) or calls a
``functools.partial``, so a project without Flax imports nothing of this rule. Which methods of a
class run outside ``setup`` and every compact method is decided once per tree (``LinenClasses``),
from where ``init`` and ``apply`` start and the calls on ``self`` from there; a method some other
code may run from a compact method is left out.
"""

from __future__ import annotations

from typing import Final, NamedTuple, TypeGuard

from mypy.nodes import (
    ARG_STAR,
    ARG_STAR2,
    FUNC_NO_INFO,
    GDEF,
    LDEF,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Decorator,
    Expression,
    ForStmt,
    FuncDef,
    FuncItem,
    LambdaExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OverloadedFuncDef,
    RefExpr,
    Statement,
    StrExpr,
    SuperExpr,
    TypeInfo,
    WhileStmt,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import Instance, Type, get_proper_type

from mypy_plugin.lib import checked_module, mypy_internals, nodes, reporting
from mypy_plugin.lib.errorcodes import LINEN_SUBMODULE
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source

CODE: Final = LINEN_SUBMODULE

LINEN_MODULE: Final = "flax.linen.module.Module"
ENTRY: Final = "__call__"
"""The method ``init`` and ``apply`` run unless told another (``method=``)."""
STARTERS: Final = frozenset({"init", "apply", "init_with_output"})
"""The methods of a Linen module that run one of its methods bound (``method=``)."""
PARTIAL_CALL: Final = "functools.partial.__call__"
"""A class of submodules kept as a ``functools.partial`` in ``setup`` and called to make one."""
NAME_SCOPE: Final = "flax.linen.module.compact_name_scope"
"""A decorator under which a method may make submodules itself, though the methods it calls on
``self`` may not (where nothing compact runs it)."""

MADE_OUTSIDE: Final = 'submodule "{cls}" made in "{method}", which is neither "setup" nor compact; Flax raises AssignSubModuleError'
DECORATE: Final = 'Decorate "{method}" with "@{compact}"{needs}: a compact method makes its submodules as it runs'
IN_SETUP: Final = 'Or make it once in "setup", "self.{name} = {made}", and call "self.{name}" here'


def on_made(ctx: FunctionContext | MethodContext) -> Type:
    """An instance of a Linen class made in a body mypy checks (``nn.Dense(3)``, ``Block(8)``, a
    ``functools.partial`` of a class called): reported where the method making it runs outside
    ``setup`` and every compact method of its module, the first made there."""
    made = get_proper_type(ctx.default_return_type)
    if not isinstance(made, Instance) or not made.type.has_base(LINEN_MODULE):
        return ctx.default_return_type
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    method = mypy_internals.current_function(ctx.api)
    if not isinstance(call, CallExpr) or tree is None or not plain_linen_method(method) or may_pass_parent(call):
        return ctx.default_return_type
    classes = linen_classes(tree)
    if method not in classes.outside or not written(ctx.api, call):
        return ctx.default_return_type
    if made_class(call) is None and not classes.partial_of_a_class(call, method):
        return ctx.default_return_type  # made through something other than its class's name
    if classes.first_made.setdefault(method, call) is call:
        report_made_outside(ctx.api, call, made.type, method)
    return ctx.default_return_type


def plain_linen_method(method: FuncItem | None) -> TypeGuard[FuncDef]:
    """A method written as a plain ``def`` in a Linen class, whose body runs when it is called
    (no ``async``, no generator): only such a method may run outside ``setup`` and every compact
    method (asked first: most submodules are made in compact methods)."""
    return (
        isinstance(method, FuncDef)
        and not method.is_decorated
        and not (method.is_coroutine or method.is_generator or method.is_async_generator)
        and method.info is not FUNC_NO_INFO
        and method.name != "setup"
        and method.info.has_base(LINEN_MODULE)
    )


def may_pass_parent(call: CallExpr) -> bool:
    """Whether ``call`` may give the module a parent of its own (``parent=None``, ``**options``):
    then it is no submodule of the method's module."""
    return "parent" in call.arg_names or any(kind in (ARG_STAR, ARG_STAR2) for kind in call.arg_kinds)


def written(api: CheckerPluginInterface, call: CallExpr) -> bool:
    """Whether ``call`` is in the code as written: mypy's support for ``functools.partial`` checks
    a call it makes up (``nn.Dense(2)`` for ``partial(nn.Dense, 2)``), which makes nothing."""
    statement = checked_module.statement_at(api, call)
    return statement is not None and any(node is call for node in nodes.walk([statement]))


class Use(NamedTuple):
    """A read of a method's name: in which function, and whether as a call on its receiver."""

    function: FuncItem | None
    on_self: bool


class LinenClasses:
    """Which methods of the Linen classes of one tree run outside ``setup`` and every compact
    method (``outside``), and the first submodule each of them makes (mypy checks a body in the
    order Python runs it, and Flax raises at the first; a body checked again finds the same)."""

    def __init__(self, tree: MypyFile) -> None:
        self.tree = tree
        self.outside: set[FuncDef] = set()
        self.first_made: dict[FuncDef, CallExpr] = {}
        uses = Uses(tree)
        redefined = names_redefined_below(tree)
        for statement in checked_module.statements_anywhere(tree.defs):
            if isinstance(statement, ClassDef) and statement.info.has_base(LINEN_MODULE):
                redefined_here = redefined.get(statement.info.fullname, set())
                self.outside |= runs_outside_compact(statement, uses, redefined_here)

    def partial_of_a_class(self, call: CallExpr, method: FuncDef) -> bool:
        """Whether ``call`` calls a ``functools.partial`` of a Linen class that sets no parent, bound
        to a module-level name or to an attribute of ``self``, every value given it such a partial."""
        values = bound_values(self.tree, call.callee, method)
        return bool(values) and all(partial_of_a_linen_class(value) for value in values)


def bound_values(tree: MypyFile, callee: Expression, method: FuncDef) -> list[Expression]:
    """Every value the module gives ``callee``: a module-level name (its assignments at the top
    level), or ``self.<name>`` (its assignments in the class's methods); none for anything else."""
    if isinstance(callee, NameExpr) and callee.kind == GDEF:
        statements: list[Statement] = tree.defs
        name = callee.name

        def target_matches(target: Expression) -> bool:
            return isinstance(target, NameExpr) and target.name == name
    elif isinstance(callee, MemberExpr) and isinstance(callee.expr, NameExpr) and callee.expr.name == first_parameter(method):
        statements = list(checked_module.statements_anywhere(method.info.defn.defs.body))
        name = callee.name

        def target_matches(target: Expression) -> bool:
            return isinstance(target, MemberExpr) and target.name == name and isinstance(target.expr, NameExpr)
    else:
        return []
    values = []
    for statement in statements:
        if isinstance(statement, AssignmentStmt) and any(target_matches(target) for target in statement.lvalues):
            values.append(statement.rvalue)
    return values


def partial_of_a_linen_class(value: Expression) -> bool:
    """``functools.partial(ConvBlock, train=...)``: a Linen class, no parent set."""
    if not isinstance(value, CallExpr) or not isinstance(value.callee, RefExpr) or value.callee.fullname != "functools.partial":
        return False
    made = value.args[0] if value.args else None
    return isinstance(made, RefExpr) and isinstance(made.node, TypeInfo) and made.node.has_base(LINEN_MODULE) and not may_pass_parent(value)


def runs_outside_compact(defn: ClassDef, uses: Uses, redefined: set[str]) -> set[FuncDef]:
    """The plain methods of the class ``defn`` that run outside ``setup`` and every compact method.

    They start where ``init`` or ``apply`` do: ``__call__``, where the module makes the class
    (``MLP()``) and nothing else names ``__call__`` (``super().__call__(x)`` or ``self(x)`` may run it
    from a compact method); a method the module gives ``init`` or ``apply`` of this class as
    ``method=``. From there, the methods they call on ``self`` (through a method decorated
    ``@nn.compact_name_scope``, which makes nothing compact for them), each left out where other
    code names it too (it may run from ``setup`` or a compact method, as ``block(i, create=True)``
    in ``setup``)."""
    info = defn.info
    plain = plain_methods_of(defn, redefined)
    name_scoped = {
        statement.name: statement.func
        for statement in defn.defs.body
        if isinstance(statement, Decorator) and any(isinstance(d, RefExpr) and d.fullname == NAME_SCOPE for d in statement.decorators)
    }
    runnable = {**plain, **name_scoped}
    starts = uses.given_as_method.get(info.fullname, set()) & set(runnable)
    if ENTRY in plain and info.fullname in uses.made and all(calls_another_class(use, info) for use in uses.reads.get(ENTRY, [])):
        starts.add(ENTRY)
    reached = set(starts)
    pending = list(starts)
    while pending:
        caller = runnable[pending.pop()]
        for name in uses.called_on_self.get(caller, set()) & set(runnable) - reached:
            runners = {runnable[each] for each in reached}
            if all(use.on_self and use.function in runners or calls_another_class(use, info) for use in uses.reads.get(name, [])):
                reached.add(name)
                pending.append(name)
    return {plain[name] for name in reached if name in plain}


def plain_methods_of(defn: ClassDef, redefined: set[str]) -> dict[str, FuncDef]:
    """The methods of ``defn`` written as a plain ``def`` (no decorator) and bound nowhere else in
    its body (``__call__ = nn.compact(__call__)``), by name, but those named in ``redefined``."""
    bound_again = {
        target.name
        for statement in defn.defs.body
        if isinstance(statement, AssignmentStmt)
        for target in statement.lvalues
        if isinstance(target, NameExpr)
    }
    return {
        statement.name: statement
        for statement in defn.defs.body
        if isinstance(statement, FuncDef)
        and not statement.is_static
        and not statement.is_class
        and statement.name not in redefined | bound_again
    }


def calls_another_class(use: Use, info: TypeInfo) -> bool:
    """Whether ``use`` calls a method of its own class on ``self``, a class unrelated to ``info``."""
    function = use.function
    if not use.on_self or not isinstance(function, FuncDef) or function.info is FUNC_NO_INFO:
        return False
    return not (function.info.has_base(info.fullname) or info.has_base(function.info.fullname))


class Uses:
    """What the methods of a tree are called by and named in: every attribute name read anywhere
    (``x.encode``, ``super().__call__``), each read with the function it is read in and whether it
    is a call on that function's receiver (``self.encode(x)``; a call of the receiver itself,
    ``self(x)``, calls ``__call__``; a call on the receiver from a function or lambda defined in
    the method counts as a plain read); the names each method calls on its receiver; the classes
    the tree makes by name (``MLP()``); and the methods given ``init`` or ``apply`` as ``method=``,
    by class (``Model.encode``, ``model.encode`` or ``"encode"`` where ``model`` is only ever bound
    to ``Model(...)``)."""

    def __init__(self, tree: MypyFile) -> None:
        self.reads: dict[str, list[Use]] = {}
        self.called_on_self: dict[FuncItem, set[str]] = {}
        self.made: set[str] = set()
        self.given_as_method: dict[str, set[str]] = {}
        instances = instances_of_one_class(tree)
        pending: list[tuple[Node, FuncItem | None, str | None]] = [(statement, None, None) for statement in tree.defs]
        while pending:
            node, function, receiver = pending.pop()
            if isinstance(node, Decorator):
                pending.extend((decorator, function, receiver) for decorator in node.decorators)
                node = node.func
            if isinstance(node, (FuncDef, LambdaExpr)):
                function = node
                receiver = first_parameter(node) or (receiver if receiver not in parameter_names(node) else None)
            if isinstance(node, CallExpr):
                for cls, name in methods_given(node, instances):
                    self.given_as_method.setdefault(cls, set()).add(name)
                made = made_class(node)
                if made is not None:
                    self.made.add(made)
                called = called_on(node, receiver)
                if called is not None:
                    own = first_parameter(function) == receiver
                    self.reads.setdefault(called, []).append(Use(function, own))
                    if own and function is not None:
                        self.called_on_self.setdefault(function, set()).add(called)
                    pending.extend((argument, function, receiver) for argument in node.args)
                    continue
            if isinstance(node, (MemberExpr, SuperExpr)):
                self.reads.setdefault(node.name, []).append(Use(function, False))
            pending.extend((child, function, receiver) for child in nodes.children(node))


def called_on(call: CallExpr, receiver: str | None) -> str | None:
    """The method ``call`` calls on ``receiver`` (``self.encode(x)``, ``self(x)``), if it is such a call."""
    callee = call.callee
    if receiver is None:
        return None
    if isinstance(callee, NameExpr) and callee.name == receiver:
        return ENTRY
    if isinstance(callee, MemberExpr) and isinstance(callee.expr, NameExpr) and callee.expr.name == receiver:
        return callee.name
    return None


def instances_of_one_class(tree: MypyFile) -> dict[str, str]:
    """The names of ``tree`` bound, every time, to an instance made of one class (``model =
    Model()``), with that class's full name."""
    found: dict[str, set[str | None]] = {}
    for statement in checked_module.statements_anywhere(tree.defs):
        if not isinstance(statement, AssignmentStmt):
            continue
        cls = made_class(statement.rvalue)
        for target in statement.lvalues:
            for name in nodes.walk([target]):
                if isinstance(name, NameExpr):
                    found.setdefault(name.name, set()).add(cls if target is name else None)
    return {name: cls for name, classes in found.items() for cls in classes if len(classes) == 1 and cls is not None}


def methods_given(call: CallExpr, instances: dict[str, str]) -> list[tuple[str, str]]:
    """The method ``call`` gives ``init`` or ``apply`` to run, with the class it is of:
    ``method=Model.encode``; ``method=model.encode`` or ``method="encode"`` on ``model.apply``
    where ``model`` is always a ``Model``."""
    if not isinstance(call.callee, MemberExpr) or call.callee.name not in STARTERS:
        return []
    found = []
    for name, argument in zip(call.arg_names, call.args):
        if name != "method":
            continue
        receiver = argument.expr if isinstance(argument, MemberExpr) else call.callee.expr if isinstance(argument, StrExpr) else None
        method = argument.name if isinstance(argument, MemberExpr) else argument.value if isinstance(argument, StrExpr) else None
        cls = class_named_by(receiver, instances)
        if cls is not None and method is not None:
            found.append((cls, method))
    return found


def class_named_by(node: Expression | None, instances: dict[str, str]) -> str | None:
    """The class ``node`` is (``Model``) or is an instance of (``model``, ``Model(...)``)."""
    if isinstance(node, RefExpr) and isinstance(node.node, TypeInfo):
        return node.node.fullname
    if isinstance(node, NameExpr):
        return instances.get(node.name)
    return made_class(node)


def made_class(node: Node | None) -> str | None:
    """The class a call makes, written by its name (``Model(...)``)."""
    if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and isinstance(node.callee.node, TypeInfo):
        return node.callee.node.fullname
    return None


def first_parameter(function: FuncItem | None) -> str | None:
    """The name of a method's receiver (``self``); None for any other function."""
    if not isinstance(function, FuncDef) or function.info is FUNC_NO_INFO or function.is_static or function.is_class:
        return None
    parameters = mypy_internals.parameters(function)
    return parameters[0].variable.name if parameters else None


def parameter_names(function: FuncItem) -> set[str]:
    return {parameter.variable.name for parameter in mypy_internals.parameters(function) or []}


def names_redefined_below(tree: MypyFile) -> dict[str, set[str]]:
    """For each class of ``tree``, the names of the methods that a class deriving from it in
    ``tree`` defines again (a subclass may make its own compact)."""
    found: dict[str, set[str]] = {}
    for statement in checked_module.statements_anywhere(tree.defs):
        if not isinstance(statement, ClassDef):
            continue
        names = {s.name for s in statement.defs.body if isinstance(s, (FuncDef, Decorator, OverloadedFuncDef))}
        for base in statement.info.mro[1:]:
            found.setdefault(base.fullname, set()).update(names)
    return found


_classes: tuple[MypyFile, list[Statement], LinenClasses] | None = None


def linen_classes(tree: MypyFile) -> LinenClasses:
    """``LinenClasses`` of the tree checked now, read once (a new list of statements is a new tree:
    the daemon keeps a module's tree object when its file changes)."""
    global _classes
    if _classes is None or _classes[0] is not tree or _classes[1] is not tree.defs:
        _classes = (tree, tree.defs, LinenClasses(tree))
    return _classes[2]


def report_made_outside(api: CheckerPluginInterface, call: CallExpr, made: TypeInfo, method: FuncDef) -> None:
    """``jax-linen-submodule``: a Linen module made in a method that runs outside ``setup`` and
    every compact method. mypy may check the call while it only tries the call around it
    (``nn.relu(nn.Dense(3)(x))`` against each item of an overloaded ``relu``), under watchers that
    drop what is reported: the submodule is made whichever item fits, so the report goes past
    them, once per line (mypy drops a repeated error's notes)."""
    message = MADE_OUTSIDE.format(cls=made.name, method=method.name)
    compact, imports = checked_module.reference(api, "flax.linen", "compact")
    needs = " (needs " + ", ".join(f'"{statement}"' for statement in imports) + ")" if imports else ""
    notes = [DECORATE.format(method=method.name, compact=compact, needs=needs)]
    written = source(call)
    if written is not None and movable_to_setup(api, call, method):
        notes.append(IN_SETUP.format(name=attribute_name(api, call, made), made=written))
    with mypy_internals.unwatched(api) as shown:
        if shown and not mypy_internals.already_reported(api, call, message):
            reporting.error_with_notes(api, call, CODE, message, notes)


def movable_to_setup(api: CheckerPluginInterface, call: CallExpr, method: FuncDef) -> bool:
    """Whether ``call`` would make the same submodule in ``setup``: it reads no name local to the
    method but its receiver (``h.shape[-1]``; ``self.hidden`` is there too), and runs once (not in
    a loop, which makes one per turn)."""
    receiver = first_parameter(method)
    if any(isinstance(node, NameExpr) and node.kind == LDEF and node.name != receiver for node in nodes.walk(call.args)):
        return False
    return not any(isinstance(statement, (ForStmt, WhileStmt)) for statement in checked_module.enclosing_statements(api, call))


def attribute_name(api: CheckerPluginInterface, call: CallExpr, made: TypeInfo) -> str:
    """The name the submodule is kept under in ``setup``: the variable the statement binds it to
    (``dense = nn.Dense(3)``), else the class's name in lower case."""
    statement = checked_module.statement_at(api, call)
    if isinstance(statement, AssignmentStmt) and statement.rvalue is call and len(statement.lvalues) == 1:
        target = statement.lvalues[0]
        if isinstance(target, NameExpr):
            return target.name
    return made.name.lower()


RULE: Final = Rule(CODE, constructor_hooks={LINEN_MODULE: on_made}, method_hooks={PARTIAL_CALL: on_made})
