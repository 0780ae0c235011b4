"""The value model of the traced-value walk: what it knows of each value, and how that combines.

A value is a tracer (``TRACED``, a ``TRACED_MASK`` of booleans), maybe one (``CANDIDATE``,
``ITEM``), a concrete array whose operations JAX stages (``CONCRETE_ARRAY``), a tuple of such
states, or undecided (None), which is never reported. Where paths meet, states merge
(``merge``): what every path agrees on, or the weaker claim that still holds on each.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    GDEF,
    Decorator,
    DictExpr,
    Expression,
    FloatExpr,
    FuncDef,
    IntExpr,
    ListExpr,
    NameExpr,
    OverloadedFuncDef,
    TupleExpr,
    TypeInfo,
    UnaryExpr,
    Var,
)
from mypy.types import CallableType, Instance, Overloaded, TupleType, Type, get_proper_type

from mypy_plugin.lib import fullnames, types

TRACED: Final = "traced"
TRACED_MASK: Final = "traced mask"
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
CONCRETE_ARRAY: Final = "concrete array"
"""A concrete ``jax.Array`` from outside the staged function (a module global, a closure's
variable, a static ``self``'s field): a bare reference stays concrete, but JAX stages an
operator, an index or a computing method on it (``sites.ARRAY_STAGING_METHODS``), whose result
is a tracer; its attributes and other methods are left undecided. Only staging transforms
(``TransformedFunction.staged``: ``jax.jit``, ``jax.checkpoint``, ``lax`` bodies,
``jax.eval_shape``) make it; under ``jax.vmap`` or ``jax.grad`` alone operations run on the
concrete array."""
PYTHON_LIST: Final = "python list"
PYTHON_DICT: Final = "python dict"
"""A Python list (or a list comprehension's) and a dict made in the walked function
(``dist = []``, ``table = {}``): indexing either with a tracer raises (``__index__``, a hash)."""
State = None | str | TypeInfo | tuple["State", ...]
"""What the walk knows of a value: None (undecided), one of the states above, an instance of a
class (its ``TypeInfo``, for what calling it returns), or a tuple of them."""
Env = dict[str, State]
"""What the walk knows of each local name on one path."""


def merge(a: State, b: State) -> State:
    """What holds of a value that is ``a`` on one path and ``b`` on another."""
    if a == b:
        return a
    if CANDIDATE in (a, b) and {a, b} <= {CANDIDATE, TRACED, TRACED_MASK}:
        return CANDIDATE
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(merge(x, y) for x, y in zip(a, b))
    if {a, b} == {TRACED, TRACED_MASK}:
        return TRACED
    if CONCRETE_ARRAY in (a, b) and {a, b} <= {CONCRETE_ARRAY, TRACED, TRACED_MASK}:
        return CONCRETE_ARRAY  # an operation on either is traced
    return None


def merge_all(states: list[State]) -> State:
    """What the walk knows of a value that may be any of ``states`` (undecided for none)."""
    state = states[0] if states else None
    for other in states[1:]:
        state = merge(state, other)
    return state


def merge_envs(envs: list[Env]) -> Env:
    if not envs:
        return {}
    return {name: merge_all([env.get(name) for env in envs]) for name in set().union(*envs)}


def is_traced(state: State) -> bool:
    return state in (TRACED, TRACED_MASK)


def staged_by_operation(state: State) -> bool:
    """Whether an operation on the value (an operator, an index, an array method) gives a
    tracer: a tracer's, or a concrete array's that the function stages (``CONCRETE_ARRAY``)."""
    return is_traced(state) or state == CONCRETE_ARRAY


def holds_tracers(state: State) -> bool:
    """A tracer, or a ``CANDIDATE`` (a tracer or a pytree of them), or a tuple holding one."""
    if isinstance(state, tuple):
        return any(holds_tracers(item) for item in state)
    return state in (TRACED, TRACED_MASK, CANDIDATE)


def is_number(node: Expression) -> bool:
    """A number as written (``2``, ``0.5``, ``-1``): what no list, dict or tuple is compared
    with or added to."""
    if isinstance(node, UnaryExpr) and node.op in ("-", "+"):
        node = node.expr
    return isinstance(node, (IntExpr, FloatExpr))


SEQUENCE: Final = "sequence"
MAPPING: Final = "mapping"
NUMPY_ARRAY: Final = "numpy array"
"""The Python containers ``python_container`` tells apart: a tracer indexing each raises."""
CONTAINER_CLASSES: Final = {
    "builtins.list": SEQUENCE,
    "builtins.tuple": SEQUENCE,
    "builtins.dict": MAPPING,
    "numpy.ndarray": NUMPY_ARRAY,
}


def python_container(node: Expression, state: State = None) -> str | None:
    """What ``node`` is, where it is a Python list or tuple (``SEQUENCE``), a dict (``MAPPING``)
    or a NumPy array (``NUMPY_ARRAY``) as written (``[1.0, 2.0]``, ``{0: a}``) or as a module's
    name of one (``SCALES = [1.0, 2.0]``, ``TABLE = np.ones(5)``), or a local one the walk
    made (``state``: ``PYTHON_LIST``, ``PYTHON_DICT``); None for anything else."""
    if state == PYTHON_LIST:
        return SEQUENCE
    if state == PYTHON_DICT:
        return MAPPING
    if isinstance(node, (ListExpr, TupleExpr)):
        return SEQUENCE
    if isinstance(node, DictExpr):
        return MAPPING
    if isinstance(node, NameExpr) and node.kind == GDEF and isinstance(node.node, Var) and node.node.type is not None:
        proper = get_proper_type(node.node.type)
        if isinstance(proper, TupleType):
            return SEQUENCE
        return CONTAINER_CLASSES.get(proper.type.fullname) if isinstance(proper, Instance) else None
    return None


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
