"""``jax-linen-submodule`` (``docs/rules/``): a Linen submodule made where Flax does not let a
module make one.

A Linen module makes its submodules in ``setup`` or in a method decorated ``@nn.compact`` (and in
the methods those call); a submodule made in any other method of the module raises
``AssignSubModuleError`` as that method runs inside ``init`` or ``apply``. PyTorch code makes
layers where it uses them, in a ``forward`` ported as a plain ``__call__``.

Read from the hook mypy runs where the code makes an instance of a Linen class (a constructor
hook keyed by ``flax.linen.Module``: Flax's layers and the user's own classes), so a project
without Flax imports nothing of this rule. Which methods of a class run outside ``setup`` and
every compact method is decided once per tree (``LinenClasses``): ``__call__``, undecorated, and
the undecorated methods it calls on ``self``, as long as nothing else in the module names them.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    FUNC_NO_INFO,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Decorator,
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
    TypeInfo,
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
"""A decorator under which a method makes submodules, but the methods it calls on ``self`` do not."""

MADE_OUTSIDE: Final = 'submodule "{cls}" made in "{method}", which is neither "setup" nor compact; Flax raises AssignSubModuleError'
DECORATE: Final = 'Decorate "{method}" with "@{compact}"{needs}: a compact method makes its submodules as it runs'
IN_SETUP: Final = 'Or make it once in "setup", "self.{name} = {made}", and call "self.{name}" here'


def on_made(ctx: FunctionContext | MethodContext) -> Type:
    """An instance of a Linen class made in a body mypy checks (``nn.Dense(3)``, ``Block(8)``, or a
    ``functools.partial`` of a class called): reported where the method making it runs outside
    ``setup`` and every compact method of its module, the first made there."""
    call = ctx.context
    made = get_proper_type(ctx.default_return_type)
    tree = mypy_internals.module_tree(ctx.api)
    method = mypy_internals.current_function(ctx.api)
    if (
        not isinstance(call, CallExpr)
        or not isinstance(made, Instance)
        or not made.type.has_base(LINEN_MODULE)
        or tree is None
        or not isinstance(method, FuncDef)
        or "parent" in call.arg_names
    ):
        return ctx.default_return_type
    classes = linen_classes(tree)
    if method in classes.outside and classes.first_made.setdefault(method, call) is call:
        report_made_outside(ctx.api, call, made.type, method)
    return ctx.default_return_type


class LinenClasses:
    """Which methods of the Linen classes of one tree run outside ``setup`` and every compact
    method, and the first submodule each of them makes (mypy checks a body in the order Python
    runs it, and Flax raises at the first; a body checked again finds the same)."""

    def __init__(self, tree: MypyFile) -> None:
        self.outside: set[FuncDef] = set()
        self.first_made: dict[FuncDef, CallExpr] = {}
        uses = Uses(tree)
        redefined = names_redefined_below(tree)
        classes = [s for s in checked_module.statements_anywhere(tree.defs) if isinstance(s, ClassDef) and s.info.has_base(LINEN_MODULE)]
        plain_methods = [name for defn in classes for name in plain_methods_of(defn, set())]
        given = {name for name in uses.given_as_method if plain_methods.count(name) == 1}
        for defn in classes:
            self.outside |= runs_outside_compact(defn, uses, redefined.get(defn.info.fullname, set()), given)


def plain_methods_of(defn: ClassDef, redefined: set[str]) -> dict[str, FuncDef]:
    """The methods of ``defn`` written as a plain ``def`` (no decorator), by name, but those named in ``redefined``."""
    return {
        statement.name: statement
        for statement in defn.defs.body
        if isinstance(statement, FuncDef) and not statement.is_static and not statement.is_class and statement.name not in redefined
    }


def runs_outside_compact(defn: ClassDef, uses: Uses, redefined: set[str], given: set[str]) -> set[FuncDef]:
    """The plain methods of the class ``defn`` that run outside ``setup`` and every compact method:
    where ``init`` or ``apply`` starts (``__call__``, unless other code names it: it may run only
    from a compact method, as ``super().__call__(x)``; a method given as ``method=``), what a
    method decorated ``@nn.compact_name_scope`` calls on ``self``, and what those call on
    ``self``."""
    plain = plain_methods_of(defn, redefined)
    starts = given & set(plain)
    if ENTRY in plain and all(harmless(use, defn.info) for use in uses.reads.get(ENTRY, [])):
        starts.add(ENTRY)
    for statement in defn.defs.body:
        if isinstance(statement, Decorator) and any(refers_to(d, NAME_SCOPE) for d in statement.decorators):
            starts |= uses.called_on_self.get(statement.func, set()) & set(plain)
    reached = set(starts)
    pending = list(starts)
    while pending:
        for name in uses.called_on_self.get(plain[pending.pop()], set()) & set(plain) - reached:
            reached.add(name)
            pending.append(name)
    return {plain[name] for name in reached}


def harmless(use: tuple[FuncItem | None, bool], info: TypeInfo) -> bool:
    """Whether a read of ``__call__`` leaves it run where ``init`` or ``apply`` start: a call of
    ``self`` in a plain method of the class, or in a method of a class unrelated to ``info``
    (that calls its own)."""
    user, on_self = use
    if not on_self or not isinstance(user, FuncDef):
        return False
    related = user.info.has_base(info.fullname) or info.has_base(user.info.fullname)
    return not related or (user.info is info and not user.is_decorated)


def refers_to(node: Node, fullname: str) -> bool:
    return isinstance(node, RefExpr) and node.fullname == fullname


class Uses:
    """Every name read as an attribute anywhere in a tree (``x.encode``), each read with the
    function it is read in and whether it is a call on that function's first parameter
    (``self.encode(x)``; a call of the parameter itself, ``self(x)``, calls ``__call__``); the
    names each function calls on its first parameter; and the names given as ``method=`` to
    ``init`` or ``apply`` (``model.apply(variables, z, method=model.psf)``)."""

    def __init__(self, tree: MypyFile) -> None:
        self.reads: dict[str, list[tuple[FuncItem | None, bool]]] = {}
        self.called_on_self: dict[FuncItem, set[str]] = {}
        self.given_as_method: set[str] = set()
        pending: list[tuple[Node, FuncItem | None]] = [(statement, None) for statement in tree.defs]
        while pending:
            node, function = pending.pop()
            if isinstance(node, (FuncDef, LambdaExpr)):
                function = node
            elif isinstance(node, Decorator):
                pending.extend((decorator, function) for decorator in node.decorators)
                node = function = node.func
            if isinstance(node, CallExpr):
                self.given_as_method.update(given_as_method(node))
                called = called_on(node, first_parameter(function))
                if called is not None and function is not None:
                    self.reads.setdefault(called, []).append((function, True))
                    self.called_on_self.setdefault(function, set()).add(called)
                    pending.extend((argument, function) for argument in node.args)
                    continue
            if isinstance(node, MemberExpr):
                self.reads.setdefault(node.name, []).append((function, False))
            pending.extend((child, function) for child in nodes.children(node))


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


def given_as_method(call: CallExpr) -> list[str]:
    """The method ``call`` gives ``init`` or ``apply`` to run (``method=Model.encode``, ``method="encode"``)."""
    if not isinstance(call.callee, MemberExpr) or call.callee.name not in STARTERS:
        return []
    return [
        argument.name if isinstance(argument, MemberExpr) else argument.value
        for name, argument in zip(call.arg_names, call.args)
        if name == "method" and isinstance(argument, (MemberExpr, StrExpr))
    ]


def first_parameter(function: FuncItem | None) -> str | None:
    """The name of a method's receiver (``self``); None for any other function."""
    if not isinstance(function, FuncDef) or function.info is FUNC_NO_INFO or function.is_static:
        return None
    parameters = mypy_internals.parameters(function)
    return parameters[0].variable.name if parameters else None


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
    every compact method. Past the watchers of a call mypy only tries (the submodule is made
    whichever of an overloaded callee's items fits: ``nn.relu(nn.Dense(3)(x))``), and once per
    line (mypy drops a repeated error's notes)."""
    message = MADE_OUTSIDE.format(cls=made.name, method=method.name)
    compact, imports = checked_module.reference(api, "flax.linen", "compact")
    needs = " (needs " + ", ".join(f'"{statement}"' for statement in imports) + ")" if imports else ""
    notes = [DECORATE.format(method=method.name, compact=compact, needs=needs)]
    written = source(call)
    if written is not None:
        notes.append(IN_SETUP.format(name=attribute_name(api, call, made), made=written))
    with mypy_internals.unwatched(api) as shown:
        if shown and not mypy_internals.already_reported(api, call, message):
            reporting.error_with_notes(api, call, CODE, message, notes)


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
