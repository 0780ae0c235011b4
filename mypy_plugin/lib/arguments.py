"""What a call passes for one parameter, read from mypy's mapping of arguments to parameters.

mypy gives function and method hooks the call's arguments grouped by the parameter each fills
(``ctx.args[i]`` for ``ctx.callee_arg_names[i]``). A ``*args`` or ``**kwargs`` argument is
listed under every parameter it may fill: what it holds is unknown, so the parameter is
undecided, and the rules stay silent.
"""

from __future__ import annotations

from mypy.nodes import ARG_STAR, ARG_STAR2, CallExpr, Expression
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import AnyType, Instance, LiteralType, NoneType, Type, UninhabitedType

from mypy_plugin.lib import fullnames
from mypy_plugin.lib.types import members

HookContext = FunctionContext | MethodContext


class Given:
    """The arguments passed for one parameter (none when it is left to its default)."""

    __slots__ = ("args", "types")

    def __init__(self, args: list[Expression], types: list[Type]) -> None:
        self.args = args
        self.types = types

    @property
    def absent(self) -> bool:
        return not self.args

    def pairs(self) -> list[tuple[Expression, Type]]:
        return list(zip(self.args, self.types))


def given(ctx: HookContext, parameter: str) -> Given | None:
    """What the call passes for ``parameter``; None when the callee has no such parameter or a
    ``*args``/``**kwargs`` argument may fill it."""
    if parameter not in ctx.callee_arg_names or not isinstance(ctx.context, CallExpr):
        return None
    index = ctx.callee_arg_names.index(parameter)
    if any(kind in (ARG_STAR, ARG_STAR2) for kind in ctx.arg_kinds[index]):
        return None
    return Given(list(ctx.args[index]), list(ctx.arg_types[index]))


def known_values(typ: Type) -> frozenset[object] | None:
    """The values a type admits when each is spelled out: ``Literal["F"]``, the literal type
    mypy keeps for ``"F"`` or ``True`` as written, ``None``; None when any member is wider (an
    enum member too: mypy's literal holds its name, not its value)."""
    values: set[object] = set()
    for member in members(typ):
        literal = member.last_known_value if isinstance(member, Instance) else member
        if isinstance(literal, LiteralType) and not literal.is_enum_literal():
            values.add(literal.value)
        elif isinstance(member, NoneType):
            values.add(None)
        else:
            return None
    return frozenset(values)


def never_none(typ: Type) -> bool:
    """Whether no value of ``typ`` is None: ``Any`` and ``object`` may be, so they are not (nor
    is ``NoReturn``, the type of an argument never computed)."""
    for member in members(typ):
        if isinstance(member, (AnyType, NoneType, UninhabitedType)):
            return False
        if isinstance(member, Instance) and member.type.fullname == fullnames.OBJECT:
            return False
    return True
