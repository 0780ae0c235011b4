"""The shape of an array as the code spells it out: what ``jax.vmap`` compares at a call.

``jax.vmap`` maps one axis of each mapped argument, and every mapped axis must have one size
(``vmap got inconsistent sizes for array axes to be mapped``) that the argument has
(``vmap was requested to map its argument along axis 1, which implies that its rank should be
at least 2``). Both are read here from how the array is made, where the code writes its sizes:

- a creator given its shape: ``zeros``, ``ones``, ``empty``, ``full`` of ``jax.numpy`` or
  NumPy (``jnp.zeros((4, 3))``, ``np.ones([2])``, ``jnp.zeros(n)``), ``zeros_like`` of a known
  array, NumPy's ``random.randn(10, 4)`` and ``random.rand``, a ``jax.random`` sampler's
  ``shape``;
- a list written out and made an array (``jnp.array([1, 2])``: its length, then the lengths of
  nested lists where they agree);
- ``arange`` of whole numbers, ``linspace``'s ``num`` (50 where it is not given);
- ``jax.random.split(key, n)``: ``n`` leading (a key's own axes follow for the older keys);
- ``.reshape(...)`` given its sizes.

A size is an int as written, or a name whose one binding there is one (``N = 1000``); a name
is read through the one value it holds (``bindings.reaching_values``). Anything else is
unknown: None for the array, or None for one size; ``...`` last where the trailing axes are
not known (the rank is then not known either).
"""

from __future__ import annotations

from types import EllipsisType
from typing import Final

from mypy.nodes import ARG_POS, CallExpr, ComplexExpr, Expression, FloatExpr, ListExpr, MemberExpr, MypyFile, NameExpr, RefExpr, TupleExpr
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import fullnames
from mypy_plugin.lib.source import int_literal

Size = int | None
Shape = tuple[int | None | EllipsisType, ...] | None
MORE: Final = ...
"""The last item of a shape whose trailing axes are not known."""

NUMPY_MODULES: Final = (fullnames.JNP, "numpy.")
CREATORS: Final = frozenset({"zeros", "ones", "empty", "full"})
"""Functions whose first argument (``shape``) is the shape."""
LIKE: Final = frozenset({"zeros_like", "ones_like", "empty_like", "full_like"})
FROM_LISTS: Final = frozenset({"array", "asarray"})
NUMPY_RANDOM_DIMENSIONS: Final = frozenset(
    {"numpy.random.mtrand.randn", "numpy.random.mtrand.rand", "numpy.random.randn", "numpy.random.rand"}
)
"""NumPy's samplers that take each size as an argument (``randn(10, 4)``)."""
JAX_SAMPLERS: Final = frozenset({"normal", "uniform", "bernoulli", "truncated_normal", "randint", "bits", "gumbel", "laplace"})
"""``jax.random`` samplers whose ``shape`` is the second argument or the ``shape`` keyword."""
LINSPACE_NUM: Final = 50
"""``linspace``'s ``num`` where it is not given."""
FOLLOWED: Final = 3
"""How many bindings deep a name is read."""


def shape_of(api: CheckerPluginInterface, node: Expression, depth: int = 0) -> Shape:
    """The shape of the array ``node`` makes, as far as the code spells it out; None where
    unknown."""
    if isinstance(node, NameExpr):
        value = one_value(api, node, depth)
        return shape_of(api, value, depth + 1) if value is not None else None
    if not isinstance(node, CallExpr):
        return None
    callee = node.callee
    if isinstance(callee, MemberExpr) and callee.name == "reshape" and not is_module(callee.expr):
        return reshaped(api, node, depth)  # an array's method: the sizes given make the shape
    if not isinstance(callee, RefExpr) or not callee.fullname:
        return None
    return made_by(api, callee.fullname, node, depth)


def is_module(node: Expression) -> bool:
    """Whether ``node`` names a module (``jnp`` in ``jnp.reshape``), not an array."""
    return isinstance(node, RefExpr) and isinstance(node.node, MypyFile)


def made_by(api: CheckerPluginInterface, fullname: str, call: CallExpr, depth: int) -> Shape:
    module, _, name = fullname.rpartition(".")
    module += "."
    if module in NUMPY_MODULES:
        if name in CREATORS:
            shape = argument(call, 0, "shape")
            return dimensions(api, shape, depth) if shape is not None else None
        if name in LIKE:
            like = argument(call, 0, "a") or argument(call, 0, "prototype")
            return shape_of(api, like, depth) if like is not None and argument(call, 99, "shape") is None else None
        if name in FROM_LISTS:
            written = argument(call, 0, "object") or argument(call, 0, "a")
            return listed(written) if isinstance(written, (ListExpr, TupleExpr)) else None
        if name == "arange":
            return arange(api, call, depth)
        if name == "linspace":
            num = argument(call, 2, "num")
            count = LINSPACE_NUM if num is None else size(api, num, depth)
            return (count,) if count is not None and argument(call, 99, "axis") is None else None
    if fullname in NUMPY_RANDOM_DIMENSIONS and all(kind == ARG_POS for kind in call.arg_kinds):
        return tuple(size(api, arg, depth) for arg in call.args)
    if module in fullnames.RANDOM_MODULES:
        if name == "split":
            num = argument(call, 1, "num")
            count = 2 if num is None else size(api, num, depth)
            return (count, MORE)
        if name in JAX_SAMPLERS:
            shape = argument(call, 1, "shape")
            return dimensions(api, shape, depth) if shape is not None else None
    return None


