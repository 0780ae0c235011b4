"""The pytree structure of a value as the code writes it: what ``jax.lax``'s loops and branches compare.

A loop's carry keeps its pytree structure from step to step, and the branches of ``cond`` and
``switch`` return one structure: JAX compares the nodes (a tuple is not a list, a dict's keys,
``None``) and counts every array or number as one leaf. Shapes and dtypes are compared too, but
weak typing lets a Python number stand for an array (``lax.scan(lambda c, a: (c + a, a), 0, x)``
runs), so leaves are not told apart here.

A structure is read from a literal (a tuple, a list, a dict with string keys, ``None``, a
number), from a type (a tuple type, an array or a scalar, ``None``), from what JAX computes (an
operator on a leaf, a ``jnp`` function, an array method, ``x.at[i].set(v)``), and through names
assigned once. Anything else is unknown (None), and an unknown part matches every structure.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_POS,
    AssignmentStmt,
    Block,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    ComplexExpr,
    ConditionalExpr,
    Decorator,
    DictExpr,
    Expression,
    FloatExpr,
    FuncDef,
    FuncItem,
    IndexExpr,
    IntExpr,
    LambdaExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    ReturnStmt,
    StarExpr,
    Statement,
    StrExpr,
    TupleExpr,
    TypeInfo,
    UnaryExpr,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import NoneType, TupleType, Type, get_proper_type

from mypy_plugin.analyses import bindings, sites, values
from mypy_plugin.analyses.transforms import traceable
from mypy_plugin.lib import flow, fullnames, mypy_internals, statements, types
from mypy_plugin.lib.source import int_literal

LEAF: Final = "leaf"
"""An array or a number: one leaf."""
NONE: Final = "None"
"""``None``: a node with no leaf."""
NAMEDTUPLE: Final = "namedtuple"
"""A NamedTuple: a node of its class, with its fields as keys."""
SEQUENCES: Final = frozenset({"tuple", "list", NAMEDTUPLE})
"""The nodes whose items are read by position (indexing, unpacking)."""


class Node:
    """A tuple, a list, a dict or a NamedTuple, with the structure of each item (None where
    unknown)."""

    __slots__ = ("kind", "items", "keys", "namedtuple_class", "exact")

    def __init__(
        self, kind: str, items: tuple[Structure, ...], keys: tuple[str, ...] = (), namedtuple_class: str = "", exact: bool = True
    ) -> None:
        self.kind = kind
        """``tuple``, ``list``, ``dict`` or ``namedtuple``."""
        self.items = items
        self.keys = keys
        """A dict's keys, in the order of ``items`` (sorted); a NamedTuple's fields, in order."""
        self.namedtuple_class = namedtuple_class
        """A NamedTuple's class, by full name: JAX tells two classes apart even where their
        fields agree."""
        self.exact = exact
        """Whether the node is of that very class, as the code makes it; not where it is read
        from a type, which admits subclasses (a NamedTuple for a tuple type, a subclass for a
        NamedTuple)."""

    def form(self) -> tuple[str, int, tuple[str, ...]]:
        """What JAX compares of the node itself, its items and its class aside."""
        return self.kind, len(self.items), self.keys

    def certainly_other_node(self, other: Node) -> bool:
        """Whether ``other`` is certainly another node (its items aside): another kind, length,
        keys, or another NamedTuple class where both are known exactly."""
        if {self.kind, other.kind} == {"tuple", NAMEDTUPLE}:
            typed_tuple = self if self.kind == "tuple" else other
            return typed_tuple.exact or len(self.items) != len(other.items)  # a tuple type admits a NamedTuple
        return self.form() != other.form() or self.exact and other.exact and self.namedtuple_class != other.namedtuple_class

    def with_items(self, items: tuple[Structure, ...]) -> Node:
        return Node(self.kind, items, self.keys, self.namedtuple_class, self.exact)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and (self.form(), self.namedtuple_class, self.exact, self.items) == (
            other.form(),
            other.namedtuple_class,
            other.exact,
            other.items,
        )

    def __hash__(self) -> int:
        return hash((self.form(), self.namedtuple_class, self.items))


Structure = None | str | Node
"""What is known of a value's structure: ``LEAF``, ``NONE``, a ``Node``, or None (unknown)."""
Returned = tuple[Statement | FuncItem, Structure]
"""A ``return`` statement with the structure of its value; the function itself where its body
can end without one (returning None)."""

