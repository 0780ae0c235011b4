"""Where a function a JAX transform traces needs the Python value of a tracer.

One walk of the function's syntax tree follows which values are certainly tracers: a traced
parameter (``transforms.py``), anything computed from one (operators, indexing, attributes other
than ``.shape``/``.dtype``/..., methods), the result of a call declared to return a JAX array
given a tracer, under ``jax.jit`` every call of a JAX function declared to return an array and
every operation on a global's or a closure's ``jax.Array`` (JAX stages them, even on concrete
inputs), and what a helper returns: a plain function of the checked module called with tracers
is walked too, with them on its parameters (up to ``HELPER_DEPTH`` calls deep). Every other
value is undecided and never reported: an attribute of a parameter that is not an array, a
parameter declared loosely. Where branches disagree the value is undecided; loops are walked
twice so that a value traced by the end of one turn is seen at the start of the next. ``with
jax.ensure_compile_time_eval():`` blocks, and the functions and lambdas defined inside are not
walked, unless called there (as helpers, with their closure's states) or given to a transform.

The walk records each *site*: a line that needs a Python value of a tracer (``if``, ``int()``,
``range()``, ``np.asarray``) or makes a shape from its values (a boolean mask, ``jnp.nonzero``
without ``size=``). The rule decides what to say.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_NAMED_OPT,
    ARG_OPT,
    ARG_POS,
    GDEF,
    LDEF,
    AssertStmt,
    AssignmentExpr,
    AssignmentStmt,
    Block,
    BreakStmt,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    ConditionalExpr,
    ContinueStmt,
    Decorator,
    DelStmt,
    DictionaryComprehension,
    Expression,
    ExpressionStmt,
    FloatExpr,
    ForStmt,
    FuncDef,
    FuncItem,
    GeneratorExpr,
    GlobalDecl,
    IfStmt,
    IndexExpr,
    IntExpr,
    ListComprehension,
    ListExpr,
    MemberExpr,
    NameExpr,
    NonlocalDecl,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RaiseStmt,
    RefExpr,
    ReturnStmt,
    SetComprehension,
    SliceExpr,
    StarExpr,
    Statement,
    StrExpr,
    TryStmt,
    TupleExpr,
    UnaryExpr,
    Var,
    WhileStmt,
    WithStmt,
    YieldExpr,
)
from mypy.types import CallableType, Instance, Overloaded, TupleType, Type, get_proper_type

from mypy_plugin.lib import arguments, fullnames, release, statements, types
from mypy_plugin.lib.source import int_literal, source
from mypy_plugin.lib.transforms import TransformedFunction, declared_type, receiver_of, traceable

TRACED: Final = "traced"
MASK: Final = "mask"
"""A tracer, and a tracer of booleans (a comparison, ``~``, ``&`` of them, ``jnp.isnan``)."""
CANDIDATE: Final = "candidate"
"""A tracer or a pytree of tracers (a list, a dict): an unannotated parameter of a transformed
function, an item of one. A use that only an array or a number can serve (arithmetic, an order
comparison with a number, an array method, ``int()``, ``range()``) proves it a tracer there; a
truth test, ``==``, ``len()``, iteration and attributes do not (a list or a pytree class runs)."""
ITEM: Final = "item"
"""What iterating a ``CANDIDATE`` gives: a row of a list of arrays, or a key of a dict (a Python
value, which arithmetic, comparisons and ``range()`` accept); and a parameter written without a
type where Python numbers are not traced (``TransformedFunction.arrays_only``). Only an array
method proves it a tracer."""
ARRAY: Final = "array"
"""A concrete ``jax.Array`` from outside the staged function (a module global, a closure's
variable, a static ``self``'s field): a bare reference stays concrete, but JAX stages an
operator, an index or a computing method on it (``ARRAY_STAGING_METHODS``), whose result is a
tracer; its attributes and other methods are left undecided. Only staging transforms
(``TransformedFunction.staged``: ``jax.jit``, ``jax.checkpoint``, ``lax`` bodies,
``jax.eval_shape``) make it; under ``jax.vmap`` or ``jax.grad`` alone operations run on the
concrete array."""
State = None | str | tuple["State", ...]
"""What the walk knows of a value: None (undecided), ``TRACED``, ``MASK``, ``CANDIDATE``,
``ITEM``, ``ARRAY``, or a tuple of states."""
Followed = tuple[FuncDef, tuple[tuple[str, State], ...], tuple[tuple[str, State], ...]]
"""A helper with the states of its parameters and, for one defined in the walked body, of its
closure's names, as the walk followed it."""

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
"""Methods that compute on every call, so that called on a concrete array (``ARRAY``) under a
staging transform they give a tracer; others may return the array itself (``astype`` to its own
dtype) or a Python value (``is_deleted``)."""
SHAPE_METHODS: Final = frozenset({"reshape"})
"""Methods of ``jax.Array`` whose arguments are a shape: a tracer there raises ``TypeError``."""
SIZE_PARAMETERS: Final[dict[str, tuple[str, tuple[tuple[int, str], ...]]]] = {
    **{fullnames.JNP + name: ("TypeError", ((0, "shape"),)) for name in ("zeros", "ones", "empty", "full")},
    **{fullnames.JNP + name: ("TypeError", ((2, "shape"),)) for name in ("zeros_like", "ones_like", "empty_like")},
    fullnames.JNP + "full_like": ("TypeError", ((3, "shape"),)),
    fullnames.JNP + "eye": ("TypeError", ((0, "N"), (1, "M"))),
    fullnames.JNP + "identity": ("TypeError", ((0, "n"),)),
    fullnames.JNP + "tri": ("TypeError", ((0, "N"), (1, "M"))),
    fullnames.JNP + "reshape": ("TypeError", ((1, "shape"), (-1, "newshape"))),
    fullnames.JNP + "broadcast_to": ("TypeError", ((1, "shape"),)),
    fullnames.JNP + "arange": ("ConcretizationTypeError", ((0, "start"), (1, "stop"), (2, "step"))),
    **{fullnames.JNP + name: ("ConcretizationTypeError", ((2, "num"),)) for name in ("linspace", "logspace", "geomspace")},
    **{fullnames.JNP + name: ("ConcretizationTypeError", ((1, "indices_or_sections"),)) for name in ("split", "array_split")},
    fullnames.JNP + "tile": (
        "TypeError" if release.at_least(release.TILE_RAISES_TYPE_ERROR) else "TracerArrayConversionError",
        ((1, "reps"),),
    ),
    **{module + name: ("TypeError", ((1, "shape"),)) for module in fullnames.RANDOM_MODULES for name in ("normal", "uniform", "randint")},
    **{module + "bernoulli": ("TypeError", ((2, "shape"),)) for module in fullnames.RANDOM_MODULES},
    **{
        module + name: ("TypeError", ((3, "shape"),)) for module in fullnames.RANDOM_MODULES for name in ("categorical", "truncated_normal")
    },
    **{module + "split": ("TypeError", ((1, "num"),)) for module in fullnames.RANDOM_MODULES},
    **{name: ("ConcretizationTypeError", ((1, "num_classes"),)) for name in fullnames.NN_ONE_HOT},
    **{fullnames.OPS_SCATTER + name: ("ConcretizationTypeError", ((2, "num_segments"),)) for name in ("segment_sum", "segment_max")},
    fullnames.LAX_CORE + "full": ("TypeError", ((0, "shape"),)),
    fullnames.LAX_CORE + "iota": ("TypeError", ((1, "size"),)),
    fullnames.LAX_SLICING + "dynamic_slice": ("TypeError", ((2, "slice_sizes"),)),
    fullnames.LAX_SLICING + "dynamic_slice_in_dim": ("TracerIntegerConversionError", ((2, "slice_size"),)),
    fullnames.JNP + "repeat": ("ConcretizationTypeError", ((1, "repeats"),)),
    fullnames.JNP + "resize": (
        "ValueError" if release.at_least(release.RESIZE_RAISES_VALUE_ERROR) else "TracerIntegerConversionError",
        ((1, "new_shape"),),
    ),
    fullnames.LAX_SLICING + "slice": (
        "TypeError" if release.at_least(release.STATIC_PARAMETERS_HASHED) else "TracerArrayConversionError",
        ((1, "start_indices"), (2, "limit_indices"), (3, "strides")),
    ),
    **{
        fullnames.LAX_CORE + name: (
            "TracerBoolConversionError"
            if release.at_least(release.BROADCAST_COMPARES_SHAPES)
            else "TypeError"
            if release.at_least(release.STATIC_PARAMETERS_HASHED)
            else "TracerArrayConversionError",
            ((1, places),),
        )
        for name, places in (("broadcast", "sizes"), ("broadcast_in_dim", "shape"))
    },
}
"""JAX functions with a parameter that is a shape or a size, each with what JAX raises when a
tracer is given there under ``jax.jit`` (measured on JAX 0.4.31, 0.7.2, 0.10.2 and 0.12.0.1,
``tests/test_traced_tables.py``), and the parameters, by position and by name (``-1``: by name
only). The ``*_like`` functions take ``shape`` after ``dtype`` (``full_like`` after ``fill_value`` too)."""
SIZE_FIXED_BY: Final = {fullnames.JNP + "repeat": "total_repeat_length"}
"""Entries of ``SIZE_PARAMETERS`` whose size parameter stops being one when this keyword is given
(``jnp.repeat(x, n, total_repeat_length=6)`` runs)."""
NUMBER_ONLY_OPERATORS: Final = frozenset({"-", "/", "//", "**", "@", "%"})
"""Operators no list, dict or tuple supports: with a ``CANDIDATE`` operand, a tracer."""
ORDER_OPERATORS: Final = frozenset({"<", "<=", ">", ">="})
PYTHON_SEQUENCES: Final = frozenset({"builtins.list", "builtins.tuple"})
CONVERTING_METHODS: Final = frozenset({"item", "tolist"})
SHAPE_MAKING_METHODS: Final = frozenset({"nonzero"})
SHAPE_MAKING_FUNCTIONS: Final = frozenset(
    f"jax.numpy.{name}"
    for name in (
        "nonzero",
        "argwhere",
        "flatnonzero",
        "unique",
        "unique_values",
        "unique_counts",
        "unique_inverse",
        "unique_all",
        "union1d",
        "setdiff1d",
        "extract",
        "compress",
    )
)
"""Functions whose result's shape depends on the values of their input unless ``size=`` fixes
it; each takes ``size=`` in every supported JAX release (``intersect1d`` and ``setxor1d`` gained
it later, and are left out)."""
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
PRINTERS: Final = frozenset({"builtins.print"})
LOOP_PASSES: Final = 2
HELPER_DEPTH: Final = 3
"""How many calls deep the walk follows helpers from the transformed function."""

BOOL: Final = "bool"
CONVERT: Final = "convert"
INDEX: Final = "index"
NUMPY_SITE: Final = "numpy"
BOOLEAN_MASK: Final = "mask"
SIZE: Final = "size"
SHAPE_ARGUMENT: Final = "shape argument"
SLICE: Final = "slice"
"""The kinds of site: a truth test, ``int()``-like conversion, ``__index__``, NumPy conversion,
a boolean-mask index, a shape-making call without ``size=``, a traced shape or size given to a
JAX function (``jnp.zeros(n)``, ``x.reshape(n, -1)``), a slice of an array with a traced
bound or step (``x[:n]``)."""


class Site:
    """One place that needs the Python value of a tracer."""

    __slots__ = ("kind", "node", "value", "construct", "printing", "callee", "raises", "trail")

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


def merge(a: State, b: State) -> State:
    if a == b:
        return a
    if CANDIDATE in (a, b) and {a, b} <= {CANDIDATE, TRACED, MASK}:
        return CANDIDATE
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(merge(x, y) for x, y in zip(a, b))
    if {a, b} == {TRACED, MASK}:
        return TRACED
    if ARRAY in (a, b) and {a, b} <= {ARRAY, TRACED, MASK}:
        return ARRAY  # an operation on either is traced
    return None


def is_traced(state: State) -> bool:
    return state in (TRACED, MASK)


def staged_by_operation(state: State) -> bool:
    """Whether an operation on the value (an operator, an index, an array method) gives a
    tracer: a tracer's, or a concrete array's that the function stages (``ARRAY``)."""
    return is_traced(state) or state == ARRAY


def holds_tracers(state: State) -> bool:
    """A tracer, or a ``CANDIDATE`` (a tracer or a pytree of them), or a tuple holding one."""
    if isinstance(state, tuple):
        return any(holds_tracers(item) for item in state)
    return state in (TRACED, MASK, CANDIDATE)


def is_number(node: Expression) -> bool:
    """A number as written (``2``, ``0.5``, ``-1``): what no list, dict or tuple is compared
    with or added to."""
    if isinstance(node, UnaryExpr) and node.op in ("-", "+"):
        node = node.expr
    return isinstance(node, (IntExpr, FloatExpr))


def python_sequence(node: Expression) -> bool:
    """A list or tuple as written, or a module-level name of one (``SCALES = [1.0, 2.0]``):
    indexing it with a tracer needs the tracer's Python value."""
    if isinstance(node, (ListExpr, TupleExpr)):
        return True
    if isinstance(node, NameExpr) and node.kind == GDEF and isinstance(node.node, Var) and node.node.type is not None:
        proper = get_proper_type(node.node.type)
        return isinstance(proper, TupleType) or (
            isinstance(proper, Instance) and proper.type.fullname in ("builtins.list", "builtins.tuple")
        )
    return False


Env = dict[str, State]


def merge_envs(envs: list[Env]) -> Env:
    if not envs:
        return {}
    return {name: merge_all([env.get(name) for env in envs]) for name in set().union(*envs)}


def merge_all(states: list[State]) -> State:
    """What the walk knows of a value that may be any of ``states`` (undecided for none)."""
    state = states[0] if states else None
    for other in states[1:]:
        state = merge(state, other)
    return state


def returned_type(node: object) -> Type | None:
    """The return type a callee is declared with (every item of an overload must agree)."""
    signature: Type | None = None
    if isinstance(node, Decorator):
        signature = node.var.type or node.func.type
    elif isinstance(node, (FuncDef, OverloadedFuncDef)):
        signature = node.type
    elif isinstance(node, Var) and node.type is not None:
        proper = get_proper_type(node.type)
        if isinstance(proper, Instance):
            call = proper.type.get_method("__call__")
            signature = call.type if call is not None else None
    callee = get_proper_type(signature) if signature is not None else None
    if isinstance(callee, CallableType):
        return callee.ret_type
    if isinstance(callee, Overloaded):
        returns = [get_proper_type(item.ret_type) for item in callee.items]
        return returns[0] if returns and all(r == returns[0] for r in returns) else None
    return None


def array_state(typ: Type | None) -> State:
    """``TRACED`` for a declared ``jax.Array``, a tuple of states for a tuple of them."""
    if types.is_array(typ):
        return TRACED
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, TupleType):
        return tuple(array_state(item) for item in proper.items)
    return None


