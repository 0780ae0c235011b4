"""Which methods of a module's Flax Linen classes run outside ``setup`` and every compact method,
read from the module's code once per tree (``jax-linen-submodule``'s engine).

Flax lets a Linen module make submodules only while ``setup`` or a ``@nn.compact`` method of it
runs (and what those call). A plain method runs outside both where ``init`` or ``apply`` starts
it: ``__call__``, or a method given as ``method=``; and so does what it calls on ``self``. The
code is read for those starts and calls, and for anything else that names the methods: a method
other code may run from a compact method (``super().__call__(x)``, ``self(x)`` or ``map(self,
xs)`` in one, ``getattr(self, "helper")``) counts as run outside only where the submodule is made
on the straight path of its body (whenever it runs from the plain start, it raises).
"""

from __future__ import annotations

from collections import Counter
from typing import Final, NamedTuple

from mypy.nodes import (
    FUNC_NO_INFO,
    GDEF,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    ConditionalExpr,
    Decorator,
    DictionaryComprehension,
    Expression,
    ForStmt,
    FuncDef,
    FuncItem,
    GeneratorExpr,
    LambdaExpr,
    ListComprehension,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    SetComprehension,
    Statement,
    StrExpr,
    SuperExpr,
    TypeInfo,
)

from mypy_plugin.analyses import bindings
from mypy_plugin.analyses.bindings import Bindings
from mypy_plugin.analyses.transforms import receiver_of
from mypy_plugin.lib import checked_module, mypy_internals, nodes

LINEN_MODULE: Final = "flax.linen.module.Module"
COMPACT: Final = "flax.linen.module.compact"
ENTRY: Final = "__call__"
"""The method ``init`` and ``apply`` run unless told another (``method=``)."""
STARTERS: Final = frozenset({"init", "apply", "init_with_output"})
"""The methods of a Linen module that run one of its methods bound (``method=``)."""
NAME_SCOPE: Final = "flax.linen.module.compact_name_scope"
"""A decorator under which a method may make submodules itself, though the methods it calls on
``self`` may not (where nothing compact runs it)."""
PARTIAL: Final = "functools.partial"
METHODS: Final = (FuncDef, Decorator, OverloadedFuncDef)
LAZY: Final = (LambdaExpr, GeneratorExpr)
"""Expressions whose inside runs later, elsewhere (a generator consumed in a compact method)."""
MAYBE: Final = (*LAZY, ConditionalExpr, ListComprehension, SetComprehension, DictionaryComprehension)
"""Expressions whose inside may not run at all (nor a right operand of ``and``, ``or``)."""


class Use(NamedTuple):
    """A read of a method's name: in which function, whether as a call on its receiver, and
    whether it reads that receiver at all (a call on it, or the receiver passed on: ``map(self, xs)``
    may call ``__call__`` of its class only)."""

    function: FuncItem | None
    on_self: bool
    of_receiver: bool = False