ARITHMETIC: Final = frozenset({"+", "-", "/", "//", "%", "**", "@"})
"""Operators that give a leaf when an operand is one (an array, or an error): ``*`` repeats a
tuple or a list by a Python int, so it gives a leaf only from two."""
UPDATES: Final = frozenset({"set", "add", "subtract", "multiply", "divide", "power", "min", "max", "apply", "get"})
"""The methods of ``x.at[i]``, each giving an array."""


def refine(written: Structure, typed: Structure) -> Structure:
    """What the code writes, its unknown parts taken from the type (``(xs, xs)`` with ``xs:
    jax.Array``)."""
    if written is None:
        return typed
    if isinstance(written, Node) and isinstance(typed, Node) and not differ(written, typed):
        return written.with_items(tuple(refine(a, b) for a, b in zip(written.items, typed.items)))
    return written


def differ(a: Structure, b: Structure) -> bool:
    """Whether two structures certainly differ: known nodes of other kinds, lengths or keys,
    or items that differ; an unknown part matches every structure."""
    if a is None or b is None:
        return False
    if isinstance(a, Node) and isinstance(b, Node):
        if a.certainly_other_node(b):
            return True
        return any(differ(x, y) for x, y in zip(a.items, b.items))
    return a != b


def first_difference(a: Structure, b: Structure, path: str = "") -> tuple[str, Structure, Structure]:
    """Where two structures that differ first differ: the path to it (``[1]``, ``["sum"]``;
    empty where the nodes themselves differ) and the part of each there."""
    if isinstance(a, Node) and isinstance(b, Node) and not a.certainly_other_node(b):
        for index, (x, y) in enumerate(zip(a.items, b.items)):
            if differ(x, y):
                step = f'["{a.keys[index]}"]' if a.kind == "dict" else f".{a.keys[index]}" if a.kind == NAMEDTUPLE else f"[{index}]"
                return first_difference(x, y, path + step)
    return path, a, b


def not_a_prefix(spec: Structure, value: Structure) -> bool:
    """Whether ``spec`` (an axes option such as ``jax.vmap``'s ``out_axes``: ints and ``None``
    are its leaves) certainly is not a tree prefix of ``value``: a node where the value has a
    leaf or ``None``, or a node of another kind, length or keys; an unknown part is a prefix."""
    if not isinstance(spec, Node) or value is None:
        return False
    if not isinstance(value, Node):
        return True
    if spec.certainly_other_node(value):
        return True
    return any(not_a_prefix(a, b) for a, b in zip(spec.items, value.items))


def describe(structure: Structure, qualified: bool = False) -> str:
    """A structure as a message names it: ``a tuple of 2 items``, ``None``; a NamedTuple by its
    class's full name where ``qualified`` (two classes of one name)."""
    if structure == LEAF:
        return "an array"
    if structure == NONE or structure is None:
        return "None"
    assert isinstance(structure, Node)
    if structure.kind == "dict":
        keys = ", ".join(f'"{key}"' for key in structure.keys)
        return f"a dict with keys {keys}" if keys else "an empty dict"
    if structure.kind == NAMEDTUPLE:
        return f'a NamedTuple "{structure.namedtuple_class if qualified else class_name(structure.namedtuple_class)}"'
    count = len(structure.items)
    return f"a {structure.kind} of {count} item{'' if count == 1 else 's'}"


def class_name(fullname: str) -> str:
    """A class as a message names it: ``State`` for ``pkg.mod.State``."""
    return fullname.rpartition(".")[2]


def described_apart(a: Structure, b: Structure) -> tuple[str, str]:
    """Two structures that differ, as a message names them: NamedTuples by their full names
    where their names alone read the same."""
    described = describe(a), describe(b)
    return (describe(a, qualified=True), describe(b, qualified=True)) if described[0] == described[1] else described


REGISTRATIONS: Final = frozenset({
    "register_pytree_node", "register_pytree_with_keys", "register_static", "register_dataclass",
    "register_pytree_node_class", "register_pytree_with_keys_class",
})  # fmt: skip
"""``jax.tree_util``'s ways to give a class its own flattening (called, or as a decorator): a
NamedTuple so registered is not flattened as one."""


def namedtuple_classes(structure: Structure) -> set[str]:
    """The NamedTuple classes anywhere in ``structure``, by full name."""
    if not isinstance(structure, Node):
        return set()
    found = {structure.namedtuple_class} if structure.kind == NAMEDTUPLE else set()
    return found.union(*(namedtuple_classes(item) for item in structure.items))


