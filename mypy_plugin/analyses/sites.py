"""The sites of the traced-value walk and the tables of JAX's API it decides them by.

A *site* is a line that needs a Python value of a tracer (``if``, ``int()``, ``range()``,
``np.asarray``) or makes a shape from its values (a boolean mask, ``jnp.nonzero`` without
``size=``, a traced shape or slice bound). Each kind of site raises its own error; the tables
say which JAX functions, methods and attributes make which (each entry measured under
``jax.jit``: ``tests/test_traced_tables.py`` runs them on every JAX release of the matrix);
which parameters of JAX's API need a Python value is measured from JAX itself
(``analyses/contract.py``).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import CallExpr, Expression, FuncItem

BOOL: Final = "bool"
CONVERT: Final = "convert"
INDEX: Final = "index"
NUMPY_CONVERSION: Final = "numpy conversion"
BOOLEAN_MASK: Final = "boolean mask"
NO_SIZE: Final = "no size"
SHAPE_ARGUMENT: Final = "shape argument"
SETTING_ARGUMENT: Final = "setting argument"
SLICE: Final = "slice"
FORMAT: Final = "format"
LEAK: Final = "leak"
APPENDED: Final = "appended"
ASSIGNED: Final = "assigned"
"""How a ``LEAK`` keeps its tracer (its ``construct``): appended to a list, or assigned."""
"""The kinds of site: a truth test, ``int()``-like conversion, ``__index__``, NumPy conversion,
a boolean-mask index, a shape-making call without ``size=``, a traced shape or size given to a
JAX function (``jnp.zeros(n)``, ``x.reshape(n, -1)``), a traced setting given to one
(``jnp.sum(x, axis=a)``: ``analyses/contract.py`` says which parameters are which), a slice of
an array with a traced bound or step (``x[:n]``), a format spec given a tracer (``f"{loss:.3f}"``),
a tracer stored where it outlives the trace (``history.append(loss)``: ``jax-leaked-tracer``,
reported only where the module uses it after, ``rules/traced/leaks.py``)."""
SHAPE_KINDS: Final = frozenset({BOOLEAN_MASK, NO_SIZE, SHAPE_ARGUMENT, SLICE})
"""The kinds that make a shape from values (``jax-traced-shape``); the rest need a value."""


class Site:
    """One place that needs the Python value of a tracer."""

    __slots__ = ("kind", "node", "value", "construct", "printing", "callee", "raises", "trail", "holder")

    def __init__(
        self, kind: str, node: Expression, value: Expression, construct: str, printing: bool = False, callee: str = "", raises: str = ""
    ) -> None:
        self.kind = kind
        self.node = node
        """Where to report."""
        self.value = value
        """The traced value, as written."""
        self.construct = construct
        """What needs its value: ``"if"``, ``"while"``, ``"int()"``, ``"range()"``, ..."""
        self.printing = printing
        """Whether the value is converted only to be printed (an argument of ``print``, a
        ``str.format``/f-string)."""
        self.callee = callee
        """The full name of the NumPy function that converts (``numpy.tanh``), or of the JAX
        function given a traced shape."""
        self.raises = raises
        """What JAX raises there, where the kind does not say (a shape argument: by function)."""
        self.trail: tuple[tuple[CallExpr, FuncItem], ...] = ()
        """The calls that lead from the transformed function to the helper holding the site, each
        with the function it calls; empty for a site of the transformed function itself."""
        self.holder: Expression | None = None
        """Of a ``LEAK``: where the tracer is kept, as written (``history`` for
        ``history.append(loss)``, ``cache`` for a global, ``self.last``, ``stats["loss"]``)."""


CONCRETE_ATTRIBUTES: Final = frozenset({"shape", "ndim", "dtype", "size", "weak_type", "sharding", "aval", "itemsize", "nbytes"})
"""Attributes of a tracer that are Python values known while tracing."""
ARRAY_METHODS: Final = frozenset(
    {
        "sum", "mean", "max", "min", "std", "var", "prod", "any", "all", "argmax", "argmin", "cumsum", "cumprod",
        "reshape", "astype", "transpose", "ravel", "flatten", "squeeze", "dot", "clip", "round", "conj", "conjugate",
        "item", "tolist", "nonzero", "ptp", "diagonal", "swapaxes", "argsort", "block_until_ready",
    }
)  # fmt: skip
"""Methods of ``jax.Array`` that no list, dict or tuple has: called on a ``CANDIDATE``, it is an
array there, and a tracer."""
ARRAY_STAGING_METHODS: Final = frozenset(
    {"sum", "mean", "max", "min", "std", "var", "prod", "any", "all", "argmax", "argmin", "cumsum", "cumprod", "dot", "ptp", "argsort"}
)
"""Methods that compute on every call, so that called on a concrete array (``values.CONCRETE_ARRAY``) under a
staging transform they give a tracer; others may return the array itself (``astype`` to its own
dtype) or a Python value (``is_deleted``)."""
SHAPE_METHODS: Final = frozenset({"reshape"})
"""Methods of ``jax.Array`` whose arguments are a shape: a tracer there raises ``TypeError``
(``x.reshape(n, -1)`` takes them as ``*args``, which the probe of ``analyses/contract.py`` does
not reach: measured in ``tests/test_traced_tables.py``)."""
CONVERTING_METHODS: Final = frozenset({"item", "tolist"})
MASK_FUNCTIONS: Final = frozenset(
    f"jax.numpy.{name}"
    for name in (
        "isnan",
        "isinf",
        "isfinite",
        "isposinf",
        "isneginf",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "equal",
        "not_equal",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "isclose",
        "signbit",
        "isin",
        "isreal",
        "iscomplex",
    )
)
"""JAX functions that return a boolean array."""
NUMPY_CONVERTERS: Final = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray"})
"""NumPy functions that convert their input to an array (defined in ``numpy._core``, re-exported)."""
CONVERTERS: Final = {"builtins.int": '"int()"', "builtins.float": '"float()"', "builtins.complex": '"complex()"'}
MATH_FUNCTIONS: Final = {
    **{name: name for name in ("sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh")},
    **{name: name for name in ("fabs", "hypot", "copysign", "fmod", "isnan", "isinf", "isfinite", "degrees", "radians")},
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2", "pow": "power",
}  # fmt: skip
"""Functions of Python's ``math`` that convert their arguments with ``float()`` (so a tracer
raises ``ConcretizationTypeError``; ``tests/test_traced_tables.py``), each with the ``jax.numpy``
function that computes the same on arrays."""
RUN_UNDER_GRAD: Final = frozenset({'"int()"', '".item()"'})
"""Conversions that run under ``jax.grad`` alone: its tracers carry a concrete value that
``int()`` and ``.item()`` read (``float()``, ``.tolist()``, ``math`` and NumPy raise)."""
COMPARING_BUILTINS: Final = {
    "builtins.min": ("min", "minimum"),
    "builtins.max": ("max", "maximum"),
    "builtins.sorted": ("sort", "sort"),
    "builtins.any": ("any", "any"),
    "builtins.all": ("all", "all"),
}
"""Python's builtins that compare or truth-test what they are given: tracers given as two or more
arguments, or the items of a traced array they iterate (``max(x, 0.0)``, ``any(x > 0)``), need
their Python values (``TracerBoolConversionError`` for a vector; iterating a 0-d array raises
``TypeError``, a row of a 2-d one ``ValueError``: measured in ``tests/test_traced_tables.py``).
Each with the ``jax.numpy`` function for one array and for two."""
SLICED_PARAMETER: Final = "slicing a parameter"
"""A slice of a parameter that holds an array (``IndexError``) or a list (``__index__``:
``TracerIntegerConversionError``) by a traced bound."""
DICT_INDEX: Final = "indexing a dict"
"""A dict looked up with a tracer hashes it: ``TypeError`` (``KeyError`` before
``release.TRACERS_UNHASHABLE``)."""
NUMPY_INDEX: Final = "indexing a NumPy array"
"""A NumPy array indexed by a tracer converts it (under ``jax.grad`` alone, the concrete value is
read: it runs)."""
PRINTERS: Final = frozenset({"builtins.print"})
"""Functions that print what they are given: a conversion there is for printing."""


def raises_under_grad(kind: str, construct: str) -> bool:
    """Whether a site raises under ``jax.grad`` alone, whose tracers hold concrete values:
    control flow, ``range()`` and masks run there; conversions to a float or to NumPy raise."""
    return kind == FORMAT or kind == NUMPY_CONVERSION and construct != NUMPY_INDEX or (kind == CONVERT and construct not in RUN_UNDER_GRAD)