def jitted_by_jax(node: object) -> bool:
    """A function of JAX's own that JAX jits (``jnp.linalg.norm``, ``jnp.fft.fft``: defined in
    ``.py`` files under ``@jit``, typed ``JitWrapped``, whose calls mypy types ``Any``): it
    returns arrays (a tuple of them for ``svd``, each a tracer under a transform)."""
    typ = node.var.type if isinstance(node, Decorator) else node.type if isinstance(node, Var) else None
    fullname = node.fullname if isinstance(node, (Decorator, Var)) else ""
    return fullname.startswith(fullnames.JAX_PACKAGE) and types.instance_of(typ, fullnames.JIT_WRAPPED)


def is_ufunc(node: object) -> bool:
    """A NumPy ufunc object (``np.tanh``): it converts its operands with ``__array__``."""
    return isinstance(node, Var) and types.instance_of(node.type, fullnames.NUMPY_UFUNC)


class Walk:
    """The walk of one transformed function, and of the helpers it calls with tracers;
    ``sites`` holds what it found."""

    def __init__(
        self, transformed: TransformedFunction, module: str, followed: dict[Followed, State] | None = None, depth: int = 0
    ) -> None:
        self.transformed = transformed
        self.staged = transformed.staged
        self.module = module
        """The checked module: only its own functions are followed as helpers (a change to one
        makes mypy check the module again, incrementally and in the daemon alike)."""
        self.followed: dict[Followed, State] = {} if followed is None else followed
        """Each helper walked with a set of argument states, with what it returns: walked once
        per transform, and not again on recursion (None while it is being walked)."""
        self.depth = depth
        self.sites: dict[tuple[str, int, int], Site] = {}
        self.printing = 0
        self.guarded = 0
        """How many ``try`` bodies with handlers the walk is in: sites there are not recorded."""
        self.outside: set[str] = set()
        """Names declared ``global`` or ``nonlocal``: never local values."""
        self.returned: list[State] = []
        self.defined: set[FuncDef] = set()
        """The functions defined in the walked body: followed when called there, with the
        closure's states."""

    def run(self) -> list[Site]:
        leaf = ITEM if self.transformed.arrays_only else CANDIDATE
        env: Env = {name: leaf for name in self.transformed.leaf_parameters}
        env.update({name: TRACED for name in self.transformed.traced_parameters})
        self.body(self.transformed.function, env)
        return sorted(self.sites.values(), key=lambda site: (site.node.line, site.node.column))

    def body(self, function: FuncItem, env: Env) -> State:
        """Walk ``function``'s body from ``env``; the state of what it returns."""
        if not self.block(function.body, env):
            self.returned.append(None)
        return merge_all(self.returned)

    def follow(self, node: CallExpr, args: list[State], env: Env) -> tuple[State] | None:
        """A call of a plain function of the checked module with tracers (or staged arrays,
        ``ARRAY``) among its arguments (a helper): walk its body with the arguments' states on
        its parameters, and keep its sites with the call on their trail. A function defined in
        the walked body sees its closure's states at the call. None where the call is not
        followed: another module's function, a method, a decorated function, a generator,
        arguments passed with ``*`` or ``**``, past ``HELPER_DEPTH`` calls."""
        function = node.callee.node if isinstance(node.callee, NameExpr) else None
        if not isinstance(function, FuncDef) or self.depth >= HELPER_DEPTH:
            return None
        local = function in self.defined
        if not local and function.fullname != f"{self.module}.{function.name}":
            return None
        if function.is_generator or function.is_coroutine or function.is_async_generator or function is self.transformed.function:
            return None
        if function.is_conditional:
            return None  # defined under "if": a variant of it may be the one called
        parameters = passed_to(function, node, args)
        if parameters is None:
            return None
        closure = {name: state for name, state in env.items() if name not in parameters} if local else {}
        if not any(holds_tracers(state) or state == ARRAY for state in (*parameters.values(), *closure.values())):
            return None
        for name, state in parameters.items():
            if state == CANDIDATE and traceable(declared_type(function, name)):
                parameters[name] = TRACED  # the helper declares it an array or a number
        key = (
            function,
            tuple(sorted(parameters.items(), key=lambda item: item[0])),
            tuple(sorted(closure.items(), key=lambda item: item[0])),
        )
        if key in self.followed:
            return (self.followed[key],)
        self.followed[key] = None
        helper = Walk(self.transformed, self.module, self.followed, self.depth + 1)
        returned = helper.body(function, {**closure, **parameters})
        self.followed[key] = returned
        for found, site in helper.sites.items():
            site.trail = ((node, function), *site.trail)
            self.sites.setdefault(found, site)
        return (returned,)

    def from_outside(self, node: NameExpr) -> State:
        """A name the walk does not bind: a module global, a closure's variable, a parameter
        left at its default. A ``jax.Array`` (as mypy has typed it so far) is ``ARRAY`` where
        the function is staged; anything else is undecided."""
        if self.staged and isinstance(node.node, Var) and types.is_array(node.node.type):
            return ARRAY
        return None

    def array_field(self, node: MemberExpr) -> State:
        """``self.std`` in a staged method, for an attribute its class declares (or mypy has
        inferred so far) as a ``jax.Array``: a tracer where ``self`` is a traced pytree, a
        concrete array where it is static; an operation on it is traced either way (``ARRAY``)."""
        function = self.transformed.function
        receiver = receiver_of(function)
        if self.depth or not self.staged or receiver is None or not isinstance(node.expr, NameExpr) or node.expr.name != receiver:
            return None
        assert isinstance(function, FuncDef)  # receiver_of says so
        found = function.info.get(node.name)
        return ARRAY if found is not None and isinstance(found.node, Var) and types.is_array(found.node.type) else None

    # Sites

    def on_some_paths(self, arms: list[Expression], env: Env) -> list[State]:
        """The states of ``arms``, each evaluated on some paths only (the arms of a conditional
        expression, the right of ``and``/``or``, which the left may skip): what one proves or
        binds holds after them only where all paths agree (``x.sum() if isinstance(x, jax.Array)
        else ...`` proves nothing of ``x``)."""
        ends = [dict(env) for _ in arms]
        states = [self.value(arm, end) for arm, end in zip(arms, ends)]
        if len(arms) == 1:
            ends.append(dict(env))  # the path that skipped the arm
        merged = merge_envs(ends)
        env.clear()
        env.update(merged)
        return states

    def proven(self, node: Expression, env: Env) -> None:
        """A local ``CANDIDATE`` that a use has just proven a tracer (``x > 0``, ``x.sum()``: a
        list or a dict raises there) holds one from here on this path. (An ``ITEM`` may be a
        Python number, which has ``.conjugate()``: it stays as it is.)"""
        if isinstance(node, NameExpr) and node.kind == LDEF and node.name not in self.outside and env.get(node.name) == CANDIDATE:
            env[node.name] = TRACED

    def site(self, kind: str, node: Expression, value: Expression, construct: str, callee: str = "", raises: str = "") -> None:
        if self.guarded or (self.transformed.differentiated and not raises_under_grad(kind, construct)):
            return
        key = (kind, node.line, node.column)
        if key not in self.sites:
            self.sites[key] = Site(kind, node, value, construct, self.printing > 0, callee, raises)

    def test(self, node: Expression, construct: str, env: Env) -> None:
        """``node`` is tested for truth by ``construct``: each operand of ``and``/``or``/``not``
        is, when it is reached."""
        if isinstance(node, OpExpr) and node.op in ("and", "or"):
            self.test(node.left, construct, env)
            self.test(node.right, construct, env)
        elif isinstance(node, UnaryExpr) and node.op == "not":
            self.test(node.expr, construct, env)
        elif is_traced(self.value(node, env)):
            self.site(BOOL, node, node, construct)

    # Statements

    def block(self, block: Block, env: Env) -> bool:
        """Walk the statements of ``block``; True when it ends the flow (return, raise, ...)."""
        if block.is_unreachable:
            return True
        for statement in block.body:
            if self.statement(statement, env):
                return True
        return False

    def statement(self, node: Statement, env: Env) -> bool:
        if isinstance(node, ExpressionStmt):
            self.value(node.expr, env)
        elif isinstance(node, AssignmentStmt):
            state = self.value(node.rvalue, env)
            for target in node.lvalues:
                self.bind(target, state, env)
        elif isinstance(node, OperatorAssignmentStmt):
            state = self.operator(node.op, self.value(node.lvalue, env), self.value(node.rvalue, env))
            self.bind(node.lvalue, state, env)
        elif isinstance(node, IfStmt):
            return self.if_statement(node, env)
        elif isinstance(node, WhileStmt):
            self.loop(node, env)
        elif isinstance(node, ForStmt):
            self.loop(node, env)
        elif isinstance(node, WithStmt):
            self.with_statement(node, env)
        elif isinstance(node, TryStmt):
            self.try_statement(node, env)
        elif isinstance(node, AssertStmt):
            self.test(node.expr, '"assert"', env)
            if node.msg is not None:
                self.value(node.msg, env)
        elif isinstance(node, ReturnStmt):
            self.returned.append(self.value(node.expr, env) if node.expr is not None else None)
            return True
        elif isinstance(node, RaiseStmt):
            return True
        elif isinstance(node, (BreakStmt, ContinueStmt)):
            return True
        elif isinstance(node, (FuncDef, Decorator, OverloadedFuncDef, ClassDef)):
            env[node.name] = None
            if isinstance(node, FuncDef):
                self.defined.add(node)
        elif isinstance(node, (GlobalDecl, NonlocalDecl)):
            self.outside.update(node.names)
        elif isinstance(node, DelStmt):
            self.bind(node.expr, None, env)
        elif isinstance(node, Block):
            return self.block(node, env)
        # Anything else (match, import, pass, ...) binds nothing the walk follows.
        return False

    def if_statement(self, node: IfStmt, env: Env) -> bool:
        ends: list[Env] = []
        for name in (name for condition in node.expr for name in isinstance_names(condition)):
            env[name] = None
        # "if cache is None:" on a closure's or a global's name picks a mode of a function that
        # also runs outside the transform (build, then update under jax.lax.cond): which branch
        # the transform sees is not known, so neither branch's sites are recorded
        modes = any(outside_none_test(condition, env) for condition in node.expr)
        self.guarded += modes
        try:
            for condition, body in zip(node.expr, node.body):
                self.test(condition, '"if"', env)
                branch = dict(env)
                if not self.block(body, branch):
                    ends.append(branch)
            if node.else_body is not None:
                branch = dict(env)
                if not self.block(node.else_body, branch):
                    ends.append(branch)
            else:
                ends.append(dict(env))
        finally:
            self.guarded -= modes
        env.clear()
        env.update(merge_envs(ends) if ends else {})
        return not ends

    def loop(self, node: WhileStmt | ForStmt, env: Env) -> None:
        before = dict(env)
        for _ in range(LOOP_PASSES):
            if isinstance(node, WhileStmt):
                self.test(node.expr, '"while"', env)
            else:
                self.bind(node.index, self.iterated(node.expr, env), env)
            body = dict(env)
            self.block(node.body, body)
            env.clear()
            env.update(merge_envs([before, body]))
        if node.else_body is not None:
            self.block(node.else_body, env)

    def iterated(self, node: Expression, env: Env) -> State:
        """The state of each item a ``for`` takes from ``node``."""
        if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and node.callee.fullname == "builtins.range":
            self.value(node, env)
            return None
        state = self.value(node, env)
        # the items of an array are tracers; those of a pytree argument are leaves or pytrees,
        # but iterating a dict gives its keys, Python values
        return TRACED if is_traced(state) else ITEM if state == CANDIDATE else None

    def with_statement(self, node: WithStmt, env: Env) -> None:
        for expr in node.expr:
            if (
                isinstance(expr, CallExpr)
                and isinstance(expr.callee, RefExpr)
                and expr.callee.fullname == fullnames.ENSURE_COMPILE_TIME_EVAL
            ):
                for name in statements.assigned_names(node.body):
                    env[name] = None
                return
        for expr, target in zip(node.expr, node.target):
            self.value(expr, env)
            if target is not None:
                self.bind(target, None, env)
        self.block(node.body, env)

    def try_statement(self, node: TryStmt, env: Env) -> None:
        before = dict(env)
        self.guarded += bool(node.handlers)  # a handler may catch what JAX raises (a TypeError)
        try:
            self.block(node.body, env)
        finally:
            self.guarded -= bool(node.handlers)
        ends = [dict(env)]
        for handler in node.handlers:
            branch = merge_envs([before, env])
            self.block(handler, branch)
            ends.append(branch)
        env.clear()
        env.update(merge_envs(ends))
        if node.else_body is not None:
            self.block(node.else_body, env)
        if node.finally_body is not None:
            self.block(node.finally_body, env)

    def bind(self, target: Expression, state: State, env: Env) -> None:
        if isinstance(target, NameExpr):
            if target.name not in self.outside:
                env[target.name] = state
        elif isinstance(target, (TupleExpr, ListExpr)):
            items = target.items
            if isinstance(state, tuple) and len(state) == len(items) and not any(isinstance(i, StarExpr) for i in items):
                for item, item_state in zip(items, state):
                    self.bind(item, item_state, env)
            else:
                for item in items:
                    self.bind(item, TRACED if is_traced(state) and not isinstance(item, StarExpr) else None, env)
        elif isinstance(target, StarExpr):
            self.bind(target.expr, None, env)
        elif isinstance(target, IndexExpr):
            self.value(target.base, env)
            self.value(target.index, env)
        elif isinstance(target, MemberExpr):
            self.value(target.expr, env)

    # Expressions

    def value(self, node: Expression, env: Env) -> State:
        """The state of ``node``'s value; sites inside it are recorded on the way."""
        if isinstance(node, NameExpr):
            if node.kind == LDEF and node.name not in self.outside and node.name in env:
                return env[node.name]
            return self.from_outside(node)
        if isinstance(node, MemberExpr):
            base = self.value(node.expr, env)
            if node.name in CONCRETE_ATTRIBUTES:
                return None
            if base == ARRAY:
                return None  # some attributes are Python values of the concrete array (".is_fully_replicated")
            return TRACED if is_traced(base) else self.array_field(node)
        if isinstance(node, IndexExpr):
            return self.index(node, env)
        if isinstance(node, CallExpr):
            return self.call(node, env)
        if isinstance(node, OpExpr):
            if node.op in ("and", "or"):
                self.test(node.left, f'"{node.op}"', env)
                self.on_some_paths([node.right], env)
                return None
            return self.operator(node.op, self.value(node.left, env), self.value(node.right, env), node.left, node.right)
        if isinstance(node, ComparisonExpr):
            return self.comparison(node, env)
        if isinstance(node, UnaryExpr):
            if node.op == "not":
                self.test(node.expr, '"not"', env)
                return None
            state = self.value(node.expr, env)
            if node.op == "~":
                return MASK if state == MASK else (TRACED if holds_tracers(state) or state == ARRAY else None)
            return TRACED if holds_tracers(state) or state == ARRAY else None
        if isinstance(node, ConditionalExpr):
            self.test(node.cond, "a conditional expression", env)
            return merge_all(self.on_some_paths([node.if_expr, node.else_expr], env))
        if isinstance(node, TupleExpr):
            return tuple(self.value(item, env) for item in node.items)
        if isinstance(node, ListExpr):
            for item in node.items:
                self.value(item, env)
            return None
        if isinstance(node, (ListComprehension, SetComprehension)):
            self.comprehension(node.generator, env)
            return None
        if isinstance(node, GeneratorExpr):
            self.comprehension(node, env)
            return None
        if isinstance(node, DictionaryComprehension):
            return None
        if isinstance(node, AssignmentExpr):
            state = self.value(node.value, env)
            self.bind(node.target, state, env)
            return state
        if isinstance(node, StarExpr):
            self.value(node.expr, env)
            return None
        if isinstance(node, YieldExpr) and node.expr is not None:
            self.value(node.expr, env)
            return None
        return None  # literals, lambdas (not walked), and what else the walk does not follow

    def operator(
        self, op: str, left: State, right: State, left_node: Expression | None = None, right_node: Expression | None = None
    ) -> State:
        if op in ("&", "|", "^") and MASK in (left, right) and all(s in (MASK, None) for s in (left, right)):
            return MASK
        if staged_by_operation(left) or staged_by_operation(right):
            return TRACED
        if CANDIDATE not in (left, right):
            return None
        if op == "%" and isinstance(left_node, StrExpr):
            return None  # "layer_%s" % i formats a string
        if op in NUMBER_ONLY_OPERATORS:
            return TRACED
        other = right_node if left == CANDIDATE else left_node
        if op == "+" and other is not None and is_number(other):
            return TRACED  # a list or tuple is not added to a number
        if op == "*" and isinstance(other, FloatExpr):
            return TRACED  # a list or tuple is repeated by an int only
        return CANDIDATE if left == right == CANDIDATE or op in ("+", "*", "|") else None

    def comparison(self, node: ComparisonExpr, env: Env) -> State:
        states = [self.value(operand, env) for operand in node.operands]
        if any(op in ("is", "is not", "in", "not in") for op in node.operators):
            return None
        pairs = []
        for op, a, b, left, right in zip(node.operators, states, states[1:], node.operands, node.operands[1:]):
            proof = op in ORDER_OPERATORS and CANDIDATE in (a, b) and ordered(a, b, left, right)
            if proof:
                self.proven(left if a == CANDIDATE else right, env)
            pairs.append(staged_by_operation(a) or staged_by_operation(b) or proof)
        if len(pairs) > 1 and pairs[0]:
            self.site(BOOL, node, node, "a chained comparison")
        return MASK if any(pairs) else None

    def index(self, node: IndexExpr, env: Env) -> State:
        base = self.value(node.base, env)
        if isinstance(node.index, SliceExpr):
            parts = [part for part in (node.index.begin_index, node.index.end_index, node.index.stride) if part is not None]
            traced_part = next((part for part, state in ((part, self.value(part, env)) for part in parts) if holds_tracers(state)), None)
            if traced_part is not None and staged_by_operation(base):
                self.site(SLICE, node, traced_part, "slicing")
            return TRACED if staged_by_operation(base) else None
        index = self.value(node.index, env)
        if base == CANDIDATE and isinstance(node.base, NameExpr):
            base = self.value(node.base, env)  # the index may have proven it an array: "x[x > 0]"
        if index == MASK and staged_by_operation(base):
            self.site(BOOLEAN_MASK, node, node.index, "indexing")
        if holds_tracers(index) and python_sequence(node.base):
            self.site(INDEX, node, node.index, "indexing a Python sequence")
        if isinstance(base, tuple):
            position = int_literal(node.index)
            if position is not None and -len(base) <= position < len(base):
                return base[position]
            return None
        if base == CANDIDATE:
            return CANDIDATE  # an item of a pytree: a leaf or a pytree again
        return TRACED if staged_by_operation(base) else None

    def call(self, node: CallExpr, env: Env) -> State:
        callee = node.callee
        fullname = (callee.fullname or "") if isinstance(callee, RefExpr) else ""
        printing = fullname in PRINTERS or is_format_call(callee)
        self.printing += printing
        try:
            # a method's receiver (mypy may name the method it resolves: "....Array.reshape");
            # a module's attribute (jnp.zeros) reads as undecided
            receiver = self.value(callee.expr, env) if isinstance(callee, MemberExpr) else None
            args = [self.value(arg, env) for arg in node.args]
        finally:
            self.printing -= printing
        positional = [(arg, state) for arg, state, kind in zip(node.args, args, node.arg_kinds) if kind == ARG_POS]
        first = positional[0] if positional else None
        traced_args = any(holds_tracers(state) for state in args)
        if receiver in (CANDIDATE, ITEM) and isinstance(callee, MemberExpr) and callee.name in ARRAY_METHODS:
            receiver = TRACED  # only an array has this method
            self.proven(callee.expr, env)
        if fullname == "builtins.bool" and first and is_traced(first[1]):
            self.site(BOOL, node, first[0], '"bool()"')
            return None
        if fullname in CONVERTERS and first and holds_tracers(first[1]):
            self.site(CONVERT, node, first[0], CONVERTERS[fullname])
            return None
        if fullname.startswith("math.") and fullname[len("math.") :] in MATH_FUNCTIONS:
            operand = next((arg for arg, state in positional if holds_tracers(state)), None)
            if operand is not None:
                self.site(CONVERT, node, operand, called_as(callee, fullname), callee=fullname)
            return None
        if fullname == "builtins.range":
            for arg, state in positional:
                if holds_tracers(state):
                    self.site(INDEX, node, arg, '"range()"')
                    break
            return None
        numpy_converter = fullname.startswith("numpy.") and fullname.rpartition(".")[2] in NUMPY_CONVERTERS
        if (numpy_converter or (isinstance(callee, RefExpr) and is_ufunc(callee.node))) and first and is_traced(first[1]):
            self.site(NUMPY_SITE, node, first[0], called_as(callee, fullname), callee=fullname)
            return None
        if receiver == ARRAY and isinstance(callee, MemberExpr) and callee.name not in ARRAY_STAGING_METHODS | SHAPE_METHODS:
            return None  # "W.item()" runs on the concrete array, "W.astype(W.dtype)" may return it, "W.is_deleted()" is Python
        if staged_by_operation(receiver) and isinstance(callee, MemberExpr) and callee.name in SHAPE_METHODS:
            traced_size = next((arg for arg, state in zip(node.args, args) if holds_tracers(state)), None)
            if traced_size is not None:
                self.site(SHAPE_ARGUMENT, node, traced_size, f'".{callee.name}()"', fullnames.ARRAY, "TypeError")
        if staged_by_operation(receiver) and isinstance(callee, MemberExpr):
            if callee.name in CONVERTING_METHODS:
                self.site(CONVERT, node, callee.expr, f'".{callee.name}()"')
                return None
            if callee.name in SHAPE_MAKING_METHODS and "size" not in node.arg_names:
                self.site(SIZE, node, callee.expr, f'".{callee.name}()"')
            return TRACED
        if fullname in SIZE_PARAMETERS and not (fullname in SIZE_FIXED_BY and SIZE_FIXED_BY[fullname] in node.arg_names):
            raises, places = SIZE_PARAMETERS[fullname]
            written = sorted({index for position, keyword in places for index in arguments.written_for(node, position, keyword)})
            traced = next((index for index in written if holds_tracers(args[index])), None)
            if traced is not None:
                size = traced_item(node.args[traced], args[traced])
                self.site(SHAPE_ARGUMENT, node, size, called_as(callee, fullname), fullname, raises)
        shape_making = fullname in SHAPE_MAKING_FUNCTIONS or (fullname == fullnames.JAX_NUMPY_WHERE and len(node.args) == 1)
        if shape_making and "size" not in node.arg_names and any(is_traced(state) for _, state in positional):
            self.site(SIZE, node, next(arg for arg, state in positional if is_traced(state)), called_as(callee, fullname))
        if not isinstance(callee, RefExpr):
            return None
        followed = self.follow(node, args, env)
        if followed is not None and followed[0] is not None:
            return followed[0]
        declared = array_state(returned_type(callee.node)) or (TRACED if jitted_by_jax(callee.node) else None)
        if declared is None:
            return None
        staged = self.staged and fullname.startswith(fullnames.JAX_PACKAGE)
        if not (staged or traced_args):
            return None
        if fullname == fullnames.JNP + "asarray" and first and first[1] == ARRAY and len(node.args) == 1:
            return ARRAY  # a concrete array comes back as it is, unstaged
        if declared == TRACED and fullname in MASK_FUNCTIONS:
            return MASK
        return declared

    def comprehension(self, node: GeneratorExpr, env: Env) -> None:
        inner = dict(env)
        for target, sequence, conditions in zip(node.indices, node.sequences, node.condlists):
            self.bind(target, self.iterated(sequence, inner), inner)
            for condition in conditions:
                self.test(condition, "a comprehension condition", inner)
        self.value(node.left_expr, inner)


