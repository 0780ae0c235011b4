"""``jax-dtype-argument`` (``docs/rules/``): how the rule finds a number where JAX reads a dtype.

PyTorch spells a shape as separate numbers (``torch.zeros(3, 4)``, ``torch.randn(3, 4)``) and
NumPy's samplers take their bounds after the shape (``np.random.uniform(0, 1, size)``); JAX's
functions take one shape and then a dtype, so the second number lands on ``dtype`` and JAX
raises ``TypeError`` ("Cannot interpret '4' as a data type") on every release (measured on JAX
0.4.31, 0.7.2 and 0.10.2). ``DTYPES`` lists, per function, where its dtype is.

An argument is a number by its type, where every member of it is a Python ``int``, ``float``,
``bool`` or ``complex`` (literals included) and the variables read hold that type
(``bindings.holds``); anything else (a dtype, ``Any``, a union with a class) is left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from mypy.nodes import ARG_OPT, ARG_POS, ARG_STAR, CallExpr, Expression, MemberExpr
from mypy.plugin import CheckerPluginInterface
from mypy.types import CallableType, Type, get_proper_type

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.arguments import HookContext, passed
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.lib.types import PYTHON_SCALARS, member_class, members
from mypy_plugin.rules.arrays.float_shapes import RANDOM_SAMPLERS

CODE: Final = errorcodes.DTYPE_ARGUMENT

NOT_A_DTYPE: Final = '"{callee}" takes {kind} "{value}" as its dtype; JAX raises TypeError'
ONE_TUPLE: Final = 'Pass the shape as one tuple: "{rewritten}"'
BY_NAME: Final = 'The dtype is argument {position} of "{callee}": pass the values after the shape by name ("{rewritten}")'
A_DTYPE: Final = 'Pass a dtype of the kind the function makes ("jnp.float32", "jnp.int32"), or leave "dtype" out'
RESHAPE: Final = '"view" reads a dtype to reinterpret the array\'s bytes as; to reshape it, "{rewritten}"'

DTYPES: Final[Mapping[str, str | None]] = {
    **{fullnames.JNP + name: "shape" for name in ("zeros", "ones", "empty")},
    **{fullnames.JNP + name: None for name in ("full", "zeros_like", "ones_like", "empty_like", "full_like", "identity", "eye", "tri")},
    **{fullnames.JNP + name: None for name in ("arange", "array", "asarray")},
    **{module + name: "shape" for module in fullnames.RANDOM_MODULES for name in RANDOM_SAMPLERS},
    fullnames.ARRAY + ".astype": None,
    fullnames.ARRAY + ".view": None,
}
"""By function (or ``jax.Array`` method): the parameter its shape is passed to, where a number
given as its dtype may be a size of a shape written apart (``note_for`` asks that the dtype come
right after it), None otherwise. A function without a dtype is never reported."""


def check_dtype(fullname: str) -> Callable[[HookContext], Type]:
    """The hook for one function: a number passed as its dtype."""
    shape_parameter = DTYPES[fullname]

    def hook(ctx: HookContext) -> Type:
        call = ctx.context
        if not isinstance(call, CallExpr):
            return ctx.default_return_type
        for arg, typ in passed(ctx, "dtype"):
            kind = number_kind(typ)
            # past the function's parameters, JAX raises for the count first ("takes from 1 to 2 positional arguments")
            if kind is not None and bindings.holds(ctx.api, arg) and not more_than_it_takes(ctx, call):
                report_number(ctx.api, call, fullname, shape_parameter, arg, kind, ctx)
                break
        return ctx.default_return_type

    return hook


def more_than_it_takes(ctx: HookContext, call: CallExpr) -> bool:
    """Whether the call passes more arguments by position than the function takes."""
    signature = get_proper_type(mypy_internals.type_map_type(ctx.api, call.callee))
    if not isinstance(signature, CallableType) or ARG_STAR in signature.arg_kinds:
        return False
    taken = sum(kind in (ARG_POS, ARG_OPT) for kind in signature.arg_kinds)
    return sum(kind == ARG_POS for kind in call.arg_kinds) > taken


def number_kind(typ: Type) -> str | None:
    """``an int``, ``a float``, ...: what every member of ``typ`` is, where each is a Python
    number; None otherwise."""
    found = [PYTHON_SCALARS.get(member_class(member) or "") for member in members(typ)]
    if not found or None in found:
        return None
    return " or ".join(dict.fromkeys(kind for kind in found if kind is not None))


def report_number(
    api: CheckerPluginInterface, call: CallExpr, fullname: str, shape_parameter: str | None, arg: Expression, kind: str, ctx: HookContext
) -> None:
    """A number given as the dtype, with the call written the JAX way where it can be: the
    separate sizes gathered into one shape, the values after the shape passed by name, or
    ``reshape`` for PyTorch's ``view``."""
    callee = source(call.callee) or fullname.rpartition(".")[2]
    notes = [note_for(call, fullname, shape_parameter, arg, callee, ctx) or A_DTYPE]
    reporting.error_with_notes(api, arg, CODE, NOT_A_DTYPE.format(callee=callee, kind=kind, value=source(arg) or "..."), notes)


