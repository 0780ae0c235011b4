"""``jax-float-shape`` (``docs/rules/``): how the rule finds a float where JAX takes a shape or a size.

Python 3's ``/`` makes a float of two integers, so NumPy code written for Python 2, or written
without thinking of it (``jnp.zeros((n / 2, d))``, ``x.reshape(x.shape[0] / 2, -1)``), gives JAX a
float where it takes a whole number, and JAX raises ``TypeError`` ("Shapes must be 1D sequences of
concrete values of integer type"). JAX's annotations say ``Any`` for most of these parameters,
so no checker sees it. ``SIZES`` lists, per function, the parameters that take a shape or a size.

A part of a shape is a float only where the code makes it one, read from the expression and not
from a variable's type (mypy types an ``int`` argument of a ``float`` parameter ``float`` too): a
float literal, ``float(...)``, ``/`` between two Python numbers, arithmetic of a float with a
number, or a variable bound to one of these (``bindings.reaching_values``). A Python number is an
``int`` or ``float`` by mypy's type (where ``bindings.holds``; for an item, ``opts["size"]`` of a
``dict[str, int]``, the type mypy gave it), a literal, ``len(...)``, ``int(...)``, or an item of
a ``.shape``, which is an ``int`` for every array; a ``/`` that mypy
types ``float`` has two (``xs.size / 3``). A variable of no known type (a parameter of an
unannotated function) may stand on either side of ``/``: whatever it holds, a number or an array,
the quotient raises in a shape. An operand of another type (an array, a typed attribute) is
undecided, and the rule is silent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from mypy.nodes import (
    CallExpr,
    Expression,
    FloatExpr,
    IndexExpr,
    IntExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    RefExpr,
    SliceExpr,
    TupleExpr,
    UnaryExpr,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import AnyType, TupleType, Type, get_proper_type

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.arguments import HookContext, passed
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.lib.types import member_class

CODE: Final = errorcodes.FLOAT_SHAPE

FLOAT_IN: Final = '"{parameter}" of "{callee}" has the float "{part}"; JAX raises TypeError'
USE_FLOOR_DIVISION: Final = 'Divide with "//"{where}, which keeps whole numbers whole: "{rewritten}"'
BOUND_AT: Final = ' where "{name}" is bound (line {line})'
WHOLE_NUMBERS: Final = 'A shape or size takes whole numbers: convert with "int(...)" where the value is one'

RANDOM_SAMPLERS: Final = (
    "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare", "choice", "dirichlet",
    "double_sided_maxwell", "exponential", "f", "gamma", "generalized_normal", "geometric", "gumbel", "laplace",
    "loggamma", "logistic", "lognormal", "maxwell", "multinomial", "multivariate_normal", "normal", "orthogonal",
    "pareto", "poisson", "rademacher", "randint", "rayleigh", "t", "triangular", "truncated_normal", "uniform",
    "wald", "weibull_min",
)  # fmt: skip
"""The functions of ``jax.random`` that take ``shape``."""

SIZES: Final[Mapping[str, tuple[str, ...]]] = {
    **{fullnames.JNP + name: ("shape",) for name in ("zeros", "ones", "empty", "full", "reshape", "broadcast_to")},
    **{fullnames.JNP + name: ("shape",) for name in ("zeros_like", "ones_like", "empty_like", "full_like")},
    fullnames.JNP + "resize": ("new_shape",),
    fullnames.JNP + "eye": ("N", "M"),
    fullnames.JNP + "identity": ("n",),
    fullnames.JNP + "tri": ("N", "M"),
    fullnames.JNP + "tile": ("reps",),
    fullnames.JNP + "indices": ("dimensions",),
    fullnames.ARRAY + ".reshape": ("args",),
    "jax._src.lax.lax.full": ("shape",),
    "jax._src.lax.lax.broadcast": ("sizes",),
    "jax._src.lax.lax.broadcast_in_dim": ("shape",),
    "jax._src.lax.lax.reshape": ("new_sizes",),
    **{module + name: ("shape",) for module in fullnames.RANDOM_MODULES for name in RANDOM_SAMPLERS},
}
"""By function: the parameters that take a shape, or one size, each of which JAX rejects a
float in (measured on JAX 0.4.31, 0.7.2 and 0.10.2: ``TypeError``)."""

SHOWN_AS: Final = {"args": "shape"}
"""Parameters named otherwise in the message: ``Array.reshape(*args)`` takes the shape."""

FLOAT: Final = "builtins.float"
INT: Final = "builtins.int"
NUMBER: Final = "number"
"""The kinds ``number_kind`` tells apart: a Python float, or a Python number not certainly one."""

BINDINGS_FOLLOWED: Final = 3
"""How many bindings deep a variable's value is read."""


