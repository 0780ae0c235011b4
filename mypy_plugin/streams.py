"""Can a ``stream=`` argument be something other than ``None`` at run time?

JAX raises for every stream but ``None``, so the question is asked of each value the static
type admits: a union is decided member by member (``Any | None`` can be a stream, although
mypy counts it a subtype of ``None`` because ``Any`` is a subtype of everything), a TypeVar
by its bound or its values, an alias by what it stands for.
"""

from __future__ import annotations

from mypy.subtypes import is_subtype
from mypy.types import (
    AnyType,
    NoneType,
    ProperType,
    Type,
    TypeOfAny,
    TypeVarType,
    UninhabitedType,
    UnionType,
    get_proper_type,
)


def members(arg_type: Type) -> list[ProperType]:
    """The types a value of ``arg_type`` can have: unions flattened, aliases and TypeVars
    resolved (a TypeVar's values, else its bound). Each alias or TypeVar is opened once, so a
    recursive alias ends."""
    found: list[ProperType] = []
    opened: set[int] = set()
    pending = [arg_type]
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


def can_be_a_stream(arg_type: Type) -> bool:
    """Whether a value of ``arg_type`` may be a non-None stream at run time.

    ``Any`` counts (an untyped library's stream), except the ``Any`` that stands for an
    expression mypy has already reported; ``NoReturn`` does not (the call is never reached).
    """
    for member in members(arg_type):
        if isinstance(member, AnyType):
            if member.type_of_any != TypeOfAny.from_error:
                return True
        elif not isinstance(member, (NoneType, UninhabitedType)) and not is_subtype(member, NoneType()):
            return True
    return False


def may_be_none(arg_type: Type) -> bool:
    """Whether ``None`` is one of the values the type spells out (``Optional[int]``)."""
    return any(isinstance(member, NoneType) for member in members(arg_type))