def note_for(call: CallExpr, fullname: str, shape_parameter: str | None, arg: Expression, callee: str, ctx: HookContext) -> str | None:
    """The call rewritten where every argument is passed by position and can be printed: the
    sizes from the shape's position on gathered into one tuple where each is an int and the
    dtype, right after the shape, is the last (``jnp.zeros((3, 4))``), else, for a sampler, the values from the dtype's position on passed
    by name to the parameters that follow it (``uniform(key, (3,), minval=0, maxval=1)``);
    ``reshape`` for ``view``. None otherwise."""
    texts = [source(each) for each in call.args]
    if any(kind != ARG_POS for kind in call.arg_kinds) or arg not in call.args:
        return None
    written = [str(text) for text in texts if text is not None]
    if len(written) != len(call.args):
        return None
    position = call.args.index(arg)
    if fullname.endswith(".view"):
        receiver = source(call.callee.expr) if isinstance(call.callee, MemberExpr) else None
        return RESHAPE.format(rewritten=f"{receiver}.reshape({', '.join(written)})") if receiver else None
    signature = get_proper_type(mypy_internals.type_map_type(ctx.api, call.callee))
    if shape_parameter is None or not isinstance(signature, CallableType) or "dtype" not in signature.arg_names:
        return None
    names = signature.arg_names
    right_after = shape_parameter in names and names.index("dtype") == names.index(shape_parameter) + 1
    shapes = [shape for shape, _ in passed(ctx, shape_parameter)] if right_after and position == len(call.args) - 1 else []
    if len(shapes) == 1 and shapes[0] in call.args:
        start = call.args.index(shapes[0])
        sizes = call.args[start:]
        types = types_of(ctx, sizes)
        if len(types) == len(sizes) and all(number_kind(typ) == "an int" for typ in types):
            gathered = f"({', '.join(written[start:])}{',' if len(sizes) == 1 else ''})"
            return ONE_TUPLE.format(rewritten=f"{callee}({', '.join([*written[:start], gathered])})")
    formal = list(zip(signature.arg_names, signature.arg_kinds))
    after = [name for name, kind in formal[signature.arg_names.index("dtype") + 1 :] if name and kind in (ARG_POS, ARG_OPT)]
    meant = written[position:]
    if not after or len(after) < len(meant):
        return None
    by_name = [f"{name}={text}" for name, text in zip(after, meant)]
    return BY_NAME.format(position=position + 1, callee=callee, rewritten=f"{callee}({', '.join([*written[:position], *by_name])})")


def types_of(ctx: HookContext, args: list[Expression]) -> list[Type]:
    """The types mypy gave ``args``, in order (fewer where it gave some none: an argument past
    the function's parameters)."""
    typed = {id(arg): typ for group, types in zip(ctx.args, ctx.arg_types) for arg, typ in zip(group, types)}
    return [typed[id(arg)] for arg in args if id(arg) in typed]


METHODS: Final = frozenset({fullnames.ARRAY + ".astype", fullnames.ARRAY + ".view"})
"""The full names that are methods, hooked as methods of that one class."""

RULE: Final = Rule(
    CODE,
    function_hooks={name: check_dtype(name) for name in sorted(set(DTYPES) - METHODS)},
    method_hooks={name: check_dtype(name) for name in sorted(METHODS)},
)