def check_sizes(fullname: str) -> Callable[[HookContext], Type]:
    """The hook for one function: the first float in each parameter of ``SIZES`` it is given."""
    parameters = SIZES[fullname]

    def hook(ctx: HookContext) -> Type:
        if not isinstance(ctx.context, CallExpr):
            return ctx.default_return_type
        for parameter in parameters:
            for arg, typ in passed(ctx, parameter):
                parts = shape_parts(arg, typ)
                found = next((part for part, part_type in parts if a_float(ctx.api, part, part_type)), None)
                if found is not None:
                    report_float(ctx.api, ctx.context, fullname, SHOWN_AS.get(parameter, parameter), found)
                    break
        return ctx.default_return_type

    return hook


def shape_parts(arg: Expression, typ: Type) -> list[tuple[Expression, Type | None]]:
    """The parts of a shape as written, each with its type where mypy gives it (the items of a
    tuple's type), or the size itself."""
    if not isinstance(arg, (TupleExpr, ListExpr)):
        return [(arg, typ)]
    proper = get_proper_type(typ)
    types = proper.items if isinstance(proper, TupleType) and len(proper.items) == len(arg.items) else [None] * len(arg.items)
    return list(zip(arg.items, types))


def a_float(api: CheckerPluginInterface, part: Expression, typ: Type | None) -> bool:
    """Whether a part of a shape is certainly a Python float, made so by the code or by ``/``."""
    return number_kind(api, part, numbers=False) == FLOAT or divided(api, part, typ)


def divided(api: CheckerPluginInterface, node: Expression, typ: Type | None) -> bool:
    """Whether ``node`` is ``/`` that mypy types ``float``: both operands are Python numbers by
    their types (``xs.size / 3``, ``self.width / 2``), where the variables read there hold the
    types mypy gives them (``bindings.holds``)."""
    if not (isinstance(node, OpExpr) and node.op == "/" and class_of(typ) == FLOAT):
        return False
    return all(bindings.holds(api, variable) for variable in read_variables(node))


def read_variables(node: Expression) -> list[Expression]:
    """The variables and attributes an operation reads, outermost first (``x.size`` and ``x``)."""
    found: list[Expression] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, (NameExpr, MemberExpr)):
            found.append(current)
        if isinstance(current, OpExpr):
            pending += [current.left, current.right]
        elif isinstance(current, UnaryExpr):
            pending.append(current.expr)
        elif isinstance(current, MemberExpr):
            pending.append(current.expr)
        elif isinstance(current, IndexExpr):
            pending.append(current.base)
    return found


def number_kind(api: CheckerPluginInterface, node: Expression, depth: int = 0, numbers: bool = True) -> str | None:
    """``FLOAT`` where the code certainly makes ``node`` a Python float, ``NUMBER`` where it is
    certainly a Python ``int`` or ``float`` otherwise, None where undecided (see the module's
    docstring). One walk answers both, so each part, and each binding, is read once. Without
    ``numbers`` (a part of a shape, where only a float matters), a variable is asked whether it
    holds a number by its type (which reads the module's bindings) only beside a float."""
    if isinstance(node, FloatExpr):
        return FLOAT
    if isinstance(node, IntExpr):
        return NUMBER
    if isinstance(node, UnaryExpr):
        return number_kind(api, node.expr, depth, numbers) if node.op in ("-", "+") else None
    if isinstance(node, OpExpr):
        return operation_kind(api, node, depth, numbers)
    if isinstance(node, IndexExpr) and isinstance(node.base, MemberExpr) and node.base.name == "shape":
        return None if isinstance(node.index, (SliceExpr, TupleExpr)) else NUMBER  # an item of a shape, not a slice
    if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and len(node.args) == 1:
        return {"builtins.float": FLOAT, "builtins.len": NUMBER, "builtins.int": NUMBER}.get(node.callee.fullname)
    if isinstance(node, NameExpr) and depth < BINDINGS_FOLLOWED and typed_as_float(node):
        values = bindings.reaching_values(api, node)
        if values and all(not unpacked and number_kind(api, value, depth + 1) == FLOAT for value, unpacked in values):
            return FLOAT
    if numbers and isinstance(node, (NameExpr, MemberExpr)) and declared_class(node) in (FLOAT, INT) and bindings.holds(api, node):
        return NUMBER
    if numbers and isinstance(node, IndexExpr) and class_of(mypy_internals.type_map_type(api, node)) in (FLOAT, INT):
        return NUMBER if bindings.holds(api, node) else None  # opts["size"] of a dict[str, int]
    return None


