"""The shape of an array as the code spells it out: what ``jax.vmap`` compares at a call.

``jax.vmap`` maps one axis of each mapped argument, and every mapped axis must have one size
(``vmap got inconsistent sizes for array axes to be mapped``) that the argument has
(``vmap was requested to map its argument along axis 1, which implies that its rank should be
at least 2``). Both are read here from how the array is made, where the code writes its sizes:

- a creator of ``jax.numpy`` given its shape: ``zeros``, ``ones``, ``empty``, ``full``
  (``jnp.zeros((4, 3))``, ``jnp.zeros(n)``), ``zeros_like`` and its kin of a known array (given
  no ``shape``), NumPy's ``random.randn(10, 4)`` and ``random.rand``, a ``jax.random``
  sampler's ``shape``;
- a list written out and made an array (``jnp.array([1, 2])``: its length, then the lengths of
  nested lists where they agree; not with ``ndmin``, nor with a starred item);
- ``arange`` of whole numbers, ``linspace`` of two numbers and its ``num`` (50 where it is
  not given);
- ``jax.random.split(key, n)``: ``n`` leading (a key's own axes follow for the older keys);
- ``.reshape(...)`` given its sizes, of an array read here.

A size is an int as written, or a name whose one binding there is one (``N = 1000``). An array
is read through a name's one value only where that read is the name's one mention in the
module (``bindings.one_value``): an array can change shape in place. Anything else is unknown:
None for the array, or None for one size; ``...`` last where the trailing axes are not known
(the rank is then not known either). NumPy's own creators are not read (their full names are
NumPy's private modules').
"""

from __future__ import annotations

from types import EllipsisType
from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_POS,
    CallExpr,
    ComplexExpr,
    Expression,
    FloatExpr,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    StarExpr,
    TupleExpr,
)
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import arguments, fullnames
from mypy_plugin.lib.source import int_literal

Size = int | None
Shape = tuple[int | None | EllipsisType, ...] | None
MORE: Final = ...
"""The last item of a shape whose trailing axes are not known."""

CREATORS: Final = frozenset({"zeros", "ones", "empty", "full"})
"""Functions whose first argument (``shape``) is the shape."""
FROM_LISTS: Final = frozenset({"array", "asarray"})
NUMPY_RANDOM_DIMENSIONS: Final = frozenset(
    {"numpy.random.mtrand.randn", "numpy.random.mtrand.rand", "numpy.random.randn", "numpy.random.rand"}
)
"""NumPy's samplers that take each size as an argument (``randn(10, 4)``)."""
JAX_SAMPLERS: Final = {"normal": 1, "uniform": 1, "randint": 1, "bits": 1, "gumbel": 1, "laplace": 1, "bernoulli": 2, "truncated_normal": 3}
"""``jax.random`` samplers, each with the position of its ``shape`` (also taken by name)."""
LINSPACE_NUM: Final = 50
"""``linspace``'s ``num`` where it is not given."""
FOLLOWED: Final = 3
"""How many bindings deep a name is read."""
LIKE_PARAMETERS: Final = {
    "full_like": ("a", "fill_value", "dtype"),
    **dict.fromkeys(("zeros_like", "ones_like", "empty_like"), ("a", "dtype")),
}
"""What a ``*_like`` call may pass for the shape to be its argument's: no ``shape``."""


def shape_of(api: CheckerPluginInterface, node: Expression, depth: int = 0) -> Shape:
    """The shape of the array ``node`` makes, as far as the code spells it out; None where
    unknown. A name is read through its one value only where it is mentioned nowhere else: an
    array's shape can change in place (``a.shape = (2, 3)``, ``a.resize(...)``)."""
    if isinstance(node, NameExpr):
        value = bindings.one_value(api, node, read_once=True) if depth < FOLLOWED else None
        return shape_of(api, value, depth + 1) if value is not None else None
    if not isinstance(node, CallExpr):
        return None
    callee = node.callee
    if isinstance(callee, MemberExpr) and callee.name == "reshape" and not is_module(callee.expr):
        # the method of an array made here (another object's reshape may do anything)
        return reshaped(api, node, depth) if shape_of(api, callee.expr, depth) is not None else None
    if not isinstance(callee, RefExpr) or not callee.fullname:
        return None
    return made_by(api, callee.fullname, node, depth)


