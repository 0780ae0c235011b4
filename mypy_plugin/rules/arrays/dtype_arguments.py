"""``jax-dtype-argument`` (``docs/rules/``): how the rule finds a number where JAX reads a dtype.

PyTorch spells a shape as separate numbers (``torch.zeros(3, 4)``, ``torch.randn(3, 4)``,
``x.view(-1)``) and NumPy's samplers take their bounds before the size; JAX's functions take one
shape and then a dtype, so the second number lands on ``dtype`` and JAX raises ``TypeError``
("Cannot interpret '4' as a data type") on every release (measured on JAX 0.4.31, 0.7.2 and
0.10.2). ``SHAPE_PARAMETERS`` lists the functions read.

An argument is a number by its type, where every member of it is a Python ``int``, ``float``,
``bool`` or ``complex`` (literals included) and the variables read hold that type
(``bindings.holds``); anything else (a dtype, ``Any``, a union with a class) is left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from mypy.nodes import ARG_OPT, ARG_POS, ARG_STAR, CallExpr, Expression, MemberExpr
from mypy.types import CallableType, Type, get_proper_type

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.arguments import HookContext, argument_types, passed
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import operand, source
from mypy_plugin.lib.types import PYTHON_SCALARS, member_class, members
from mypy_plugin.rules.arrays.float_shapes import RANDOM_SAMPLERS

CODE: Final = errorcodes.DTYPE_ARGUMENT

NOT_A_DTYPE: Final = '"{callee}" takes {kind} "{value}" as its dtype; JAX raises TypeError'
ONE_TUPLE: Final = 'Pass the shape as one tuple: "{rewritten}"'
BOUNDS_BY_NAME: Final = 'The dtype is argument {position} of "{callee}": pass the bounds by name ("{rewritten}")'
A_DTYPE: Final = 'Pass a dtype (a JAX or NumPy dtype, or its name), or leave "dtype" out'
RESHAPE: Final = '"view" reads a dtype to reinterpret the array\'s bytes as; to reshape it, "{rewritten}"'
RESHAPE_TO_A_SHAPE: Final = (
    '"view" reads a dtype to reinterpret the array\'s bytes as; to reshape the array, use "reshape" with its new shape'
)

BOUNDS: Final = ("minval", "maxval")
"""The parameters after the dtype of ``jax.random.uniform`` that NumPy's order fills."""

SHAPE_PARAMETERS: Final[Mapping[str, str | None]] = {
    **{fullnames.JNP + name: "shape" for name in ("zeros", "ones", "empty")},
    **{fullnames.JNP + name: None for name in ("full", "zeros_like", "ones_like", "empty_like", "full_like", "identity", "eye", "tri")},
    **{fullnames.JNP + name: None for name in ("arange", "array", "asarray")},
    **{module + name: "shape" for module in fullnames.RANDOM_MODULES for name in RANDOM_SAMPLERS},
    fullnames.ARRAY + ".astype": None,
    fullnames.ARRAY + ".view": None,
}
"""The functions (and ``jax.Array`` methods) whose dtype is read, each with its shape's
parameter, where separate sizes may have run on to the dtype (``ONE_TUPLE`` asks that the dtype
come right after it); None for the others. A function without a dtype is never reported."""


def check_dtype(fullname: str) -> Callable[[HookContext], Type]:
    """The hook for one function: a number passed as its dtype."""

    def hook(ctx: HookContext) -> Type:
        call = ctx.context
        if not isinstance(call, CallExpr):
            return ctx.default_return_type
        for arg, typ in passed(ctx, "dtype"):
            kind = python_number(typ)
            if kind is None or not bindings.holds(ctx.api, arg):
                continue
            signature = signature_of(ctx, call)  # read only where a number is given: most calls pass a dtype or none
            if raises_for_the_dtype(call, fullname, signature):
                report_number(ctx, call, fullname, arg, kind, signature)
            break
        return ctx.default_return_type

    return hook


def python_number(typ: Type) -> str | None:
    """``an int``, ``a float``, ...: what every member of ``typ`` is, where each is a Python
    number; None otherwise."""
    found = [PYTHON_SCALARS.get(member_class(member) or "") for member in members(typ)]
    if not found or None in found:
        return None
    return " or ".join(dict.fromkeys(kind for kind in found if kind is not None))


def raises_for_the_dtype(call: CallExpr, fullname: str, signature: CallableType | None) -> bool:
    """Whether JAX raises for the dtype first: not where the call passes more arguments by
    position than the function takes ("takes from 1 to 2 positional arguments"), nor for
    ``x.view(-1, 3)``, whose second argument raises ``NotImplementedError`` first."""
    if fullname.endswith(".view"):
        return len(call.args) == 1
    if signature is None or ARG_STAR in signature.arg_kinds:
        return signature is not None
    taken = sum(kind in (ARG_POS, ARG_OPT) for kind in signature.arg_kinds)
    return sum(kind == ARG_POS for kind in call.arg_kinds) <= taken