class LinenClasses:
    """The plain methods of the Linen classes of one tree that run outside ``setup`` and every
    compact method (``outside``: whether nothing else may run them, by method), and the first
    submodule each of them makes (mypy checks a body in the order Python runs it, and Flax raises
    at the first; a body checked again finds the same)."""

    def __init__(self, tree: MypyFile) -> None:
        self.tree = tree
        self.outside: dict[FuncDef, bool] = {}
        self.first_made: dict[FuncDef, CallExpr] = {}
        self.bindings = bindings.of(tree)
        classes = [s for s in checked_module.statements_anywhere(tree.defs) if isinstance(s, ClassDef)]
        self.related: dict[str, set[str]] = {}
        for defn in classes:
            for base in defn.info.mro:
                self.related.setdefault(base.fullname, set()).update(each.fullname for each in defn.info.mro)
        uses = Uses(tree, self.bindings)
        self.applied = uses.started | set(uses.given_as_method)
        """The classes whose methods the module runs bound through ``init`` or ``apply`` (``Uses.started``,
        and ``method=``)."""
        self.made_as_submodule = uses.made_as_submodule
        self.defined_twice = {name for name, count in Counter(defn.name for defn in classes).items() if count > 1}
        """The names of classes the module defines more than once (a notebook's cell run again): which
        of them a call makes is not read."""
        redefined = names_redefined_below(classes)
        for defn in classes:
            if defn.info.has_base(LINEN_MODULE) and defn.name not in self.defined_twice:
                self.outside.update(self.runs_outside_compact(defn, uses, redefined.get(defn.info.fullname, set())))

    def runs_outside_compact(self, defn: ClassDef, uses: Uses, redefined: set[str]) -> dict[FuncDef, bool]:
        """The plain methods of the class ``defn`` that run outside ``setup`` and every compact
        method, each with whether nothing else may run them.

        They start where ``init`` or ``apply`` do: ``__call__``, where the module starts the class's
        (``Uses.started``) and nothing else names ``__call__``; a method the module gives ``init`` or
        ``apply`` of this class as ``method=``. From there, the methods they call on ``self``
        (through a ``@nn.compact_name_scope`` method, which makes nothing compact for them)."""
        info = defn.info
        plain = plain_methods_of(defn, redefined)
        name_scoped = {
            statement.name: statement.func
            for statement in defn.defs.body
            if isinstance(statement, Decorator) and any(isinstance(d, RefExpr) and d.fullname == NAME_SCOPE for d in statement.decorators)
        }
        runnable = {**plain, **name_scoped}
        starts = uses.given_as_method.get(info.fullname, set()) & set(runnable)
        if ENTRY in plain and started(info, uses) and self.run_only_by(uses.reads.get(ENTRY, []), set(), info):
            starts.add(ENTRY)  # no other code names it, nor runs it from compact code
        reached = set(starts)
        pending = list(starts)
        while pending:
            for name in uses.called_on_self.get(runnable[pending.pop()], set()) & set(runnable) - reached:
                reached.add(name)
                pending.append(name)
        runners = {runnable[name] for name in reached}
        return {plain[name]: self.run_only_by(uses.reads.get(name, []), runners, info) for name in reached if name in plain}

    def run_only_by(self, reads: list[Use], runners: set[FuncDef], info: TypeInfo) -> bool:
        """Whether every read of a method of ``info`` is a call on ``self`` from one of ``runners``
        (or from a class no class of the module combines with ``info``)."""
        return all(use.on_self and use.function in runners or self.calls_another_class(use, info) for use in reads)

    def calls_another_class(self, use: Use, info: TypeInfo) -> bool:
        """Whether ``use`` calls a method on ``self`` (or passes ``self`` on) in a class that no
        class of the module combines with ``info`` (it reaches its own method of that name)."""
        function = use.function
        if not (use.on_self or use.of_receiver) or not isinstance(function, FuncDef) or function.info is FUNC_NO_INFO:
            return False
        return info.fullname not in self.related.get(function.info.fullname, set())

    def partial_of_a_class(self, call: CallExpr, method: FuncDef) -> bool:
        """Whether ``call`` calls a ``functools.partial`` of a Linen class that sets no parent, kept
        in a module-level name or an attribute of ``self`` that is never bound to anything else."""
        callee = call.callee
        values: list[Expression | None] = []
        if isinstance(callee, NameExpr) and callee.kind == GDEF:
            values = [value if not unpacked else None for value, unpacked in self.bindings.bound_values(callee) or []]
        elif isinstance(callee, MemberExpr) and isinstance(callee.expr, NameExpr) and callee.expr.name == receiver_of(method):
            values = attribute_bindings(method.info.defn, callee.name)
        return bool(values) and all(value is not None and partial_of_a_linen_class(value) for value in values)


def started(info: TypeInfo, uses: Uses) -> bool:
    """Whether the module runs ``__call__`` of ``info`` bound: through ``init`` or ``apply``
    (``Uses.started``), or as a submodule made in a Linen method, where no other method of the class
    is read but on ``self`` (the module making it may call only that one)."""
    if info.fullname in uses.started:
        return True
    if info.fullname not in uses.made_as_submodule:
        return False
    others = [name for name, node in info.names.items() if name not in (ENTRY, "setup") and isinstance(node.node, METHODS)]
    return not any(not use.on_self for name in others for use in uses.reads.get(name, []))


def partial_of_a_linen_class(value: Expression) -> bool:
    """``functools.partial(ConvBlock, train=...)``: a Linen class, no parent set."""
    if not isinstance(value, CallExpr) or not isinstance(value.callee, RefExpr) or value.callee.fullname != PARTIAL:
        return False
    made = value.args[0] if value.args else None
    return isinstance(made, RefExpr) and isinstance(made.node, TypeInfo) and made.node.has_base(LINEN_MODULE) and not may_pass_parent(value)


def may_pass_parent(call: CallExpr) -> bool:
    """Whether ``call`` may give the module a parent of its own (``parent=None``, ``**options``):
    then it is no submodule of the method's module."""
    return "parent" in call.arg_names or any(kind.is_star() for kind in call.arg_kinds)


def plain_methods_of(defn: ClassDef, redefined: set[str]) -> dict[str, FuncDef]:
    """The methods of ``defn`` written as a plain ``def`` (no decorator) and named nowhere else in
    its body (``__call__ = nn.compact(__call__)``, ``nn.compact(__call__)``), by name, but those
    named in ``redefined``."""
    class_level = [statement for statement in defn.defs.body if not isinstance(statement, (FuncDef, Decorator, OverloadedFuncDef))]
    named = {node.name for node in nodes.walk(class_level, into_lambdas=False) if isinstance(node, NameExpr)}
    return {
        statement.name: statement
        for statement in defn.defs.body
        if isinstance(statement, FuncDef) and not statement.is_static and not statement.is_class and statement.name not in redefined | named
    }