def registered_apart(api: CheckerPluginInterface, *found: Structure) -> bool:
    """Whether a NamedTuple class in ``found`` is registered with ``jax.tree_util`` in the
    module checked (``register_pytree_node(State, ...)``): JAX then flattens it as its
    registration says, which is not read here. A decorated class is not read at all
    (``StructureReader.constructed``)."""
    classes = set().union(*(namedtuple_classes(each) for each in found))
    tree = mypy_internals.module_tree(api) if classes else None
    if tree is None:
        return bool(classes)
    return any(
        isinstance(expression, CallExpr)
        and isinstance(expression.callee, (NameExpr, MemberExpr))
        and expression.callee.name in REGISTRATIONS
        and any(isinstance(arg, RefExpr) and arg.fullname in classes for arg in expression.args[:1])
        for expression in bindings.every_expression(tree)
    )


def describe_each(found: list[Structure]) -> str:
    """What several returns give, as a message names it: ``a tuple of 2 items or None``."""
    described = {describe(each) for each in found}
    return described.pop() if len(described) == 1 else " or ".join(sorted(described))


def named(function: FuncItem) -> str:
    """A function as a message names it: ``"body"``, or ``the lambda``."""
    return "the lambda" if isinstance(function, LambdaExpr) else f'"{function.name}"'


def of_type(typ: Type | None) -> Structure:
    """The structure every value of ``typ`` has: a tuple type's, an array's or a scalar's
    (``types.TRACEABLE``), ``None``'s; None for anything else."""
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, NoneType):
        return NONE
    if isinstance(proper, TupleType):
        items = tuple(of_type(item) for item in proper.items)
        info = proper.partial_fallback.type
        if info.fullname == "builtins.tuple":
            return Node("tuple", items, exact=False)
        fields = mypy_internals.namedtuple_fields(info)
        return Node(NAMEDTUPLE, items, tuple(fields), info.fullname, exact=False) if len(fields) == len(items) else None
    if traceable(proper):
        return LEAF
    return None


def pair(structure: Structure) -> bool | None:
    """Whether ``structure`` is a pair (a tuple or a list of two), as ``lax.scan`` needs one
    from its body; None where unknown, and for a NamedTuple of two, which JAX takes for a pair
    up to 0.10.2 and not on 0.12.0.1 ("scan body output must be a pair")."""
    if structure is None or isinstance(structure, Node) and structure.kind == NAMEDTUPLE and len(structure.items) == 2:
        return None
    return isinstance(structure, Node) and structure.kind in SEQUENCES and len(structure.items) == 2


Binding = tuple[Expression, tuple[int, ...]]
"""The value a name is assigned, and the positions that unpacking takes it from (``a, (b, c) =
value`` binds ``c`` to ``(value, (1, 1))``)."""


