"""``jax-unsupported-argument``, ``jax-inplace-default`` and ``jax-unsupported-function``
(``docs/rules/``): how the rule finds them.

Three codes, so that a user who silences one kind keeps the others. One table (``REJECTED``)
lists, per parameter, the JAX functions and ``Array`` methods that reject an argument there,
from which release (``lib/release.py``: a release that still accepts a deprecated spelling,
with a warning, gets no error), what they raise and the help; ``INPLACE_FUNCTIONS`` and
``UNSUPPORTED_FUNCTIONS`` the other two. Only what the call spells out is read
(``lib/arguments.py``): a value of a wider type, ``Any`` or one given through
``*args``/``**kwargs`` is undecided, and the rules stay silent. NumPy's own functions have other
full names and are never hooked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from mypy.nodes import ARG_POS, CallExpr, Expression
from mypy.plugin import CheckerPluginInterface
from mypy.types import Type

from mypy_plugin.lib import checked_module, errorcodes, fixes, fullnames, release, reporting
from mypy_plugin.lib.arguments import HookContext, given, known_values, never_none, passed
from mypy_plugin.lib.fixes import Fix
from mypy_plugin.lib.release import Release
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import arguments_source, source
from mypy_plugin.rules.arrays import inplace, places

ARGUMENT_CODE: Final = errorcodes.UNSUPPORTED_ARGUMENT
INPLACE_CODE: Final = errorcodes.INPLACE_DEFAULT
FUNCTION_CODE: Final = errorcodes.UNSUPPORTED_FUNCTION

ARRAY_METHOD: Final = fullnames.ARRAY + "."

NO_LONGER_ACCEPTED: Final = '"{callee}" no longer accepts {parameters} (since JAX {release}); JAX raises {exception}'
UNSUPPORTED: Final = '"{callee}" does not support {argument}; JAX raises {exception}'
NOT_IN_PLACE: Final = '"{callee}" cannot modify a JAX array in place; JAX raises {exception}'
NEVER_RUNS: Final = '"{callee}" is not supported by JAX; JAX raises {exception}'
NOT_A_CONSTRUCTOR: Final = '"{callee}" cannot be called to make an array; JAX raises {exception}'

USE_MIN_MAX: Final = 'Use "min=" and "max=" (NumPy 2 names), or pass the bounds by position after the array'
PASS_THE_ARRAY: Final = "Pass the array by position, before the bounds"
USE_METHOD: Final = 'Use "method=" instead: it takes the same values ("linear", "lower", "higher", "midpoint", "nearest")'
USE_STABLE: Final = 'Drop "kind=": JAX sorts stably by default ("stable=True"); "stable=False" allows an unstable sort'
DROP_ORDER: Final = 'Drop "order=": a JAX array has no memory layout to choose'
ORDER_C_OR_F: Final = 'Use order="C" (the default) or order="F"'
DROP_EDGE_ORDER: Final = 'Drop "edge_order=": JAX computes what NumPy\'s edge_order=1 does (one-sided first differences at the edges)'
NO_RAISE_MODE: Final = (
    'Compiled code cannot raise on an index out of bounds: use mode="fill" (out-of-bounds reads give '
    'fill_value) or mode="clip", and check indices beforehand where they may be wrong'
)
PUT_MODES: Final = 'Use mode="clip" or mode="wrap"; compiled code cannot raise on an index out of bounds'
DROP_OVERWRITE: Final = 'Drop "overwrite_input=True": JAX never overwrites its input'
DROP_COPY: Final = 'Drop "copy=False": JAX arrays are never views of each other; "sparse=True" keeps the grids small'
GATHER_MODES: Final = 'Use mode="clip" or mode="fill" (or "promise_in_bounds"); compiled code cannot raise on an index out of bounds'
ONLY_EXTRAPOLATE: Final = 'The one string JAX takes there is "extrapolate"; otherwise pass a number or None'
DROP_WRAP: Final = 'Drop "wrap=True": for a tall matrix, fill the diagonal of each square block yourself'
PASS_INPLACE_FALSE: Final = 'Pass "inplace=False" and use the array it returns'
PASS_INPLACE_FALSE_AS: Final = 'Pass "inplace=False" and use the array it returns: "{call}"'
OR_USE_AT: Final = 'Or write the update with ".at[]"'
READ_WITH_NUMPY: Final = 'Read with NumPy and convert: "jnp.asarray(np.{function}(...))"'
MAKE_ARRAYS: Final = (
    'Make arrays with "jnp.zeros(shape)", "jnp.empty(shape)" or "jnp.asarray(data)"; "jnp.ndarray" is '
    '"jax.Array", for annotations and isinstance'
)

AT_METHODS: Final = {"add": "add", "subtract": "subtract", "multiply": "multiply", "minimum": "min", "maximum": "max"}
"""The ufuncs whose ``ufunc.at`` has an ``.at[]`` method of the same effect."""


class Unsupported:
    """One parameter of some of JAX's functions, the arguments JAX rejects there, and the
    help. ``rejects`` decides from the argument's type; ``removed`` says whether JAX once took
    the parameter (the error then names the release that removed it)."""

    __slots__ = ("parameter", "rejects", "since", "until", "exception", "advice", "removed", "fix")

    def __init__(
        self,
        parameter: str,
        rejects: Callable[[Type], bool],
        since: Release,
        exception: str,
        advice: tuple[str, ...],
        *,
        until: Release | None = None,
        removed: bool = False,
        fix: Callable[[CallExpr, str, Type], Fix | None] | None = None,
    ) -> None:
        self.parameter = parameter
        self.rejects = rejects
        self.since = since
        self.until = until
        """The first release that accepts the argument again, if one does."""
        self.exception = exception
        self.advice = advice
        self.removed = removed
        self.fix = fix
        """The advice as an edit, where one keeps the meaning (given the call, the keyword and
        the argument's type); None where the fix is the user's choice."""

    @property
    def applies(self) -> bool:
        """Whether the stubs' release rejects the argument."""
        return release.at_least(self.since) and (self.until is None or not release.at_least(self.until))


def any_argument(typ: Type) -> bool:
    """Any argument at all (a keyword JAX's function no longer has)."""
    return True


def one_of(*values: object) -> Callable[[Type], bool]:
    """An argument spelled out as one of ``values``."""

    def rejects(typ: Type) -> bool:
        known = known_values(typ)
        return known is not None and bool(known) and all(value in values for value in known)

    return rejects


def string_but(*values: str) -> Callable[[Type], bool]:
    """An argument spelled out as strings other than ``values`` (other kinds are left alone)."""

    def rejects(typ: Type) -> bool:
        known = known_values(typ)
        return known is not None and bool(known) and all(isinstance(value, str) and value not in values for value in known)

    return rejects


def none_of(*values: object) -> Callable[[Type], bool]:
    """An argument spelled out as a value other than ``values``."""

    def rejects(typ: Type) -> bool:
        known = known_values(typ)
        return known is not None and bool(known) and not any(value in values for value in known)

    return rejects


def renamed_to(new: str) -> Callable[[CallExpr, str, Type], Fix | None]:
    """The keyword renamed, its value kept."""
    return lambda call, old, typ: fixes.rename_keyword(call, old, new)


def dropped(call: CallExpr, old: str, typ: Type) -> Fix | None:
    """An option that asks for what JAX does anyway."""
    return fixes.drop_keyword(call, old)


def stable_sort(call: CallExpr, old: str, typ: Type) -> Fix | None:
    """NumPy's ``kind=``: JAX sorts stably by default, which every kind allows; "stable" and
    "mergesort" promise it, so they become ``stable=True``."""
    known = known_values(typ)
    if known is None or not known or not all(isinstance(value, str) for value in known):
        return None
    if known <= {"stable", "mergesort"}:
        return fixes.rename_keyword(call, old, "stable", "True")
    return fixes.drop_keyword(call, old)


def first_order_edges(call: CallExpr, old: str, typ: Type) -> Fix | None:
    """``edge_order=1`` asks for what JAX computes; another order would change the result."""
    return fixes.drop_keyword(call, old) if known_values(typ) == frozenset({1}) else None


IS_TRUE: Final = one_of(True)
SINCE_ALWAYS: Final = release.OLDEST
CLIP_REMOVED: Final = (0, 10, 0)
"""JAX 0.10.0 removed ``a``, ``a_min`` and ``a_max`` from ``jnp.clip`` (CHANGELOG); 0.4.27 to
0.9.2 take them with a DeprecationWarning."""
INTERPOLATION_REMOVED: Final = (0, 8, 0)
"""JAX 0.8.0 removed ``interpolation`` from the percentile and quantile functions (CHANGELOG;
``TypeError`` from the function on 0.8, from ``jax.jit`` on the string from 0.9); up to 0.7.2 a
DeprecationWarning."""

NUMPY_ONLY_METHODS: Final = (
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
)
"""NumPy's quantile methods that JAX has not (``ValueError: method can only be ...``)."""
INVERTED_CDF_ADDED: Final = (0, 10, 0)
"""``method="inverted_cdf"`` raises up to 0.9.2 and runs from 0.10.0 (read in the source)."""
JAX_METHODS: Final = 'JAX has "linear" (the default), "lower", "higher", "midpoint" and "nearest" (and "inverted_cdf" from JAX 0.10.0)'

QUANTILES: Final = tuple(fullnames.JNP + name for name in ("percentile", "quantile", "nanpercentile", "nanquantile"))

REJECTED: Final[tuple[tuple[tuple[str, ...], Unsupported], ...]] = (
    (
        (fullnames.JNP + "clip",),
        Unsupported("a_min", any_argument, CLIP_REMOVED, "TypeError", (USE_MIN_MAX,), removed=True, fix=renamed_to("min")),
    ),
    (
        (fullnames.JNP + "clip",),
        Unsupported("a_max", any_argument, CLIP_REMOVED, "TypeError", (USE_MIN_MAX,), removed=True, fix=renamed_to("max")),
    ),
    ((fullnames.JNP + "clip",), Unsupported("a", any_argument, CLIP_REMOVED, "TypeError", (PASS_THE_ARRAY,), removed=True)),
    (
        QUANTILES,
        Unsupported(
            "interpolation", any_argument, INTERPOLATION_REMOVED, "TypeError", (USE_METHOD,), removed=True, fix=renamed_to("method")
        ),
    ),
    (QUANTILES, Unsupported("method", one_of(*NUMPY_ONLY_METHODS), SINCE_ALWAYS, "ValueError", (JAX_METHODS,))),
    (QUANTILES, Unsupported("method", one_of("inverted_cdf"), SINCE_ALWAYS, "ValueError", (JAX_METHODS,), until=INVERTED_CDF_ADDED)),
    (
        (*QUANTILES, fullnames.JNP + "median", fullnames.JNP + "nanmedian"),
        Unsupported("overwrite_input", one_of(True), SINCE_ALWAYS, "ValueError", (DROP_OVERWRITE,), fix=dropped),
    ),
    (
        (fullnames.JNP + "sort", fullnames.JNP + "argsort"),
        Unsupported("kind", never_none, SINCE_ALWAYS, "TypeError", (USE_STABLE,), fix=stable_sort),
    ),
    (
        (fullnames.JNP + "array", fullnames.JNP + "asarray", fullnames.JNP + "copy"),
        Unsupported("order", none_of(None, "K"), SINCE_ALWAYS, "NotImplementedError", (DROP_ORDER,), fix=dropped),
    ),
    (
        (fullnames.JNP + "reshape", ARRAY_METHOD + "reshape"),
        Unsupported("order", one_of("A"), SINCE_ALWAYS, "NotImplementedError", (ORDER_C_OR_F,)),
    ),
    (
        (fullnames.JNP + "reshape", ARRAY_METHOD + "reshape"),
        Unsupported("order", one_of("K"), SINCE_ALWAYS, "ValueError", (ORDER_C_OR_F,)),
    ),
    (
        (fullnames.JNP + "ravel", ARRAY_METHOD + "ravel", ARRAY_METHOD + "flatten"),
        Unsupported("order", one_of("A", "K"), SINCE_ALWAYS, "NotImplementedError", (ORDER_C_OR_F,)),
    ),
    (
        (fullnames.JNP + "gradient",),
        Unsupported("edge_order", never_none, SINCE_ALWAYS, "NotImplementedError", (DROP_EDGE_ORDER,), fix=first_order_edges),
    ),
    (
        (fullnames.JNP + "take", ARRAY_METHOD + "take"),
        Unsupported("mode", one_of("raise"), SINCE_ALWAYS, "NotImplementedError", (NO_RAISE_MODE,)),
    ),
    ((fullnames.JNP + "put",), Unsupported("mode", one_of("raise"), SINCE_ALWAYS, "NotImplementedError", (PUT_MODES,))),
    (
        (fullnames.JNP + "take_along_axis", fullnames.JNP + "put_along_axis"),
        Unsupported("mode", one_of("raise", "wrap"), SINCE_ALWAYS, "ValueError", (GATHER_MODES,)),
    ),
    ((fullnames.JNP + "fill_diagonal",), Unsupported("wrap", one_of(True), SINCE_ALWAYS, "NotImplementedError", (DROP_WRAP,))),
    ((fullnames.JNP + "meshgrid",), Unsupported("copy", one_of(False), SINCE_ALWAYS, "ValueError", (DROP_COPY,), fix=dropped)),
    (
        (fullnames.JNP + "interp",),
        Unsupported("left", string_but("extrapolate"), SINCE_ALWAYS, "ValueError", (ONLY_EXTRAPOLATE,)),
    ),
    (
        (fullnames.JNP + "interp",),
        Unsupported("right", string_but("extrapolate"), SINCE_ALWAYS, "ValueError", (ONLY_EXTRAPOLATE,)),
    ),
)
"""Each check, with JAX's full names of the functions and ``Array`` methods it applies to."""


def by_function(rejected: tuple[tuple[tuple[str, ...], Unsupported], ...]) -> dict[str, tuple[Unsupported, ...]]:
    found: dict[str, list[Unsupported]] = {}
    for names, check in rejected:
        for name in names:
            found.setdefault(name, []).append(check)
    return {name: tuple(checks) for name, checks in found.items()}


UNSUPPORTED_ARGUMENTS: Final[Mapping[str, tuple[Unsupported, ...]]] = by_function(REJECTED)
"""By full name: the checks of its parameters."""

INPLACE_FUNCTIONS: Final[Mapping[str, str]] = {
    **dict.fromkeys(inplace.FUNCTIONS, "ValueError"),
    fullnames.JNP + "fill_diagonal": "NotImplementedError",
    **dict.fromkeys(inplace.UFUNC_AT, "NotImplementedError"),
}
"""The functions that raise unless ``inplace=False`` (``lib/inplace.py``), and the exception."""

UNSUPPORTED_FUNCTIONS: Final[Mapping[str, tuple[str, str, tuple[str, ...]]]] = {
    fullnames.JNP + "fromfile": (NEVER_RUNS, "NotImplementedError", (READ_WITH_NUMPY.format(function="fromfile"),)),
    fullnames.JNP + "fromiter": (NEVER_RUNS, "NotImplementedError", (READ_WITH_NUMPY.format(function="fromiter"),)),
    fullnames.ARRAY: (NOT_A_CONSTRUCTOR, "TypeError", (MAKE_ARRAYS,)),
}
"""The functions (and the class ``jnp.ndarray``, that is ``jax.Array``) that always raise."""


def callee_of(call: CallExpr, fullname: str) -> str:
    """The function as the call spells it (``jnp.clip``, ``x.take``), else its short name."""
    return source(call.callee) or fullname.rpartition(".")[2]


def spelled_argument(parameter: str, typ: Type) -> str:
    """``order="F"``, ``wrap=True``: the argument as the error names it."""
    known = known_values(typ)
    if known is not None and len(known) == 1:
        [value] = known
        return f'{parameter}="{value}"' if isinstance(value, str) else f"{parameter}={value}"
    return f'"{parameter}="'


def check_call(fullname: str) -> Callable[[HookContext], Type]:
    """The hook for one full name: its parameters of ``UNSUPPORTED_ARGUMENTS`` that the stubs'
    release rejects, its ``inplace`` default, or the call itself."""
    checks = tuple(check for check in UNSUPPORTED_ARGUMENTS.get(fullname, ()) if check.applies)
    in_place = fullname in INPLACE_FUNCTIONS
    never_runs = fullname in UNSUPPORTED_FUNCTIONS

    def hook(ctx: HookContext) -> Type:
        if not isinstance(ctx.context, CallExpr) or (fullname in inplace.UFUNC_AT and not inplace.ufunc_has_at(ctx.context)):
            return ctx.default_return_type
        callee = callee_of(ctx.context, fullname)
        if never_runs:
            report_function(ctx.api, ctx.context, callee, fullname)
            return ctx.default_return_type
        removed: list[tuple[Unsupported, Expression, Type]] = []
        reported = False
        for check in checks:
            for arg, typ in passed(ctx, check.parameter):
                if not check.rejects(typ):
                    continue
                reported = True
                if check.removed:
                    removed.append((check, arg, typ))
                else:
                    report_argument(ctx.api, ctx.context, arg, callee, check, typ)
        if removed:
            report_removed(ctx.api, ctx.context, removed, callee)
        inplace_given = given(ctx, inplace.PARAMETER) if in_place else None
        if inplace_given is not None and (inplace_given.absent or all(IS_TRUE(typ) for typ in inplace_given.types)):
            rewritable = not reported and all(name is None or name in ctx.callee_arg_names for name in ctx.context.arg_names)
            report_inplace(ctx, callee, fullname, inplace_given.args if rewritable else None)
        return ctx.default_return_type

    return hook


def report_argument(api: CheckerPluginInterface, call: CallExpr, arg: Expression, callee: str, check: Unsupported, typ: Type) -> None:
    """A value JAX refuses, with what to write instead."""
    message = UNSUPPORTED.format(callee=callee, argument=spelled_argument(check.parameter, typ), exception=check.exception)
    reporting.error_with_notes(api, arg, ARGUMENT_CODE, message, check.advice, keyword_fix(call, [(check, typ)]))


def keyword_fix(call: CallExpr, found: list[tuple[Unsupported, Type]]) -> Fix | None:
    """One fix for the keywords of one report, where each is given by keyword and has a fix
    that keeps the meaning, and no new keyword is given already."""
    made = [fix for check, typ in found if check.fix is not None and (fix := check.fix(call, check.parameter, typ)) is not None]
    if not found or len(made) != len(found):
        return None
    edits = [edit for fix in made for edit in fix.edits]
    if any(edit.name not in call.arg_names or edit.text in call.arg_names for edit in edits):
        return None
    return Fix("; ".join(fix.title for fix in made), True, edits)


def report_removed(api: CheckerPluginInterface, call: CallExpr, removed: list[tuple[Unsupported, Expression, Type]], callee: str) -> None:
    """The keywords of one call that JAX removed, in one error (``a_min`` and ``a_max``)."""
    checks = [check for check, _, _ in removed]
    parameters = ", ".join(f'"{check.parameter}"' for check in checks)
    message = NO_LONGER_ACCEPTED.format(
        callee=callee,
        parameters=parameters,
        release=release.spelled(min(check.since for check in checks)),
        exception=checks[0].exception,
    )
    advice = list(dict.fromkeys(text for check in checks for text in check.advice))
    fix = keyword_fix(call, [(check, typ) for check, _, typ in removed])
    reporting.error_with_notes(api, removed[0][1], ARGUMENT_CODE, message, advice, fix)


def inplace_advice(ctx: HookContext, callee: str, fullname: str, inplace_args: list[Expression] | None) -> tuple[list[str], Fix | None]:
    """The call with ``inplace=False`` (``inplace_args``, what it gave for ``inplace``, left
    out). Where the call is a statement of its own, its result put back where the array it
    meant to update was (``lib/places.py``: ``x = ...``, or under a new name where that place
    refuses it); for ``jnp.add.at(x, i, v)`` also the ``.at[]`` form. The general advice where
    the call cannot be printed back, or where something else in it fails too
    (``inplace_args`` None). With the first rewrite as a fix, where it is the whole statement."""
    call = ctx.context
    assert isinstance(call, CallExpr)
    kept = [
        (kind, name, arg)
        for kind, name, arg in zip(call.arg_kinds, call.arg_names, call.args)
        if inplace_args is not None and not any(arg is other for other in inplace_args)
    ]
    arguments = arguments_source(*zip(*kept)) if kept else None
    if arguments is None:
        return [PASS_INPLACE_FALSE], None
    fixed = f"{callee}({', '.join([*arguments, 'inplace=False'])})"
    array = inplace.updated_array(ctx)
    alone = checked_module.value_discarded(ctx.api, call)
    put = places.put_back(ctx.api, array, fixed, ctx.default_return_type) if alone and array is not None else None
    if put is None:
        return [PASS_INPLACE_FALSE_AS.format(call=fixed)], None
    advice = [places.rewrite_note(PASS_INPLACE_FALSE, put)]
    method = AT_METHODS.get(inplace.ufunc_name(call) or "")
    positional = [text for (kind, _, _), text in zip(kept, arguments) if kind == ARG_POS]
    if fullname in inplace.UFUNC_AT and array is not None and method is not None and len(positional) == len(kept) == 3:
        array_text, indices, values = positional
        at_put = places.put_back(ctx.api, array, f"{array_text}.at[{indices}].{method}({values})", ctx.default_return_type)
        if at_put is not None:
            advice.append(places.rewrite_note(OR_USE_AT, at_put))
    return advice, places.fix_of(ctx.api, call, put)


def report_inplace(ctx: HookContext, callee: str, fullname: str, inplace_args: list[Expression] | None) -> None:
    """An in-place update of a JAX array, with the call that returns the updated array."""
    message = NOT_IN_PLACE.format(callee=callee, exception=INPLACE_FUNCTIONS[fullname])
    advice, fix = inplace_advice(ctx, callee, fullname, inplace_args)
    reporting.error_with_notes(ctx.api, ctx.context, INPLACE_CODE, message, advice, fix)


def report_function(api: CheckerPluginInterface, call: CallExpr, callee: str, fullname: str) -> None:
    """A function JAX declares only to raise, with the way to the same array."""
    message, exception, advice = UNSUPPORTED_FUNCTIONS[fullname]
    reporting.error_with_notes(api, call, FUNCTION_CODE, message.format(callee=callee, exception=exception), advice)


CHECKED_FUNCTIONS: Final = {*UNSUPPORTED_ARGUMENTS, *INPLACE_FUNCTIONS, *UNSUPPORTED_FUNCTIONS}
METHODS: Final = {name for name in CHECKED_FUNCTIONS if name.startswith(ARRAY_METHOD) or name in inplace.UFUNC_AT}
"""The full names that are methods (``Array.take``, ``ufunc.at``), hooked as methods of that
one class: a subclass of ``jax.Array`` that inherits them is not followed."""

RULE: Final = Rule(
    ARGUMENT_CODE,
    other_codes=(INPLACE_CODE, FUNCTION_CODE),
    function_hooks={name: check_call(name) for name in sorted(CHECKED_FUNCTIONS - METHODS)},
    method_hooks={name: check_call(name) for name in sorted(METHODS)},
)