def passed_to(function: FuncDef, call: CallExpr, args: list[State]) -> dict[str, State] | None:
    """The state of each parameter of ``function`` that ``call`` passes an argument to; None
    where an argument's parameter is unknown (``*args``, ``**kwargs``, a name it does not have)."""
    positional = [arg.variable.name for arg in function.arguments if arg.kind in (ARG_POS, ARG_OPT)]
    named = {arg.variable.name for arg in function.arguments if arg.kind in (ARG_POS, ARG_OPT, ARG_NAMED, ARG_NAMED_OPT)}
    found: dict[str, State] = {}
    for name, state in zip(arguments.parameters_written(call, positional), args):
        if name is None or name not in named or name in found:
            return None
        found[name] = state
    return found


def raises_under_grad(kind: str, construct: str) -> bool:
    """Whether a site raises under ``jax.grad`` alone, whose tracers hold concrete values:
    control flow, ``range()`` and masks run there; conversions to a float or to NumPy raise."""
    return kind == NUMPY_SITE or (kind == CONVERT and construct not in RUN_UNDER_GRAD)


def traced_item(node: Expression, state: State) -> Expression:
    """The part of ``node`` that holds tracers: ``n`` in ``(n, 3)``."""
    if isinstance(node, TupleExpr) and isinstance(state, tuple) and len(state) == len(node.items):
        return next((traced_item(item, item_state) for item, item_state in zip(node.items, state) if holds_tracers(item_state)), node)
    return node