class Uses:
    """What the methods of a tree are called by and named in: every attribute name read anywhere
    (``x.encode``, ``super().__call__``) and every string that could name one (``getattr(self,
    "helper")``), each with the function it is read in and whether it is a call on that function's
    receiver (``self.encode(x)``; a call of the receiver itself, ``self(x)``, calls ``__call__``, and
    the receiver passed on as a value, ``map(self, xs)``, may; from a function or lambda defined in
    the method it counts as a plain read); the names each method calls on its receiver; the
    classes whose ``__call__`` the module runs bound (``started``): ``init`` or ``apply`` of it called
    without ``method=``, or passed on (``apply_fn=model.apply``) where no call of the module names a
    ``method=``; the classes made in a method of a Linen class, as a submodule, without a parent of
    their own (``made_as_submodule``: ``started`` says where that runs ``__call__``); and the
    methods given ``init`` or ``apply`` as ``method=``, by class (``Model.encode``, or
    ``model.encode`` and ``"encode"`` where ``model`` is a module-level name only ever bound to
    ``Model(...)``)."""

    def __init__(self, tree: MypyFile, bound: Bindings) -> None:
        self.reads: dict[str, list[Use]] = {}
        self.called_on_self: dict[FuncItem, set[str]] = {}
        self.started: set[str] = set()
        self.made_as_submodule: set[str] = set()
        self.passed_on: set[str] = set()
        method_given = False
        self.given_as_method: dict[str, set[str]] = {}
        given_nodes: set[int] = set()
        starter_calls: set[int] = set()
        pending: list[tuple[Node, FuncItem | None, str | None]] = [(statement, None, None) for statement in tree.defs]
        while pending:
            node, function, receiver = pending.pop()
            if isinstance(node, Decorator):
                pending.extend((decorator, function, receiver) for decorator in node.decorators)
                node = node.func
            if isinstance(node, (FuncDef, LambdaExpr)):
                function = node
                receiver = receiver_of(node) or (receiver if receiver not in parameter_names(node) else None)
            if isinstance(node, CallExpr):
                for cls, name, argument in methods_given(node, bound):
                    self.given_as_method.setdefault(cls, set()).add(name)
                    given_nodes.add(id(argument))
                method_given = method_given or "method" in node.arg_names
                made = made_class(node)
                if made is not None and isinstance(function, FuncDef) and function.info is not FUNC_NO_INFO:
                    if function.info.has_base(LINEN_MODULE) and not may_pass_parent(node):
                        self.made_as_submodule.add(made)
                if isinstance(node.callee, MemberExpr) and node.callee.name in STARTERS:
                    starter_calls.add(id(node.callee))
                    if "method" not in node.arg_names:
                        self.start(node.callee, bound, self.started)
                called = called_on(node, receiver)
                if called is not None:
                    own = receiver_of(function) == receiver
                    self.read(called, Use(function, own))
                    if own and function is not None:
                        self.called_on_self.setdefault(function, set()).add(called)
                    pending.extend((argument, function, receiver) for argument in node.args)
                    continue
            if isinstance(node, NameExpr) and receiver is not None and node.name == receiver:
                own = receiver_of(function) == receiver
                self.read(ENTRY, Use(function, False, own))  # the receiver passed on: it may be called anywhere
            elif isinstance(node, (MemberExpr, SuperExpr)) and id(node) not in given_nodes:
                self.read(node.name, Use(function, False))
                if isinstance(node, MemberExpr) and node.name in STARTERS and id(node) not in starter_calls:
                    self.start(node, bound, self.passed_on)
                if isinstance(node, MemberExpr) and isinstance(node.expr, NameExpr) and node.expr.name == receiver:
                    continue  # ``self.x``: the receiver read for an attribute, not passed on
            elif isinstance(node, StrExpr) and node.value.isidentifier():
                self.read(node.value, Use(function, False))
            pending.extend((child, function, receiver) for child in nodes.children(node))
        if not method_given:  # passed on (apply_fn=model.apply), it runs __call__ unless some call names a method
            self.started |= self.passed_on

    def read(self, name: str, use: Use) -> None:
        self.reads.setdefault(name, []).append(use)

    def start(self, starter: MemberExpr, bound: Bindings, started: set[str]) -> None:
        """``model.init``, ``model.apply``: the class of ``model``, where it is known, runs ``__call__``."""
        cls = class_named_by(starter.expr, bound)
        if cls is not None:
            started.add(cls)


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