def operation_kind(api: CheckerPluginInterface, node: OpExpr, depth: int, numbers: bool) -> str | None:
    """What ``node``'s operator makes of two Python numbers: ``/`` a float, where a variable of
    no known type may stand on either side too; ``+ - * // %`` a float where one side is."""
    if node.op == "/":
        sides = (node.left, node.right)
        return FLOAT if all(untyped_name(side) or number_kind(api, side, depth) is not None for side in sides) else None
    if node.op not in ("+", "-", "*", "//", "%"):
        return None
    sides = (node.left, node.right)
    kinds = [number_kind(api, side, depth, numbers) for side in sides]
    if not numbers and FLOAT in kinds:  # a float: is the other side a number, by its type too?
        kinds = [kind if kind is not None else number_kind(api, side, depth) for kind, side in zip(kinds, sides)]
    if None in kinds:
        return None
    return FLOAT if FLOAT in kinds else NUMBER


def declared_class(node: Expression) -> str | None:
    """The class mypy types the variable or attribute ``node`` with, by full name; None where
    it gives none, or no class."""
    if not isinstance(node, (NameExpr, MemberExpr)) or not isinstance(node.node, Var) or node.node.type is None:
        return None
    return class_of(node.node.type)


def class_of(typ: Type | None) -> str | None:
    """The class of the instances ``typ`` admits, exactly (a ``float`` parameter, not NumPy's
    ``float64``, which subclasses it in NumPy's stubs)."""
    return member_class(get_proper_type(typ)) if typ is not None else None


def typed_as_float(node: NameExpr) -> bool:
    """Whether mypy types the variable ``float``, or knows no type of a variable an assignment
    binds: only then may a binding make it a float (a variable typed ``int``, a tuple or an array
    is none; a parameter has no binding to read), and its bindings are read."""
    if not isinstance(node.node, Var):
        return False
    return node.node.is_inferred if untyped_name(node) else declared_class(node) == FLOAT


def untyped_name(node: Expression) -> bool:
    """A variable mypy knows no type of (a parameter of an unannotated function): what ``/``
    makes of it in a shape raises whatever it holds (a number makes a float, an array an array)."""
    if not isinstance(node, NameExpr) or not isinstance(node.node, Var):
        return False
    return node.node.type is None or isinstance(get_proper_type(node.node.type), AnyType)


def report_float(api: CheckerPluginInterface, call: CallExpr, fullname: str, parameter: str, part: Expression) -> None:
    """A float in a shape, with how to keep it whole."""
    written = source(part) or "..."
    callee = source(call.callee) or fullname.rpartition(".")[2]
    division, bound = part, ""
    if isinstance(part, NameExpr):
        values = bindings.reaching_values(api, part)
        if len(values) == 1 and not values[0][1]:
            division, bound = values[0][0], BOUND_AT.format(name=part.name, line=values[0][0].line)
    notes = [WHOLE_NUMBERS]
    if isinstance(division, OpExpr) and division.op == "/":
        left, right = source(division.left), source(division.right)
        if left is not None and right is not None:
            notes = [USE_FLOOR_DIVISION.format(where=bound, rewritten=f"{left} // {right}")]
    reporting.error_with_notes(api, part, CODE, FLOAT_IN.format(parameter=parameter, callee=callee, part=written), notes)


METHODS: Final = frozenset({fullnames.ARRAY + ".reshape"})
"""The full names that are methods, hooked as methods of that one class."""

RULE: Final = Rule(
    CODE,
    function_hooks={name: check_sizes(name) for name in sorted(set(SIZES) - METHODS)},
    method_hooks={name: check_sizes(name) for name in sorted(METHODS)},
)
