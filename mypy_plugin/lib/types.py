"""What values a static type admits, member by member, and the one answer to "is this a JAX
array" (and to "an instance of this class or a subclass"), on mypy's ``TypeInfo.has_base``."""

from __future__ import annotations

from typing import Final

from mypy.types import Instance, LiteralType, ProperType, TupleType, Type, TypeVarType, UnionType, get_proper_type

from mypy_plugin.lib import fullnames

PYTHON_SCALARS: Final = {"builtins.int": "an int", "builtins.float": "a float", "builtins.bool": "a bool", "builtins.complex": "a complex"}
"""Python's scalar classes, each with how a message names a value of it."""


def instance_of(typ: Type | None, *classes: str) -> bool:
    """Whether ``typ`` is an instance (or a literal) of one of ``classes``, by full name, or of
    a subclass of one."""
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, LiteralType):
        proper = proper.fallback
    return isinstance(proper, Instance) and any(proper.type.has_base(name) for name in classes)


def is_array(typ: Type | None) -> bool:
    """Whether ``typ`` is ``jax.Array`` or a subclass of it."""
    return instance_of(typ, fullnames.ARRAY)


def python_scalar(typ: Type) -> bool:
    """Whether every member of ``typ`` is a Python scalar (a setting such as ``training: bool``),
    none an array."""
    found = members(typ)
    return bool(found) and all(member_class(member) in PYTHON_SCALARS for member in found)


PYTREE_CONTAINERS: Final = frozenset({"builtins.list", "builtins.tuple", "builtins.dict", "typing.Sequence", "typing.Mapping"})
"""Generic containers that are pytrees: their items (a mapping's values, its last type argument)
are the leaves of the pytree they make, or pytrees again."""


def pytree_of_arrays(typ: Type | None, depth: int = 0) -> bool:
    """Whether every leaf of ``typ`` is a ``jax.Array``: a dict, list or tuple of arrays (or of
    such pytrees), a NamedTuple of them."""
    proper = get_proper_type(typ) if typ is not None else None
    if depth > 4 or proper is None:
        return False
    if isinstance(proper, TupleType):
        return bool(proper.items) and all(is_array(item) or pytree_of_arrays(item, depth + 1) for item in proper.items)
    return (
        isinstance(proper, Instance)
        and proper.type.fullname in PYTREE_CONTAINERS
        and bool(proper.args)
        and (is_array(proper.args[-1]) or pytree_of_arrays(proper.args[-1], depth + 1))
    )


def member_class(member: ProperType) -> str | None:
    """The full name of the class of an instance or a literal; None for anything else."""
    if isinstance(member, LiteralType):
        member = member.fallback
    return member.type.fullname if isinstance(member, Instance) else None


def members(typ: Type) -> list[ProperType]:
    """The types a value of ``typ`` can have: unions flattened, aliases and TypeVars resolved
    (a TypeVar's values, else its bound). Each alias or TypeVar is opened once, so a recursive
    alias ends."""
    found: list[ProperType] = []
    opened: set[int] = set()
    pending = [typ]
    while pending:
        current = pending.pop()
        if id(current) in opened:
            continue
        opened.add(id(current))
        proper = get_proper_type(current)
        if isinstance(proper, UnionType):
            pending.extend(reversed(proper.items))
        elif isinstance(proper, TypeVarType):
            pending.extend(reversed(proper.values) if proper.values else [proper.upper_bound])
        else:
            found.append(proper)
    return found
