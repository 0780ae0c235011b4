"""What a call passes for one parameter: the one reader every rule asks.

mypy gives function and method hooks the call's arguments grouped by the parameter each fills
(``ctx.args[i]`` for ``ctx.callee_arg_names[i]``). A ``*args`` or ``**kwargs`` argument is
listed under every parameter it may fill: what it holds is unknown, so the parameter is
undecided, and the rules stay silent. A call whose callee is typed with other parameters than
the function it runs (a jitted function's ``__call__(*args, **kwargs)``) is read against that
function's signature with ``against``.
"""

from __future__ import annotations

from collections.abc import Sequence

from mypy.nodes import ARG_NAMED, ARG_OPT, ARG_POS, ARG_STAR, ARG_STAR2, CallExpr, Expression
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import AnyType, CallableType, Instance, LiteralType, NoneType, Type, UninhabitedType

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


def written_for(call: CallExpr, position: int, keyword: str) -> list[int]:
    """The indexes of the arguments ``call`` writes for a parameter: by position (``position``,
    -1 for one that is taken by name only) or by name (``keyword``). Read from the call as
    written, where no hook context maps them (a function given to ``jax.lax``, a call walked in
    a transformed function's body)."""
    return [index for index, name in enumerate(call.arg_names) if name == keyword or (name is None and index == position)]


def passed(ctx: HookContext, parameter: str) -> list[tuple[Expression, Type]]:
    """The arguments the call passes for ``parameter``, with their types; none when it passes
    none or the parameter is undecided (see ``given``)."""
    found = given(ctx, parameter)
    return found.pairs() if found is not None else []


def argument_types(ctx: HookContext) -> dict[int, Type]:
    """The type mypy gave each argument the call passes to a parameter, by the argument's
    ``id`` (none for an argument past the function's parameters)."""
    return {id(arg): typ for args, arg_types in zip(ctx.args, ctx.arg_types) for arg, typ in zip(args, arg_types)}


def against(ctx: HookContext, signature: CallableType) -> list[tuple[str, Expression, Type]]:
    """The arguments of the call, each with the parameter of ``signature`` it is given to, in
    the order written: positional ones in turn (none after a ``*args`` argument, whose length
    is unknown), keyword ones by name; ``**kwargs`` arguments and what goes to ``*args`` are
    left out. Read from the call itself, so the same whatever signature mypy checked it with."""
    call = ctx.context
    if not isinstance(call, CallExpr):
        return []
    types = argument_types(ctx)
    positional = [name for name, kind in zip(signature.arg_names, signature.arg_kinds) if kind in (ARG_POS, ARG_OPT)]
    found = []
    for arg, name in zip(call.args, parameters_written(call, positional)):
        typ = types.get(id(arg))
        if name is not None and name in signature.arg_names and typ is not None:
            found.append((name, arg, typ))
    return found


def parameters_written(call: CallExpr, positional: Sequence[str | None]) -> list[str | None]:
    """The parameter each argument of ``call`` is written for, in order: positional ones in
    turn (``positional``, the callee's positional parameters), keyword ones by name; None for
    one past the positional parameters, a ``*args`` or ``**kwargs`` argument, and every
    positional one after ``*args`` (whose length is unknown)."""
    found: list[str | None] = []
    index: int | None = 0
    for kind, name in zip(call.arg_kinds, call.arg_names):
        if kind == ARG_POS and index is not None:
            found.append(positional[index] if index < len(positional) else None)
            index += 1
        elif kind == ARG_NAMED:
            found.append(name)
        else:
            index = None if kind == ARG_STAR else index
            found.append(None)
    return found


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