class StructureReader:
    """Reads structures from expressions, with what is known of names: parameters that hold
    what JAX passes, and names assigned once by ``name = value`` or unpacking (read through
    their value)."""

    def __init__(self, names: dict[str, Structure], single: dict[str, Binding]) -> None:
        self.names = names
        self.single = single
        self.reading: set[str] = set()

    def value(self, node: Expression) -> Structure:
        """The structure of ``node`` as JAX would see it in the traced body."""
        if isinstance(node, TupleExpr):
            return None if any(isinstance(item, StarExpr) for item in node.items) else Node("tuple", self.values(node.items))
        if isinstance(node, ListExpr):
            return None if any(isinstance(item, StarExpr) for item in node.items) else Node("list", self.values(node.items))
        if isinstance(node, DictExpr):
            keys = [key.value if isinstance(key, StrExpr) else None for key, _ in node.items]
            if any(key is None for key in keys) or len(set(keys)) != len(keys):
                return None
            ordered = sorted(zip(keys, (value for _, value in node.items)), key=lambda item: str(item[0]))
            return Node("dict", tuple(self.value(value) for _, value in ordered), tuple(str(key) for key, _ in ordered))
        if isinstance(node, NameExpr):
            return self.name(node)
        if isinstance(node, (IntExpr, FloatExpr, ComplexExpr, ComparisonExpr)):
            return LEAF
        if isinstance(node, UnaryExpr):
            return LEAF if node.op in ("-", "+", "~") and self.value(node.expr) == LEAF else None
        if isinstance(node, OpExpr):
            left, right = self.value(node.left), self.value(node.right)
            if node.op in ARITHMETIC and LEAF in (left, right) or node.op == "*" and left == right == LEAF:
                return LEAF
            return None
        if isinstance(node, IndexExpr):
            return self.item(node)
        if isinstance(node, MemberExpr):
            return self.field(node)
        if isinstance(node, ConditionalExpr):
            a, b = self.value(node.if_expr), self.value(node.else_expr)
            return a if a == b else None
        if isinstance(node, CallExpr):
            return self.call(node)
        return None

    def values(self, nodes: list[Expression]) -> tuple[Structure, ...]:
        return tuple(self.value(node) for node in nodes)

    def name(self, node: NameExpr) -> Structure:
        if node.fullname == "builtins.None":
            return NONE
        if node.fullname in ("builtins.True", "builtins.False"):
            return LEAF
        if node.name in self.names:
            return self.names[node.name]
        assigned = self.single.get(node.name)
        if assigned is None or node.name in self.reading:
            return None
        value, path = assigned
        self.reading.add(node.name)  # "x = f(x)": not read through itself
        try:
            found = self.value(value)
        finally:
            self.reading.discard(node.name)
        for position in path:
            if isinstance(found, Node) and found.kind in SEQUENCES and position < len(found.items):
                found = found.items[position]
            elif found != LEAF:  # unpacking an array gives arrays
                found = None
        self.names[node.name] = found
        return found

    def item(self, node: IndexExpr) -> Structure:
        base = self.value(node.base)
        if base == LEAF:
            return LEAF  # indexing an array gives an array
        if not isinstance(base, Node):
            return None
        if base.kind == "dict":
            key = node.index.value if isinstance(node.index, StrExpr) else None
            return base.items[base.keys.index(key)] if key in base.keys else None
        position = int_literal(node.index)
        return base.items[position] if position is not None and -len(base.items) <= position < len(base.items) else None

    def field(self, node: MemberExpr) -> Structure:
        """A field of a NamedTuple (``state.x``)."""
        base = self.value(node.expr)
        if isinstance(base, Node) and base.kind == NAMEDTUPLE and node.name in base.keys:
            return base.items[base.keys.index(node.name)]
        return None

    def constructed(self, info: TypeInfo, node: CallExpr) -> Structure:
        """``State(x, v=v)`` for a NamedTuple class: its fields as passed; a field left to its
        default is unknown."""
        fields = mypy_internals.namedtuple_fields(info)
        if any(isinstance(decorator, (NameExpr, MemberExpr)) and decorator.name in REGISTRATIONS for decorator in info.defn.decorators):
            return None  # flattened as its registration says
        given: dict[str, Expression] = {}
        positional = [arg for arg, kind in zip(node.args, node.arg_kinds) if kind == ARG_POS]
        if not fields or len(positional) > len(fields) or any(kind not in (ARG_POS, ARG_NAMED) for kind in node.arg_kinds):
            return None
        given.update(zip(fields, positional))
        for arg, kind, name in zip(node.args, node.arg_kinds, node.arg_names):
            if kind == ARG_NAMED:
                if name not in fields or name in given:
                    return None
                given[str(name)] = arg
        items = tuple(self.value(given[field]) if field in given else None for field in fields)
        return Node(NAMEDTUPLE, items, tuple(fields), info.fullname)

    def replaced(self, node: CallExpr, base: Expression) -> Structure:
        """``state._replace(x=...)``: the NamedTuple with those fields replaced."""
        found = self.value(base)
        if not (isinstance(found, Node) and found.kind == NAMEDTUPLE) or any(kind != ARG_NAMED for kind in node.arg_kinds):
            return None
        if any(name not in found.keys for name in node.arg_names):
            return None
        replacing = dict(zip(node.arg_names, node.args))
        return found.with_items(
            tuple(self.value(replacing[key]) if key in replacing else item for key, item in zip(found.keys, found.items))
        )

    def call(self, node: CallExpr) -> Structure:
        callee = node.callee
        if isinstance(callee, RefExpr) and callee.fullname == "builtins.dict" and all(kind == ARG_NAMED for kind in node.arg_kinds):
            named = sorted(zip((str(name) for name in node.arg_names), node.args), key=lambda item: item[0])  # dict(a=3, b=4), dict()
            return Node("dict", tuple(self.value(value) for _, value in named), tuple(name for name, _ in named))
        if isinstance(callee, RefExpr) and isinstance(callee.node, TypeInfo):
            return self.constructed(callee.node, node)
        if isinstance(callee, MemberExpr):
            if callee.name == "_replace":
                return self.replaced(node, callee.expr)
            if callee.name in UPDATES and isinstance(callee.expr, IndexExpr) and isinstance(callee.expr.base, MemberExpr):
                return LEAF if callee.expr.base.name == "at" else None
            if callee.name in sites.ARRAY_METHODS - {"tolist"} and self.value(callee.expr) == LEAF:
                return LEAF
        if isinstance(callee, RefExpr) and (callee.fullname or "").startswith(fullnames.JAX_PACKAGE):
            return LEAF if types.is_array(values.returned_type(callee.node)) else None
        return None