def ordered(a: State, b: State, left: Expression, right: Expression) -> bool:
    """Whether an order comparison of a ``CANDIDATE`` proves it a tracer: against a number or a
    tracer (two lists compare, item by item)."""
    other, node = (b, right) if a == CANDIDATE else (a, left)
    return is_traced(other) or is_number(node)


def called_as(callee: Expression, fullname: str) -> str:
    """A callee as written, quoted with its parentheses (``"np.tanh()"``)."""
    return f'"{source(callee) or fullname}()"'


def is_format_call(callee: Expression) -> bool:
    """``"...".format(...)``, which f-strings become in mypy's tree, and ``"".join``."""
    return isinstance(callee, MemberExpr) and isinstance(callee.expr, StrExpr) and callee.name in ("format", "join")


def outside_none_test(condition: Expression, env: Env) -> bool:
    """``name is None`` or ``name is not None`` for a name the walk does not bind (a closure's,
    a global's)."""
    return (
        isinstance(condition, ComparisonExpr)
        and condition.operators in (["is"], ["is not"])
        and isinstance(condition.operands[0], NameExpr)
        and condition.operands[0].name not in env
        and isinstance(condition.operands[1], NameExpr)
        and condition.operands[1].fullname == "builtins.None"
    )


def isinstance_names(condition: Expression) -> list[str]:
    """Names an ``isinstance(name, ...)`` in ``condition`` tests: a tracer passes some such
    tests (``jax.Array``) and fails others (``float``), so which branch, and which code after
    the ``if``, runs with one is undecided (a helper that returns early for an array and
    converts a Python number after)."""
    found = []
    pending = [condition]
    while pending:
        node = pending.pop()
        if isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and node.callee.fullname == "builtins.isinstance":
            if node.args and isinstance(node.args[0], NameExpr):
                found.append(node.args[0].name)
        elif isinstance(node, OpExpr):
            pending += [node.left, node.right]
        elif isinstance(node, UnaryExpr):
            pending.append(node.expr)
    return found