def is_module(node: Expression) -> bool:
    """Whether ``node`` names a module (``jnp`` in ``jnp.reshape``), not an array."""
    return isinstance(node, RefExpr) and isinstance(node.node, MypyFile)


def made_by(api: CheckerPluginInterface, fullname: str, call: CallExpr, depth: int) -> Shape:
    module, _, name = fullname.rpartition(".")
    module += "."
    if module == fullnames.JNP:
        if name in CREATORS:
            shape = argument(call, 0, "shape")
            return dimensions(api, shape, depth) if shape is not None else None
        if name in LIKE_PARAMETERS:
            like = argument(call, 0, "a")
            allowed = LIKE_PARAMETERS[name]
            if like is None or not passes_only(call, allowed, len(allowed)):
                return None
            return shape_of(api, like, depth)
        if name in FROM_LISTS:
            written = argument(call, 0, "object") or argument(call, 0, "a")
            if not isinstance(written, (ListExpr, TupleExpr)) or not passes_only(call, ("object", "a", "dtype"), 2):
                return None  # ndmin, copy=False of a list...: not read
            return nested_list_shape(written)
        if name == "arange":
            return arange(api, call, depth)
        if name == "linspace":
            num = argument(call, 2, "num")
            count = LINSPACE_NUM if num is None else size(api, num, depth)
            ends = [argument(call, 0, "start"), argument(call, 1, "stop")]
            if not all(end is not None and numeric(end) for end in ends) or not passes_only(
                call, ("start", "stop", "num", "endpoint", "dtype"), 5
            ):
                return None  # array ends add their axes; retstep returns a pair
            return (count,) if count is not None else None
    if fullname in NUMPY_RANDOM_DIMENSIONS and all(kind == ARG_POS for kind in call.arg_kinds):
        return tuple(size(api, arg, depth) for arg in call.args)
    if module in fullnames.RANDOM_MODULES:
        if name == "split":
            num = argument(call, 1, "num")
            count = 2 if num is None else size(api, num, depth)
            return (count, MORE)
        if name in JAX_SAMPLERS:
            shape = argument(call, JAX_SAMPLERS[name], "shape")
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


def nested_list_shape(node: ListExpr | TupleExpr) -> Shape:
    """The shape of nested lists written out: each level's length where every list there has
    it; ``...`` where an item is not a list written out (an array's own axes follow); None
    where an item is starred (``[*rows]``: its length is not known)."""
    shape: list[int | None | EllipsisType] = [len(node.items)]
    level: list[Expression] = list(node.items)
    while level:
        if any(isinstance(item, StarExpr) for item in level):
            return None
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
    """A shape argument: a tuple or a list of sizes, or one size; None where a size is starred
    (``(*batch, 3)``)."""
    if isinstance(node, (TupleExpr, ListExpr)):
        if any(isinstance(item, StarExpr) for item in node.items):
            return None
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
    value = bindings.one_value(api, node) if depth < FOLLOWED else None
    return int_literal(value) if value is not None else None


def argument(call: CallExpr, position: int, name: str) -> Expression | None:
    """The one argument written for a parameter, by position or by name."""
    written = arguments.written_for(call, position, name)
    return call.args[written[0]] if len(written) == 1 and call.arg_kinds[written[0]] in (ARG_POS, ARG_NAMED) else None


def passes_only(call: CallExpr, parameters: tuple[str, ...], positional: int) -> bool:
    """Whether ``call`` passes at most ``positional`` arguments by position and, by name, only
    ``parameters``; no ``*args`` or ``**kwargs``."""
    named = [name for name, kind in zip(call.arg_names, call.arg_kinds) if kind == ARG_NAMED]
    by_position = [kind for kind in call.arg_kinds if kind == ARG_POS]
    return (
        len(by_position) + len(named) == len(call.arg_kinds)
        and len(by_position) <= positional
        and all(name in parameters for name in named)
    )


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
