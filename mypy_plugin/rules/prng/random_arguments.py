"""``jax-prng-key`` and ``jax-random-dtype`` (``docs/rules/``): how the rule finds them.

One function hook per ``jax.random`` sampler reads its key (or seed) and its dtype. Keys of type
``jax.Array`` or ``np.ndarray`` and anything typed ``Any`` are left alone. A variable declared
``float`` may hold an int (mypy lets an int stand for a float), so a seed is reported only where
the value is a float by its making (``float_by_its_making``). A key is typed ``jax.Array`` like
any array, so a key given as a seed is read from its making too (``key_by_its_making``), and so
is the array of keys ``split`` makes, given where one key goes (``keys_by_their_making``). A dtype
is read where it is written: ``jnp.float32``, ``np.int32``, ``float``, ``"int32"``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from mypy.nodes import (
    ARG_POS,
    CallExpr,
    ComplexExpr,
    Expression,
    FloatExpr,
    IndexExpr,
    NameExpr,
    OpExpr,
    RefExpr,
    StrExpr,
    TupleExpr,
    UnaryExpr,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext
from mypy.types import Instance, LiteralType, Type

from mypy_plugin.analyses import bindings
from mypy_plugin.lib import checked_module, errorcodes, fullnames, reporting
from mypy_plugin.lib.arguments import passed
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import arguments_source, source
from mypy_plugin.lib.types import PYTHON_SCALARS, members

KEY_CODE: Final = errorcodes.PRNG_KEY
DTYPE_CODE: Final = errorcodes.RANDOM_DTYPE
SHAPE_CODE: Final = errorcodes.RANDOM_SHAPE

RANDOM: Final = "jax.random"
"""Where ``jax.random``'s functions are defined: one module up to JAX 0.10.1, a package's
``core`` module from 0.10.2 (``jax/random.py`` re-exports them)."""

FLOAT, INT, UNSIGNED, BOOL, COMPLEX = "float", "int", "unsigned int", "bool", "complex"
"""Kinds of dtype (an unsigned int is also an int)."""

FLOAT_SAMPLERS: Final = (
    "uniform",
    "truncated_normal",
    "exponential",
    "gamma",
    "loggamma",
    "beta",
    "gumbel",
    "cauchy",
    "laplace",
    "logistic",
    "dirichlet",
    "pareto",
    "t",
    "chisquare",
    "f",
    "rayleigh",
    "wald",
    "weibull_min",
    "maxwell",
    "double_sided_maxwell",
    "triangular",
    "binomial",
    "multivariate_normal",
    "ball",
    "generalized_normal",
)
COMPLEX_SAMPLERS: Final = ("normal", "lognormal", "orthogonal")
"""Samplers that take a float or a complex dtype."""

USE_A_FLOAT: Final = 'Use a float dtype such as "jnp.float32"; for random integers, "jax.random.randint(key, shape, minval, maxval)"'
USE_UNIFORM: Final = 'Use an integer dtype such as "jnp.int32"; for random floats, "jax.random.uniform(key, shape, minval=..., maxval=...)"'
USE_AN_INTEGER: Final = 'Use an integer dtype such as "jnp.int32", and convert the samples with ".astype(...)" where floats are needed'
USE_UNSIGNED: Final = 'Use an unsigned dtype such as "jnp.uint32"'

DTYPES: Final[Mapping[str, tuple[frozenset[str], str, str, str]]] = {
    **{name: (frozenset({FLOAT}), "a float", "ValueError", USE_A_FLOAT) for name in FLOAT_SAMPLERS},
    **{name: (frozenset({FLOAT, COMPLEX}), "a float or complex", "ValueError", USE_A_FLOAT) for name in COMPLEX_SAMPLERS},
    "randint": (frozenset({INT, UNSIGNED}), "an integer", "TypeError", USE_UNIFORM),
    "poisson": (frozenset({INT, UNSIGNED}), "an integer", "ValueError", USE_AN_INTEGER),
    "geometric": (frozenset({INT, UNSIGNED}), "an integer", "ValueError", USE_AN_INTEGER),
    "bits": (frozenset({UNSIGNED}), "an unsigned integer", "ValueError", USE_UNSIGNED),
}
"""By function: the dtype kinds it takes, as the error says them, what JAX raises for others,
and the help."""

KEY_FIRST: Final = (
    *FLOAT_SAMPLERS,
    *COMPLEX_SAMPLERS,
    "randint",
    "poisson",
    "geometric",
    "bits",
    "bernoulli",
    "categorical",
    "choice",
    "fold_in",
    "multinomial",
    "permutation",
    "rademacher",
    "split",
)
"""The functions whose first parameter ``key`` must be one key (``clone`` checks nothing; an
array of keys raises ``ValueError`` in each, measured on JAX 0.4.31, 0.7.2 and 0.10.2)."""
KEY_PARAMETERS: Final = {**dict.fromkeys(KEY_FIRST, "key"), "key_data": "keys", "key_impl": "keys"}
SEEDED: Final = ("key", "PRNGKey")
KEY_MAKERS: Final = ("key", "PRNGKey", "fold_in", "clone", "wrap_key_data")
"""The functions that return one PRNG key: a typed key, or a raw one (an array of two or four
``uint32``), neither of which a seed may be."""
KEYS_MAKER: Final = "split"
"""Returns an array of keys: it, and an item of it, are keys; an item of a raw key is an integer."""
BINDINGS_FOLLOWED: Final = 4
"""How many variables bound to another (``key = k``) are followed to the making of a key."""

DTYPE_NAME: Final = re.compile(
    r"^(?:(?P<unsigned>uint(?:8|16|32|64)?)|(?P<int>int(?:8|16|32|64)?|int_)|(?P<float>b?float(?:16|32|64)?|float_|half|single|double)"
    r"|(?P<complex>complex(?:64|128)?|complex_|csingle|cdouble)|(?P<bool>bool_?))$"
)
DTYPE_MODULES: Final = ("numpy.", "jax.numpy.", "builtins.")
NUMPY_SCALAR: Final = "numpy.generic"
NUMPY_FLOATS: Final = ("numpy.floating", "numpy.complexfloating")
NUMPY_SCALARS: Final = {
    "numpy.integer": "a NumPy integer",
    "numpy.floating": "a NumPy float",
    "numpy.complexfloating": "a NumPy complex",
    "numpy.bool": "a NumPy bool",
    "numpy.bool_": "a NumPy bool",
}
FLOAT_SEEDS: Final = ("builtins.float", "builtins.complex")
INTEGER_SEEDS: Final = ("builtins.int", "builtins.bool")
FLOAT_MAKERS: Final = frozenset(
    {
        "builtins.float",
        "builtins.complex",
        "time.time",
        "time.perf_counter",
        "time.monotonic",
        "time.process_time",
        "random.random",
        "random.uniform",
        "random.gauss",
    }
)
"""Calls whose result is a float (or complex) at run time, not only by declaration."""

NOT_A_KEY: Final = 'Key of "{callee}" is {value}, not a PRNG key; JAX raises TypeError'
MAKE_A_KEY: Final = 'Make a key once, "key = {key}({seed})", and split it for each use: "key, subkey = {split}(key)"{needs}'
NOT_AN_INTEGER: Final = 'Seed of "{callee}" is {value}, not an integer; JAX raises TypeError'
PASS_AN_INTEGER: Final = 'Pass an integer seed: "{call}"'
INTEGER_SEED: Final = "Pass an integer seed"
KEYS_AS_KEY: Final = 'Key of "{callee}" is the array of keys "{split}" made, not one key; JAX raises ValueError'
ONE_KEY_EACH: Final = 'Unpack one key for each use ("key, subkey = {split}(key)"), or map the call over the keys with "jax.vmap"'
KEY_AS_SEED: Final = 'Seed of "{callee}" is a PRNG key, not an integer; JAX raises TypeError'
USE_THE_KEY: Final = (
    'A key is made once from an integer; pass the key itself where a key goes, or derive new ones: "key, subkey = {split}(key)"'
)
WRONG_DTYPE: Final = '"{callee}" needs {kinds} dtype, not {dtype}; JAX raises {exception}'
NOT_A_SEQUENCE: Final = 'Shape of "{callee}" is {value}, not a sequence; JAX raises TypeError'
AS_A_TUPLE: Final = 'Pass the shape as a tuple: "({shape},)" for {shape} samples'
WHOLE_NUMBERS: Final = frozenset({"an int", "a NumPy integer"})
"""The numbers reported as a shape: a float has ``jax-float-shape``, and no tuple makes it one."""
SEQUENCE_SHAPES: Final = frozenset({"choice"})
"""The samplers whose shape must be a sequence, reported: most take a number for a shape of
one axis (``jax.random.normal(key, 3)`` runs); ``choice`` raises ``TypeError`` for any number
("shape argument of jax.random.choice must be a sequence"), Python's or NumPy's, on every
release from 0.4.31 to 0.10.2. ``multinomial``'s keyword-only shape raises too, with another
exception for each kind of number and only on the releases that have it: left alone."""


def scalar_kinds(typ: Type) -> str | None:
    """``an int``, ``a float`` ...: what every member of ``typ`` is, where each is a Python or a
    NumPy scalar; None otherwise (an array, ``Any``, a union with either)."""
    found: list[str] = []
    for member in members(typ):
        if isinstance(member, LiteralType):
            member = member.fallback
        if not isinstance(member, Instance):
            return None
        if member.type.fullname in PYTHON_SCALARS:
            found.append(PYTHON_SCALARS[member.type.fullname])
        elif member.type.has_base(NUMPY_SCALAR):
            found.append(next((text for base, text in NUMPY_SCALARS.items() if member.type.has_base(base)), "a NumPy scalar"))
        else:
            return None
    return " or ".join(dict.fromkeys(found)) or None


def float_by_its_making(arg: Expression, typ: Type) -> bool:
    """Whether the seed is certainly not an integer: a NumPy float, or a Python float (or
    complex) written as a literal, returned by a call of ``FLOAT_MAKERS``, or made by a true
    division (a function declared ``-> float`` may return an int). A variable
    is left alone even where mypy inferred ``float``: ``local = seed`` of a ``seed: float``
    parameter may hold an int."""
    proper = members(typ)
    if not proper or not all(isinstance(m, Instance) for m in proper):
        return False  # Any, a literal int, a type variable: not certainly a float
    classes = [m.type for m in proper if isinstance(m, Instance)]
    if not all(info.fullname in FLOAT_SEEDS for info in classes):
        return all(info.fullname not in INTEGER_SEEDS and any(info.has_base(name) for name in NUMPY_FLOATS) for info in classes)
    written = arg.expr if isinstance(arg, UnaryExpr) and arg.op in "-+" else arg
    if isinstance(written, CallExpr):
        return isinstance(written.callee, RefExpr) and written.callee.fullname in FLOAT_MAKERS
    return isinstance(written, (FloatExpr, ComplexExpr)) or (isinstance(written, OpExpr) and written.op == "/")


def random_function(node: Expression) -> str | None:
    """The name of the ``jax.random`` function ``node`` calls, through any import."""
    if not isinstance(node, CallExpr) or not isinstance(node.callee, RefExpr) or not node.callee.fullname:
        return None
    module, _, name = node.callee.fullname.rpartition(".")
    return name if module + "." in fullnames.RANDOM_MODULES else None


def key_by_its_making(api: CheckerPluginInterface, arg: Expression, depth: int = 0) -> bool:
    """Whether ``arg`` is certainly a PRNG key (or keys) by its making: a call of one of
    ``KEY_MAKERS`` or of ``split``, an item of what ``split`` made (``keys[0]``), an item
    unpacked from it (``key, subkey = split(key)``), or a variable bound to one of these
    (``bound_values``: the binding that reaches the call, else every binding). Not where a
    binding read is something else or cannot be read (a parameter, a ``for`` target): a seed may
    be an integer array."""
    made = random_function(arg)
    if made in KEY_MAKERS or made == KEYS_MAKER:
        return True
    if isinstance(arg, IndexExpr) and not isinstance(arg.index, TupleExpr):
        return keys_by_their_making(api, arg.base, depth)
    values = bound_values(api, arg, depth)
    return bool(values) and all(
        keys_by_their_making(api, value, depth + 1) if unpacked else key_by_its_making(api, value, depth + 1) for value, unpacked in values
    )


def keys_by_their_making(api: CheckerPluginInterface, arg: Expression, depth: int) -> bool:
    """Whether ``arg`` is certainly an array of keys that ``split`` made: its call (but with the
    shape ``()``, which makes one key), or a variable bound to one (``bound_values``)."""
    if random_function(arg) == KEYS_MAKER:
        assert isinstance(arg, CallExpr)  # random_function says so
        shape = [value for value, name in zip(arg.args[1:], arg.arg_names[1:]) if name in (None, "num")]
        return not (shape and isinstance(shape[0], TupleExpr) and not shape[0].items)
    values = bound_values(api, arg, depth)
    return bool(values) and all(not unpacked and keys_by_their_making(api, value, depth + 1) for value, unpacked in values)


def bound_values(api: CheckerPluginInterface, arg: Expression, depth: int) -> list[tuple[Expression, bool]]:
    """What the variable ``arg`` holds where it is read (``bindings.reaching_values``); nothing
    past ``BINDINGS_FOLLOWED``."""
    return bindings.reaching_values(api, arg) if depth <= BINDINGS_FOLLOWED else []


def dtype_kind(arg: Expression) -> tuple[str, str] | None:
    """The kind of the dtype written (``jnp.float32``, ``np.uint8``, ``int``, ``"int32"``) and its
    name; None for anything not spelled out."""
    if isinstance(arg, StrExpr):
        name = arg.value
    elif isinstance(arg, RefExpr) and arg.fullname and arg.fullname.startswith(DTYPE_MODULES):
        name = arg.fullname.rpartition(".")[2]
    else:
        return None
    match = DTYPE_NAME.match(name)
    if match is None or match.lastgroup is None:
        return None
    kind = {"unsigned": UNSIGNED, "int": INT, "float": FLOAT, "complex": COMPLEX, "bool": BOOL}[match.lastgroup]
    return kind, name


def check_random(function: str) -> Callable[[FunctionContext], Type]:
    """The hook for one ``jax.random`` function: its key (or seed), and its dtype."""
    key_parameter = KEY_PARAMETERS.get(function)
    dtypes = DTYPES.get(function)

    def hook(ctx: FunctionContext) -> Type:
        call = ctx.context
        if not isinstance(call, CallExpr):
            return ctx.default_return_type

        def callee() -> str:
            """The function as the call writes it, for a report (most calls make none)."""
            return source(call.callee) or f"jax.random.{function}"

        if key_parameter is not None:
            for arg, typ in passed(ctx, key_parameter):
                value = scalar_kinds(typ)
                if value is not None:
                    if bindings.holds(ctx.api, arg):
                        report_key(ctx.api, arg, callee(), value)
                elif function in KEY_FIRST and keys_by_their_making(ctx.api, arg, 0):
                    report_keys_as_key(ctx.api, arg, callee())
        if function in SEEDED:
            for arg, typ in passed(ctx, "seed"):
                if float_by_its_making(arg, typ) and bindings.holds(ctx.api, arg):
                    report_seed(ctx.api, call, arg, callee(), scalar_kinds(typ) or "a float")
                elif scalar_kinds(typ) is None and key_by_its_making(ctx.api, arg):  # a number is no key
                    report_key_as_seed(ctx.api, arg, callee())
        if function in SEQUENCE_SHAPES:
            for arg, typ in passed(ctx, "shape"):
                value = scalar_kinds(typ)
                if value in WHOLE_NUMBERS and bindings.holds(ctx.api, arg):
                    report_shape(ctx.api, arg, callee(), value)
        if dtypes is not None:
            for arg, _ in passed(ctx, "dtype"):
                written = dtype_kind(arg)
                if written is not None and written[0] not in dtypes[0]:
                    report_dtype(ctx.api, arg, callee(), function, written[1])
        return ctx.default_return_type

    return hook


def report_key(api: CheckerPluginInterface, arg: Expression, callee: str, value: str) -> None:
    """A number where a key goes; the note makes a key of it, where it is an int, naming
    ``jax.random`` as the module can (``checked_module.reference``)."""
    seed = source(arg) if value == "an int" else None
    key, imports = checked_module.reference(api, RANDOM, "key")
    split, _ = checked_module.reference(api, RANDOM, "split")
    needs = checked_module.needs(imports)
    reporting.error_with_notes(
        api,
        arg,
        KEY_CODE,
        NOT_A_KEY.format(callee=callee, value=value),
        [MAKE_A_KEY.format(key=key, split=split, seed=seed or "0", needs=needs)],
    )


def report_seed(api: CheckerPluginInterface, call: CallExpr, arg: Expression, callee: str, value: str) -> None:
    """A float seed, with the call given ``int(seed)`` (the rest of it as written); for a
    complex seed, which ``int`` refuses, the general advice."""
    as_int = CallExpr(NameExpr("int"), [arg], [ARG_POS], [None])  # printed only, never checked
    arguments = arguments_source(call.arg_kinds, call.arg_names, [as_int if each is arg else each for each in call.args])
    advice = PASS_AN_INTEGER.format(call=f"{callee}({', '.join(arguments)})") if arguments and "complex" not in value else INTEGER_SEED
    reporting.error_with_notes(api, arg, KEY_CODE, NOT_AN_INTEGER.format(callee=callee, value=value), [advice])


def report_keys_as_key(api: CheckerPluginInterface, arg: Expression, callee: str) -> None:
    """The array of keys ``split`` made, given where one key goes (``jax.random.normal(keys)``)."""
    split, _ = checked_module.reference(api, RANDOM, "split")
    reporting.error_with_notes(api, arg, KEY_CODE, KEYS_AS_KEY.format(callee=callee, split=split), [ONE_KEY_EACH.format(split=split)])


def report_key_as_seed(api: CheckerPluginInterface, arg: Expression, callee: str) -> None:
    """A key where a seed goes (``jax.random.PRNGKey(key)``), with ``split`` named as the module can."""
    split, _ = checked_module.reference(api, RANDOM, "split")
    reporting.error_with_notes(api, arg, KEY_CODE, KEY_AS_SEED.format(callee=callee), [USE_THE_KEY.format(split=split)])


def report_dtype(api: CheckerPluginInterface, arg: Expression, callee: str, function: str, dtype: str) -> None:
    """A dtype of a kind the sampler does not make."""
    _, kinds, exception, advice = DTYPES[function]
    message = WRONG_DTYPE.format(callee=callee, kinds=kinds, dtype=dtype, exception=exception)
    reporting.error_with_notes(api, arg, DTYPE_CODE, message, [advice])


def report_shape(api: CheckerPluginInterface, arg: Expression, callee: str, value: str) -> None:
    """A number given as the shape of a sampler that takes a sequence (``choice(key, a, 3)``)."""
    message = NOT_A_SEQUENCE.format(callee=callee, value=value)
    reporting.error_with_notes(api, arg, SHAPE_CODE, message, [AS_A_TUPLE.format(shape=source(arg) or "n")])


CHECKED_SAMPLERS: Final = sorted({*KEY_PARAMETERS, *SEEDED, *DTYPES})

RULE: Final = Rule(
    KEY_CODE,
    other_codes=(DTYPE_CODE, SHAPE_CODE),
    function_hooks={module + name: check_random(name) for module in fullnames.RANDOM_MODULES for name in CHECKED_SAMPLERS},
)