def attribute_bindings(defn: ClassDef, name: str) -> list[Expression | None]:
    """Every binding of ``<receiver>.<name>`` in the class's methods: the value of ``self.name =
    value``, None for any other (a tuple or ``for`` target, an augmented assignment)."""
    found: list[Expression | None] = []
    for statement in checked_module.statements_anywhere(defn.defs.body):
        if isinstance(statement, AssignmentStmt):
            for target in statement.lvalues:
                if isinstance(target, MemberExpr) and target.name == name:
                    found.append(statement.rvalue)
                elif any(isinstance(node, MemberExpr) and node.name == name for node in nodes.walk([target])):
                    found.append(None)
        elif isinstance(statement, (OperatorAssignmentStmt, ForStmt)):
            target = statement.lvalue if isinstance(statement, OperatorAssignmentStmt) else statement.index
            if any(isinstance(node, MemberExpr) and node.name == name for node in nodes.walk([target])):
                found.append(None)
    return found


def one_class_made(bound: Bindings, node: NameExpr) -> str | None:
    """The class a module-level name holds an instance of, where every binding of it makes one
    (``model = Model()``); None for any other name."""
    values = bound.bound_values(node) if node.kind == GDEF else None
    if not values or any(unpacked for _, unpacked in values):
        return None
    classes = {made_class(value) for value, _ in values}
    return classes.pop() if len(classes) == 1 and None not in classes else None


def methods_given(call: CallExpr, bound: Bindings) -> list[tuple[str, str, Expression]]:
    """The methods ``call`` gives ``init`` or ``apply`` to run, each with the class it is of and
    the argument naming it: ``method=Model.encode``; ``method=model.encode`` or
    ``method="encode"`` on ``model.apply`` where ``model`` is always a ``Model``."""
    if not isinstance(call.callee, MemberExpr) or call.callee.name not in STARTERS:
        return []
    found: list[tuple[str, str, Expression]] = []
    for name, argument in zip(call.arg_names, call.args):
        if name != "method":
            continue
        if isinstance(argument, MemberExpr):
            receiver, method = argument.expr, argument.name
        elif isinstance(argument, StrExpr):
            receiver, method = call.callee.expr, argument.value
        else:
            continue
        cls = class_named_by(receiver, bound)
        if cls is not None:
            found.append((cls, method, argument))
    return found


def class_named_by(node: Expression, bound: Bindings) -> str | None:
    """The class ``node`` is (``Model``) or is an instance of (``model``, ``Model(...)``)."""
    if isinstance(node, RefExpr) and isinstance(node.node, TypeInfo):
        return node.node.fullname
    if isinstance(node, NameExpr):
        return one_class_made(bound, node)
    return made_class(node)


def made_class(node: Node | None) -> str | None:
    """The class a call makes, written by its name (``Model(...)``)."""
    if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and isinstance(node.callee.node, TypeInfo):
        return node.callee.node.fullname
    return None


def parameter_names(function: FuncItem) -> set[str]:
    return {parameter.variable.name for parameter in mypy_internals.parameters(function) or []}


def names_redefined_below(classes: list[ClassDef]) -> dict[str, set[str]]:
    """For each class, the names of the methods that a class deriving from it among ``classes``
    defines again (a subclass may make its own compact)."""
    found: dict[str, set[str]] = {}
    for defn in classes:
        names = {s.name for s in defn.defs.body if isinstance(s, (FuncDef, Decorator, OverloadedFuncDef))}
        for base in defn.info.mro[1:]:
            found.setdefault(base.fullname, set()).update(names)
    return found


def enclosing_parts(statement: Statement, call: CallExpr) -> list[Node] | None:
    """The nodes of ``statement`` that hold ``call``, outermost first; None where it is not there
    (mypy's support for ``functools.partial`` checks a call it makes up, which makes nothing)."""
    pending: list[tuple[Node, tuple[Node, ...]]] = [(statement, ())]
    while pending:
        node, above = pending.pop()
        if node is call:
            return list(above)
        pending.extend((child, (*above, node)) for child in nodes.children(node))
    return None


def runs_when_reached(parts: list[Node], call: CallExpr, *, surely: bool) -> bool:
    """Whether ``call``, held by ``parts``, runs where its statement does: not later in a lambda or
    a generator; with ``surely``, neither in a branch of a conditional, a comprehension, or the
    right operand of ``and``/``or``."""
    kinds = MAYBE if surely else LAZY
    for outer, node, inner in zip([None, *parts], parts, [*parts[1:], call]):
        if isinstance(node, GeneratorExpr) and isinstance(outer, (ListComprehension, SetComprehension)):
            continue  # mypy's tree holds a list comprehension's loop as a generator: it runs at once
        if isinstance(node, kinds):
            return False
        if surely and isinstance(node, OpExpr) and node.op in ("and", "or") and inner is node.right:
            return False
    return True


linen_classes: Final = checked_module.PerTree(LinenClasses)
"""``LinenClasses`` of the tree checked now, read once."""
