"""Where an updated array can go back: the statement that puts it there, valid where the old
statement stood.

A JAX update returns a new array, so the rewrite of ``x[i] = v`` assigns the new array to the
place the old one was read from: ``x = x.at[i].set(v)``. That is right only where mypy and
Python accept an ``Array`` there and the assignment reaches what the old statement changed,
which ``refusal`` asks of the place: a variable's declared type (a subclass of ``Array`` or a
TypeVar cannot hold one), ``Final`` names, names that an assignment would make local (a global
or an enclosing function's variable, read inside a function), ``self`` and loop variables
(rebinding them changes nothing outside), read-only attributes (properties, class variables,
frozen dataclass and NamedTuple fields), and containers (a tuple's items, a ``Mapping``'s
values, a list of a subclass). Where the place refuses, the container around it may be rebuilt
instead (``lift``): a NamedTuple with ``_replace``, a frozen standard dataclass with
``dataclasses.replace``, a tuple item by item; where nothing fits, the new array is kept under
a new name, and the note says which name then stands for which. A place that is not the same
object when written twice (through a call, a slice of a list) gets no rewrite at all.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    FUNC_NO_INFO,
    GDEF,
    LDEF,
    AssignmentStmt,
    Block,
    Context,
    Decorator,
    EllipsisExpr,
    Expression,
    ExpressionStmt,
    FloatExpr,
    ForStmt,
    FuncBase,
    FuncDef,
    FuncItem,
    GlobalDecl,
    IndexExpr,
    IntExpr,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    NonlocalDecl,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    StrExpr,
    TupleExpr,
    UnaryExpr,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.subtypes import find_member, is_subtype
from mypy.types import CallableType, Instance, Overloaded, TupleType, Type, TypedDictType, get_proper_type

from mypy_plugin.lib import checked_module, fixes, mypy_internals, statements
from mypy_plugin.lib.fixes import Fix
from mypy_plugin.lib.source import int_literal, operand, source

DATACLASSES: Final = "dataclasses"
TUPLE: Final = "builtins.tuple"
NEW_NAME_SUFFIX: Final = "_updated"
"""What a new name for an updated value ends with (``t_updated``)."""


class PutBack:
    """The statement that puts a new value in place of an old one, as source text.

    ``renamed`` is set when the value is kept under a new name: ``(new, old)``, the name that
    stands for the old expression from there on; ``reason`` says why the old place refused it.
    ``imports`` are the import statements it needs that the module lacks."""

    __slots__ = ("statement", "reason", "renamed", "imports")

    def __init__(
        self, statement: str, reason: str | None = None, renamed: tuple[str, str] | None = None, imports: tuple[str, ...] = ()
    ) -> None:
        self.statement, self.reason, self.renamed, self.imports = statement, reason, renamed, imports


def put_back(api: CheckerPluginInterface, place: Expression, value: str, value_type: Type, imports: tuple[str, ...] = ()) -> PutBack | None:
    """The statement that assigns ``value`` (source text of a value of ``value_type``, which
    needs ``imports``) to ``place``, or what works instead; None when the place cannot be
    printed."""
    text = source(place)
    if text is None or not evaluates_alike(place):
        return None
    reason = refusal(api, place, value_type)
    if reason is None:
        return PutBack(f"{text} = {value}", imports=imports)
    lifted = lift(api, place, value, value_type)
    if lifted is not None:
        container, rebuilt, container_type, needed = lifted
        outer = put_back(api, container, rebuilt, container_type, tuple(dict.fromkeys((*imports, *needed))))
        if outer is not None:
            return outer
    name = new_name(api, place)
    return PutBack(f"{name} = {value}", reason, (name, text), imports)


def quoted(put: PutBack) -> str:
    """The statement as a note quotes it, with the name that then stands for the old value and
    the imports it needs: ``"t_updated = ...", then use "t_updated" for "t"``."""
    text = f'"{put.statement}"'
    if put.renamed is not None:
        text += f', then use "{put.renamed[0]}" for "{put.renamed[1]}"'
    return text + checked_module.needs(put.imports)


def rewrite_note(lead: str, put: PutBack) -> str:
    """``<lead>: "<statement>"``, or where the old place refused the value, ``<lead>; <why>,
    so keep it under a new name: "<statement>", then use ...``."""
    if put.reason is not None:
        return f"{lead}; {put.reason}, so keep it under a new name: {quoted(put)}"
    return f"{lead}: {quoted(put)}"


def fix_of(api: CheckerPluginInterface, context: Context, put: PutBack) -> Fix | None:
    """The statement holding ``context`` replaced by ``put``'s, where the note's rewrite is the
    whole of it: one target, no new name (later reads would need it too), no import to add."""
    statement = checked_module.statement_at(api, context)
    if put.renamed is not None or put.imports or not isinstance(statement, (AssignmentStmt, OperatorAssignmentStmt, ExpressionStmt)):
        return None
    if isinstance(statement, AssignmentStmt) and len(statement.lvalues) != 1:
        return None
    if (statement.line, statement.column) > (context.line, context.column):
        return None  # another statement of the line (after a ";"): the one found by line is not this one
    return fixes.replace_statement(statement, put.statement, f'Write "{put.statement}"')


def evaluates_alike(place: Expression) -> bool:
    """Whether ``place``, written twice (``x = x.at[...]``), names the same object both times
    and the second assignment reaches the first one's object: names, attributes and items of
    such places, indexed by names, attributes and literals. A call may give another object; a
    slice of a list is a new list."""
    if isinstance(place, NameExpr):
        return True
    if isinstance(place, MemberExpr):
        return evaluates_alike(place.expr)
    if isinstance(place, IndexExpr):
        return evaluates_alike(place.base) and plain_index(place.index)
    return False


def plain_index(index: Expression) -> bool:
    """A name, an attribute, a literal, or a tuple or arithmetic of those (no call, no slice)."""
    if isinstance(index, (NameExpr, IntExpr, StrExpr, FloatExpr, EllipsisExpr)):
        return True
    if isinstance(index, MemberExpr):
        return plain_index(index.expr)
    if isinstance(index, TupleExpr):
        return all(plain_index(item) for item in index.items)
    if isinstance(index, UnaryExpr):
        return plain_index(index.expr)
    if isinstance(index, OpExpr):
        return plain_index(index.left) and plain_index(index.right)
    return False


def new_name(api: CheckerPluginInterface, place: Expression) -> str:
    """``t_updated`` for ``t``, ``w_updated`` for ``self.w`` or ``params["w"]``; ``updated`` for
    ``self`` and for an item without a name."""
    if isinstance(place, NameExpr):
        return "updated" if is_self(api, place) else place.name + NEW_NAME_SUFFIX
    if isinstance(place, MemberExpr):
        return place.name + NEW_NAME_SUFFIX
    if isinstance(place, IndexExpr) and isinstance(place.index, StrExpr) and place.index.value.isidentifier():
        return place.index.value + NEW_NAME_SUFFIX
    return NEW_NAME_SUFFIX.lstrip("_")


def refusal(api: CheckerPluginInterface, place: Expression, value_type: Type) -> str | None:
    """Why ``place = <value of value_type>`` would not type-check or would not update the place
    at run time; None when it does both."""
    if isinstance(place, NameExpr):
        return name_refusal(api, place, value_type)
    if isinstance(place, MemberExpr):
        return attribute_refusal(api, place, value_type)
    if isinstance(place, IndexExpr):
        return item_refusal(api, place, value_type)
    return "it is not a place to assign to"


def name_refusal(api: CheckerPluginInterface, place: NameExpr, value_type: Type) -> str | None:
    name, node = place.name, place.node
    if not isinstance(node, Var):
        return f'"{name}" is not a variable'
    if node.is_final:
        return f'"{name}" is final'
    function = mypy_internals.current_function(api)
    if function is not None:
        if is_self_of(function, node):
            return f'"{name}" is the object the method was called on, and rebinding it changes nothing outside'
        if loop_variable(api, place, node):
            return f'"{name}" is the variable of a for loop, and rebinding it leaves what it iterates over as it was'
        if place.kind == GDEF and not declares(function.body, GlobalDecl, name):
            return f'"{name}" is global, and assigned in this function it would be a new local name'
        if place.kind == LDEF and not defined_in(function, node) and not declares(function.body, NonlocalDecl, name):
            return f'"{name}" belongs to an enclosing function, and assigned here it would be a new local name'
    return declared_refusal(api, f'"{name}"', node.type, value_type)


def attribute_refusal(api: CheckerPluginInterface, place: MemberExpr, value_type: Type) -> str | None:
    what = f'"{source(place)}"'
    owner = class_instance(mypy_internals.checked_type(api, place.expr))
    if isinstance(place.expr, NameExpr) and isinstance(place.expr.node, MypyFile):  # module.name
        return declared_refusal(api, what, place.node.type if isinstance(place.node, Var) else None, value_type)
    if owner is None:
        return None
    found = owner.type.get(place.name)
    node = found.node if found is not None else None
    if isinstance(node, Var):
        if node.is_final:
            return f"{what} is final"
        if node.is_classvar:
            return f"{what} is a class variable"
        if node.is_property and not node.is_settable_property:
            return f"{what} is read-only"
    elif isinstance(node, Decorator):
        if not node.var.is_settable_property:
            return f"{what} is read-only"
    elif isinstance(node, OverloadedFuncDef):
        if not (node.is_property and isinstance(node.items[0], Decorator) and node.items[0].var.is_settable_property):
            return f"{what} is read-only"
    elif isinstance(node, FuncBase):
        return f"{what} is a method"
    return declared_refusal(api, what, find_member(place.name, owner, owner, is_lvalue=True), value_type)


def item_refusal(api: CheckerPluginInterface, place: IndexExpr, value_type: Type) -> str | None:
    what = f'"{source(place.base)}"'
    container = get_proper_type(mypy_internals.checked_type(api, place.base))
    if isinstance(container, TupleType) or (isinstance(container, Instance) and container.type.fullname == TUPLE):
        return f"{what} is a tuple"
    if isinstance(container, TypedDictType):
        key = place.index.value if isinstance(place.index, StrExpr) else None
        if key is None or key not in container.items:
            return None
        if key in mypy_internals.readonly_keys(container):
            return f'the "{key}" item of {what} is read-only'
        return declared_refusal(api, f'the "{key}" item of {what}', container.items[key], value_type)
    if not isinstance(container, Instance):
        return None
    setitem = get_proper_type(find_member("__setitem__", container, container, is_operator=True))
    if setitem is None:
        return f"{what} does not support item assignment"
    index_type = mypy_internals.checked_type(api, place.index)
    signatures = setitem.items if isinstance(setitem, Overloaded) else [setitem] if isinstance(setitem, CallableType) else []
    for signature in signatures:
        if (
            len(signature.arg_types) >= 2
            and is_subtype(index_type, signature.arg_types[0])
            and is_subtype(value_type, signature.arg_types[1])
        ):
            return None
    return f"{what} cannot hold {mypy_internals.format_type(value_type, api.options)} items"


def declared_refusal(api: CheckerPluginInterface, what: str, declared: Type | None, value_type: Type) -> str | None:
    if declared is None or is_subtype(value_type, declared):
        return None
    return (
        f"{what} is declared as {mypy_internals.format_type(declared, api.options)}, which the updated "
        f"{mypy_internals.format_type(value_type, api.options)} is not"
    )


def lift(
    api: CheckerPluginInterface, place: Expression, value: str, value_type: Type
) -> tuple[Expression, str, Type, tuple[str, ...]] | None:
    """The container around a place that refused, rebuilt around ``value``: ``(container, its
    new value as source, that value's type, imports it needs)``; None when no form is known
    that type-checks and runs for that container."""
    if isinstance(place, MemberExpr):
        owner_type = mypy_internals.checked_type(api, place.expr)
        owner = class_instance(owner_type)
        if owner is None:
            return None
        field = find_member(place.name, owner, owner)
        if field is None or not is_subtype(value_type, field):
            return None
        base = operand(place.expr)
        if base is None:
            return None
        if place.name in mypy_internals.namedtuple_fields(owner.type):
            return place.expr, f"{base}._replace({place.name}={value})", owner_type, ()
        if place.name in mypy_internals.replaceable_fields(owner.type):
            replace, imports = checked_module.reference(api, DATACLASSES, "replace")
            return place.expr, f"{replace}({base}, {place.name}={value})", owner_type, imports
        return None
    if isinstance(place, IndexExpr):
        container = get_proper_type(mypy_internals.checked_type(api, place.base))
        index, base = int_literal(place.index), operand(place.base)
        if not isinstance(container, TupleType) or index is None or base is None:
            return None
        size = len(container.items)
        if not -size <= index < size:
            return None
        index %= size
        fields = mypy_internals.namedtuple_fields(container.partial_fallback.type)
        if fields:  # a NamedTuple keeps its field types: the field must take the value
            if not is_subtype(value_type, container.items[index]):
                return None
            return place.base, f"{base}._replace({fields[index]}={value})", container, ()
        items = [value if j == index else f"{base}[{j}]" for j in range(size)]
        rebuilt = container.copy_modified(items=[value_type if j == index else t for j, t in enumerate(container.items)])
        return place.base, "(" + ", ".join(items) + ("," if size == 1 else "") + ")", rebuilt, ()
    return None


def class_instance(typ: Type) -> Instance | None:
    """The class instance a value of ``typ`` is: a NamedTuple's class for its tuple type."""
    proper = get_proper_type(typ)
    if isinstance(proper, TupleType):
        return proper.partial_fallback
    return proper if isinstance(proper, Instance) else None


def is_self_of(function: FuncItem, var: Var) -> bool:
    """Whether ``var`` is the first parameter of a method (``self``, ``cls``)."""
    if not isinstance(function, FuncDef) or function.info is FUNC_NO_INFO or function.is_static:
        return False
    parameters = mypy_internals.parameters(function) or []
    return bool(parameters) and parameters[0].variable is var


def loop_variable(api: CheckerPluginInterface, place: NameExpr, var: Var) -> bool:
    """Whether ``var`` is bound by a ``for`` loop around ``place`` (in the same function)."""
    for statement in checked_module.enclosing_statements(api, place):
        if isinstance(statement, ForStmt) and any(
            isinstance(bound, NameExpr) and bound.node is var for bound in names_bound(statement.index)
        ):
            return True
    return False


def names_bound(target: Expression) -> list[Expression]:
    """The names a ``for`` target binds: ``a``, or each of ``a, (b, c)``."""
    if isinstance(target, (TupleExpr, ListExpr)):
        return [name for item in target.items for name in names_bound(item)]
    return [target]


def is_self(api: CheckerPluginInterface, name: NameExpr) -> bool:
    function = mypy_internals.current_function(api)
    return function is not None and isinstance(name.node, Var) and is_self_of(function, name.node)


def defined_in(function: FuncItem, var: Var) -> bool:
    """Whether ``var`` is a parameter or local of ``function`` (defined within its lines; the
    variables of an enclosing function are defined outside them)."""
    return function.line <= var.line <= (function.end_line or function.line)


def declares(block: Block, kind: type[GlobalDecl] | type[NonlocalDecl], name: str) -> bool:
    """Whether ``block`` (a function's body, not its nested functions) declares ``name``
    ``global`` or ``nonlocal``."""
    return any(isinstance(statement, kind) and name in statement.names for statement in statements.statements_in(block))
