"""What values a static type admits, member by member."""

from __future__ import annotations

from mypy.types import ProperType, Type, TypeVarType, UnionType, get_proper_type


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
