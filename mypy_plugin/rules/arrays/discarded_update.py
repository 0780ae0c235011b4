"""``jax-discarded-update`` (``docs/rules/jax-discarded-update.md``): how the rule finds it.

mypy reports no unused value of an ordinary call, so the rule reports a call whose value its
statement discards (``checked_module.value_discarded``), when the call is an update method of
``x.at[i]``, ``Array.sort``, or one of JAX's versions of NumPy's in-place functions
(``rules/arrays/inplace.py``) given ``inplace=False``. The note assigns the copy back where the
array was read from (``rules/arrays/places.py``).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import CallExpr, Expression, IndexExpr, MemberExpr
from mypy.plugin import CheckerPluginInterface, MethodContext
from mypy.types import CallableType, NoneType, Type, TypeType, get_proper_type

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import checked_module, errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.arguments import HookContext, given, known_values
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.lib.types import members
from mypy_plugin.rules.arrays import inplace, places
from mypy_plugin.rules.arrays.receivers import array_receiver

CODE: Final = errorcodes.DISCARDED_UPDATE

AT: Final = "at"
AT_UPDATE_METHODS: Final = ("set", "add", "subtract", "mul", "multiply", "divide", "power", "min", "max", "apply")
"""The methods of ``x.at[i]`` that return an updated copy (``get`` reads)."""
SORT_METHOD: Final = "sort"
SORT: Final = (f"{fullnames.ARRAY}.{SORT_METHOD}", f"{SORT_METHOD} of Array")
"""``Array.sort`` as mypy names it for a receiver of a class, and for one typed by a TypeVar
(after the callee: ``sort of Array``; the hook checks that the receiver is JAX's)."""

UPDATED_COPY: Final = "updated"
SORTED_COPY: Final = "sorted"
COPIES: Final = {UPDATED_COPY: ("an updated copy", "x = x.at[i].set(v)"), SORTED_COPY: ("a sorted copy", "x = x.sort()")}
"""Each kind of copy as the error names it, and the example of the general advice."""
DISCARDED: Final = 'Result of "{callee}" is discarded; JAX returns {copy} and leaves {target} unchanged'
ASSIGN: Final = "Assign the {kind} copy"
ASSIGN_IN_GENERAL: Final = 'Assign the {kind} copy and use it from here on, e.g. "{example}"'


def check_at_update(ctx: MethodContext) -> Type:
    """``x.at[i].set(v)`` as a statement: the place updated is ``x``."""
    call = ctx.context
    if isinstance(call, CallExpr) and checked_module.value_discarded(ctx.api, call):
        callee = call.callee
        helper = callee.expr if isinstance(callee, MemberExpr) else None
        at = helper.base if isinstance(helper, IndexExpr) else None
        array = at.expr if isinstance(at, MemberExpr) and at.name == AT else None
        report(ctx.api, call, array, UPDATED_COPY, ctx.default_return_type, fallback=f".at[].{method_of(callee)}")
    return ctx.default_return_type


def check_sort(ctx: MethodContext) -> Type:
    """``x.sort()`` as a statement: NumPy sorts ``x`` in place, JAX returns a sorted copy. A
    receiver that may also be another library's array (``jax.Array | np.ndarray``, ``Any``)
    is left alone: for that one the statement is right. So is the method called on the class:
    ``type(x).sort(x)`` discards a sorted copy, but ``jnp.ndarray.sort(x)`` raises
    ``NotImplementedError`` (``jax.Array`` is abstract), and mypy types both as ``type[Array]``."""
    call = ctx.context
    if not isinstance(call, CallExpr) or not isinstance(call.callee, MemberExpr):
        return ctx.default_return_type
    receiver = mypy_internals.checked_type(ctx.api, call.callee.expr)
    only_jax = all(isinstance(member, NoneType) or array_receiver(member, SORT_METHOD) is not None for member in members(receiver))
    holds = bindings.holds(ctx.api, call.callee.expr)  # not a NumPy array bound to the name elsewhere
    if only_jax and not is_class(receiver) and holds and checked_module.value_discarded(ctx.api, call):
        report(ctx.api, call, call.callee.expr, SORTED_COPY, ctx.default_return_type, fallback=SORT_METHOD)
    return ctx.default_return_type


def is_class(typ: Type) -> bool:
    """Whether a value of ``typ`` is a class (``jnp.ndarray``, ``type(x)``), not an instance."""
    proper = get_proper_type(typ)
    return isinstance(proper, TypeType) or (isinstance(proper, CallableType) and proper.is_type_obj())


def check_inplace_false(ctx: HookContext) -> Type:
    """``jnp.put(x, i, v, inplace=False)`` as a statement: the place updated is ``x``."""
    call = ctx.context
    if not isinstance(call, CallExpr) or not checked_module.value_discarded(ctx.api, call):
        return ctx.default_return_type
    if isinstance(call.callee, MemberExpr) and call.callee.name == AT and not inplace.ufunc_has_at(call):
        return ctx.default_return_type  # this ufunc has no "at" in this JAX: AttributeError
    passed = given(ctx, inplace.PARAMETER)
    if passed is None or passed.absent or any(known_values(typ) != frozenset({False}) for typ in passed.types):
        return ctx.default_return_type
    report(ctx.api, call, inplace.updated_array(ctx), UPDATED_COPY, ctx.default_return_type, fallback=method_of(call.callee))
    return ctx.default_return_type


def method_of(callee: Expression) -> str:
    return callee.name if isinstance(callee, MemberExpr) else source(callee) or "the call"


def report(api: CheckerPluginInterface, call: CallExpr, array: Expression | None, kind: str, value_type: Type, *, fallback: str) -> None:
    """The discarded copy, with the statement that assigns it back where ``array`` was read
    from (or the general advice where that cannot be printed). ``fallback`` names the callee
    where its source cannot be printed."""
    copy, example = COPIES[kind]
    target = source(array) if array is not None and places.evaluates_alike(array) else None
    value = source(call)
    put = places.put_back(api, array, value, value_type) if array is not None and value is not None else None
    note = places.rewrite_note(ASSIGN.format(kind=kind), put) if put is not None else ASSIGN_IN_GENERAL.format(kind=kind, example=example)
    message = DISCARDED.format(
        callee=source(call.callee) or fallback, copy=copy, target=f'"{target}"' if target is not None else "the array"
    )
    reporting.error_with_notes(api, call, CODE, message, [note], places.fix_of(api, call, put) if put is not None else None)


RULE: Final = Rule(
    CODE,
    method_hooks={
        **{f"{fullnames.INDEX_UPDATE_REF}.{name}": check_at_update for name in AT_UPDATE_METHODS},
        **{name: check_sort for name in SORT},
        **{name: check_inplace_false for name in inplace.UFUNC_AT},
    },
    function_hooks={name: check_inplace_false for name in inplace.FUNCTIONS},
)