def signature_of(ctx: HookContext, call: CallExpr) -> CallableType | None:
    """The signature mypy gave the callee, where it is one callable."""
    signature = get_proper_type(mypy_internals.type_map_type(ctx.api, call.callee))
    return signature if isinstance(signature, CallableType) else None


def report_number(ctx: HookContext, call: CallExpr, fullname: str, arg: Expression, kind: str, signature: CallableType | None) -> None:
    """A number given as the dtype, with the call written the JAX way where it can be (from the
    arguments as written, against the callee's ``signature``)."""
    callee = source(call.callee) or fullname.rpartition(".")[2]
    written = written_by_position(call)
    if fullname.endswith(".view"):
        note = view_note(call, arg)
    elif signature is None or written is None:
        note = A_DTYPE
    else:
        rewritten = sizes_gathered(ctx, call, fullname, arg, callee, signature, written)
        note = rewritten or bounds_by_name(ctx, call, arg, callee, signature, written) or A_DTYPE
    reporting.error_with_notes(ctx.api, arg, CODE, NOT_A_DTYPE.format(callee=callee, kind=kind, value=source(arg) or "..."), [note])


def view_note(call: CallExpr, arg: Expression) -> str:
    """PyTorch's ``x.view(-1)`` is JAX's ``x.reshape(-1)``; another size needs the shape."""
    receiver = operand(call.callee.expr) if isinstance(call.callee, MemberExpr) else None
    if receiver is not None and source(arg) == "-1":
        return RESHAPE.format(rewritten=f"{receiver}.reshape(-1)")
    return RESHAPE_TO_A_SHAPE


def written_by_position(call: CallExpr) -> list[str] | None:
    """The call's arguments as written, where each is passed by position and can be printed."""
    texts = [source(each) for each in call.args]
    if any(kind != ARG_POS for kind in call.arg_kinds):
        return None
    written = [text for text in texts if text is not None]
    return written if len(written) == len(call.args) else None


def sizes_gathered(
    ctx: HookContext, call: CallExpr, fullname: str, arg: Expression, callee: str, signature: CallableType, written: list[str]
) -> str | None:
    """``jnp.zeros((3, 4))`` for ``jnp.zeros(3, 4)``: where the dtype comes right after the shape
    and is the last argument, and every argument from the shape on is an ``int``."""
    shape_parameter = SHAPE_PARAMETERS[fullname]
    if shape_parameter is None or arg is not call.args[-1]:
        return None
    names = signature.arg_names
    if shape_parameter not in names or "dtype" not in names or names.index("dtype") != names.index(shape_parameter) + 1:
        return None
    shapes = [shape for shape, _ in passed(ctx, shape_parameter)]
    if len(shapes) != 1 or shapes[0] not in call.args:
        return None
    start = call.args.index(shapes[0])
    typed = argument_types(ctx)
    if not all(id(size) in typed and python_number(typed[id(size)]) == "an int" for size in call.args[start:]):
        return None
    gathered = f"({', '.join(written[start:])})"
    return ONE_TUPLE.format(rewritten=f"{callee}({', '.join([*written[:start], gathered])})")


def bounds_by_name(
    ctx: HookContext, call: CallExpr, arg: Expression, callee: str, signature: CallableType, written: list[str]
) -> str | None:
    """``uniform(key, (3,), minval=0, maxval=1)`` for NumPy's order ``uniform(key, (3,), 0, 1)``:
    where the parameters after the dtype are the bounds, and the shape is not a number (a
    PyTorch port's sizes, ``uniform(key, b, s, d)``, are not bounds)."""
    if "dtype" not in signature.arg_names:
        return None
    shapes = [typ for _, typ in passed(ctx, "shape")]
    if len(shapes) != 1 or python_number(shapes[0]) is not None:
        return None
    after = signature.arg_names[signature.arg_names.index("dtype") + 1 :]
    position = call.args.index(arg)
    meant = written[position:]
    if tuple(after[: len(meant)]) != BOUNDS[: len(meant)]:
        return None
    by_name = [f"{name}={text}" for name, text in zip(BOUNDS, meant)]
    return BOUNDS_BY_NAME.format(position=position + 1, callee=callee, rewritten=f"{callee}({', '.join([*written[:position], *by_name])})")


METHODS: Final = frozenset({fullnames.ARRAY + ".astype", fullnames.ARRAY + ".view"})
"""The full names that are methods, hooked as methods of that one class."""

RULE: Final = Rule(
    CODE,
    function_hooks={name: check_dtype(name) for name in sorted(set(SHAPE_PARAMETERS) - METHODS)},
    method_hooks={name: check_dtype(name) for name in sorted(METHODS)},
)