def reshaped(api: CheckerPluginInterface, call: CallExpr, depth: int) -> Shape:
    """``x.reshape(3, 3)`` or ``x.reshape((3, 3))``: the sizes given (``-1`` unknown)."""
    if any(kind != ARG_POS for kind in call.arg_kinds) or not call.args:
        return None
    if len(call.args) == 1:
        return dimensions(api, call.args[0], depth)
    return tuple(nonnegative(size(api, arg, depth)) for arg in call.args)


def arange(api: CheckerPluginInterface, call: CallExpr, depth: int) -> Shape:
    """``arange(stop)`` or ``arange(start, stop)`` of whole numbers."""
    if any(kind != ARG_POS for kind in call.arg_kinds) or not 1 <= len(call.args) <= 2:
        return None
    bounds = [size(api, arg, depth) for arg in call.args]
    if any(bound is None for bound in bounds):
        return None
    start, stop = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    assert start is not None and stop is not None
    return (max(stop - start, 0),)


def listed(node: ListExpr | TupleExpr) -> Shape:
    """The shape of nested lists written out: each level's length where every list there has
    it; ``...`` where an item is not a list written out (an array's own axes follow)."""
    shape: list[int | None | EllipsisType] = [len(node.items)]
    level: list[Expression] = list(node.items)
    while level:
        if all(isinstance(item, (ListExpr, TupleExpr)) for item in level):
            lengths = {len(item.items) for item in level if isinstance(item, (ListExpr, TupleExpr))}
            if len(lengths) != 1:
                return None  # ragged: NumPy and JAX refuse it, or make objects
            shape.append(lengths.pop())
            level = [inner for item in level if isinstance(item, (ListExpr, TupleExpr)) for inner in item.items]
        elif any(isinstance(item, (ListExpr, TupleExpr)) for item in level) or not all(numeric(item) for item in level):
            shape.append(MORE)
            break
        else:
            break
    return tuple(shape)


def numeric(node: Expression) -> bool:
    return int_literal(node) is not None or isinstance(node, (FloatExpr, ComplexExpr))


def dimensions(api: CheckerPluginInterface, node: Expression, depth: int) -> Shape:
    """A shape argument: a tuple or a list of sizes, or one size."""
    if isinstance(node, (TupleExpr, ListExpr)):
        return tuple(nonnegative(size(api, item, depth)) for item in node.items)
    one = size(api, node, depth)
    return (one,) if one is not None and one >= 0 else None


def nonnegative(found: Size) -> Size:
    return found if found is not None and found >= 0 else None


def size(api: CheckerPluginInterface, node: Expression, depth: int) -> Size:
    """A whole number as written, or the one int a name holds there."""
    written = int_literal(node)
    if written is not None or not isinstance(node, NameExpr):
        return written
    value = one_value(api, node, depth)
    return int_literal(value) if value is not None else None


def one_value(api: CheckerPluginInterface, node: NameExpr, depth: int) -> Expression | None:
    """The one value the variable ``node`` holds where it is read (not an item of one); a
    parameter, or a variable declared with a type, is not read (most names given to a
    transform are parameters, and reading a module's bindings costs)."""
    if depth >= FOLLOWED or not bindings.assigned_variable(node):
        return None
    values = bindings.reaching_values(api, node)
    return values[0][0] if len(values) == 1 and not values[0][1] else None


def argument(call: CallExpr, position: int, name: str) -> Expression | None:
    """The argument written for a parameter, by position (before any keyword) or by name."""
    for index, (arg, kind, arg_name) in enumerate(zip(call.args, call.arg_kinds, call.arg_names)):
        if arg_name == name or kind == ARG_POS and index == position and arg_name is None:
            return arg
    return None


def axis_size(shape: Shape, axis: int) -> tuple[bool, Size]:
    """Whether the array has ``axis`` (True where its rank is not known), and the size of that
    axis where known."""
    if shape is None:
        return True, None
    exact = not shape or shape[-1] is not MORE
    dims = [dim if isinstance(dim, int) else None for dim in (shape if exact else shape[:-1])]
    if exact and not -len(dims) <= axis < len(dims):
        return False, None
    if 0 <= axis < len(dims) or exact:
        return True, dims[axis]
    return True, None