class Returns(flow.Flow[None]):
    """What a function returns, read from its body: the structure of each ``return`` (and
    ``None`` where the body can end without one), with where it is."""

    def __init__(self, function: FuncItem, parameters: dict[str, Structure]) -> None:
        super().__init__()
        self.function = function
        assigned = assignments(function.body)
        self.reader = StructureReader(
            {name: found for name, found in parameters.items() if name not in assigned},
            {name: bound for name, (bound, *more) in assigned.items() if bound is not None and not more},
        )
        self.found: list[Returned] = []

    def read(self) -> list[Returned]:
        """Each return with its structure; a body that can end without one returns None there
        (a lambda, a generator: nothing is decided)."""
        if not self.block(self.function.body, None):
            if isinstance(self.function, LambdaExpr) or self.function.is_generator or self.function.is_coroutine:
                return []
            self.found.append((self.function, NONE))
        return self.found

    def fork(self, state: None) -> None:
        return None

    def join(self, state: None, ends: list[None]) -> None:
        pass

    def simple(self, node: Statement, state: None) -> bool:
        if isinstance(node, ReturnStmt):
            self.found.append((node, self.reader.value(node.expr) if node.expr is not None else NONE))
        return super().simple(node, state)


def of_expression(node: Expression) -> Structure:
    """The structure of an expression read alone (a literal, ``None``, a number)."""
    return StructureReader({}, {}).value(node)


def of_argument(api: CheckerPluginInterface, node: Expression, typed: Type | None = None) -> Structure:
    """An argument's structure: as written (a literal), else as the one value its name holds
    there reads, where the argument is its one mention (``init = {"t": x}`` above the call; a
    call read from a transform may come before its value is bound), its unknown parts taken
    from its type (``typed``, or the variable's) where every binding of it has that type
    (``bindings.holds``)."""
    written = of_expression(node)
    if written is None and isinstance(node, NameExpr):
        value = bindings.one_value(api, node, read_once=True)
        written = of_expression(value) if value is not None else None
    if typed is None and isinstance(node, NameExpr) and isinstance(node.node, Var):
        typed = node.node.type
    if typed is not None and not bindings.holds(api, node):
        typed = None  # another binding of the name may reach here: its structure is not known
    return refine(written, of_type(typed))


def assignments(block: Block) -> dict[str, list[Binding | None]]:
    """Every name ``block`` binds, each with every binding of it: the value of a plain
    assignment at its top level (``name = value``, ``a, b = value``), or None for a binding of
    another kind (in a nested block, a loop, ``with``, an augmented assignment, ``def``, a
    starred unpacking). Only a name bound once, by a plain assignment, is read through its
    value."""
    found: dict[str, list[Binding | None]] = {}

    def bind(target: Expression, value: Expression | None, path: tuple[int, ...] = ()) -> None:
        if isinstance(target, NameExpr):
            found.setdefault(target.name, []).append((value, path) if value is not None else None)
        elif isinstance(target, (TupleExpr, ListExpr)):
            starred = any(isinstance(item, StarExpr) for item in target.items)
            for position, item in enumerate(target.items):
                bind(item, None if starred else value, (*path, position))
        elif isinstance(target, StarExpr):
            bind(target.expr, None)

    for statement in block.body:
        if isinstance(statement, AssignmentStmt) and len(statement.lvalues) == 1:
            bind(statement.lvalues[0], statement.rvalue)
            continue
        # any other binding, at any depth: statements.assigned_names, and the defs among them
        inner = Block([statement])
        defined = {s.name for s in statements.statements_in(inner) if isinstance(s, (FuncDef, Decorator, OverloadedFuncDef, ClassDef))}
        for name in statements.assigned_names(inner) | defined:
            found.setdefault(name, []).append(None)
    return found


def positional_parameters(function: FuncItem) -> list[str]:
    return [name for name, kind in mypy_internals.named_parameters(function) if kind == ARG_POS]
