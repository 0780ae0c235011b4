"""Which functions JAX's transforms trace, and which of their parameters are traced.

Read from the module's syntax tree after semantic analysis (``RefExpr.fullname`` names the
callee, ``FuncDef.type`` holds the declared parameter types), never from the checker's type map:
mypy checks a module's top level, decorators included, before the function bodies, so what is
known here does not depend on the order in which mypy checks things.

The transforms: ``jax.jit``, ``jax.vmap``, ``jax.grad`` and its kin, ``jax.checkpoint``
(``TRANSFORMS``); ``jax.lax``'s control flow and ``jax.eval_shape`` (``LAX_BODIES``). The forms:
``@jax.jit``, ``@jit`` imported from jax, ``@jax.jit(static_argnames=...)``, ``@partial(jax.jit,
static_argnums=...)`` (``functools.partial``), a stack of them, and ``jax.jit(f, ...)`` for a
function ``f`` defined in the same module or a lambda. Options that are not literals
(``static_argnums=STATIC``) leave every parameter undecided.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_NAMED_OPT,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    FUNC_NO_INFO,
    LDEF,
    CallExpr,
    Decorator,
    Expression,
    FuncDef,
    FuncItem,
    LambdaExpr,
    ListExpr,
    NameExpr,
    RefExpr,
    StrExpr,
    TupleExpr,
)
from mypy.types import AnyType, CallableType, Instance, TupleType, Type, get_proper_type

from mypy_plugin.analyses.values import Env
from mypy_plugin.lib import arguments, fixes, fullnames, mypy_internals, release, types
from mypy_plugin.lib.checked_module import Spelling
from mypy_plugin.lib.fixes import Fix
from mypy_plugin.lib.source import int_literal, source
from mypy_plugin.lib.types import members

JIT_KIND: Final = "jit"
LAX_KIND: Final = "lax"
"""A function ``jax.lax`` control flow (a loop body, a branch) or ``jax.eval_shape`` calls with
tracers: staged like ``jax.jit``'s, under ``jax.jit`` or not."""
VMAP_KIND: Final = "vmap"
GRAD_KINDS: Final = frozenset(fullnames.GRADS.values())
"""``jax.grad`` and its kin, each a kind of its own (named as printed): the arguments at
``argnums`` are tracers, nothing is staged, and only what needs a float of a tracer raises
(``sites.raises_under_grad``)."""
CHECKPOINT_KINDS: Final = frozenset(fullnames.CHECKPOINTS.values())
"""``jax.checkpoint`` and ``jax.remat``, each a kind of its own (named as printed): like
``jax.jit``, every argument not in ``static_argnums`` is a tracer and every operation staged
(from ``release.CHECKPOINT_TRACES_LIKE_JIT``; before, they are not taken for transforms)."""
PMAP_KIND: Final = "jax.pmap"
"""Like ``jax.jit``: every argument not in ``static_broadcasted_argnums`` is a tracer, whatever
its ``in_axes``, and every operation staged (measured on JAX 0.4.31, 0.7.2, 0.10.2, 0.12.0.1)."""
SHARD_MAP_KIND: Final = "jax.shard_map"
"""Its arrays are tracers; called outside ``jax.jit`` it neither traces a Python number nor
stages an operation on a closure's array (from JAX 0.7.0; measured on 0.7.2, 0.10.2 and
0.12.0.1), so only arrays are taken as traced there (``TransformedFunction.arrays_only``)."""
NNX_JIT_KIND: Final = "nnx.jit"
"""flax's ``jax.jit`` for modules: every argument not made static is a tracer, Python numbers
included, and every operation staged (measured with flax 0.12.8 on JAX 0.10.2)."""
EQUINOX_JIT_KIND: Final = "eqx.filter_jit"
EQUINOX_VMAP_KIND: Final = "eqx.filter_vmap"
"""equinox's transforms trace arrays (JAX's and NumPy's) and pass every other value as it is,
Python numbers included; ``filter_jit`` stages every operation, ``filter_vmap`` none (measured
with equinox 0.13.8 on JAX 0.10.2)."""
ARRAYS_ONLY_KINDS: Final = (EQUINOX_JIT_KIND, SHARD_MAP_KIND, EQUINOX_VMAP_KIND)
"""The kinds under which only arrays are traced (``TransformedFunction.arrays_only``), the
staging one first."""
ARRAYS_ONLY_OPTIONS: Final = {
    EQUINOX_JIT_KIND: frozenset({"donate"}),
    EQUINOX_VMAP_KIND: frozenset({"axis_name", "axis_size", "out_axes"}),
    SHARD_MAP_KIND: frozenset({"mesh", "in_specs", "out_specs", "axis_names", "check_rep", "check_vma", "auto"}),
}
"""The options with which every parameter holds its arrays as tracers (any other, such as
equinox's ``in_axes``, leaves them undecided)."""
TRACING_EVERY_ARGUMENT: Final = frozenset({JIT_KIND, PMAP_KIND, NNX_JIT_KIND, *CHECKPOINT_KINDS})
"""The kinds under which every argument not made static is a tracer."""
TRANSFORMS: Final = {
    fullnames.JIT: JIT_KIND,
    fullnames.VMAP: VMAP_KIND,
    **fullnames.GRADS,
    **fullnames.CHECKPOINTS,
    **dict.fromkeys(fullnames.PMAPS, PMAP_KIND),
    **dict.fromkeys(fullnames.SHARD_MAPS, SHARD_MAP_KIND),
    fullnames.NNX_JIT: NNX_JIT_KIND,
    fullnames.EQUINOX_FILTER_JIT: EQUINOX_JIT_KIND,
    fullnames.EQUINOX_FILTER_VMAP: EQUINOX_VMAP_KIND,
}
"""The full names of the transforms, and the kind each one is."""
POSITIONAL_OPTIONS: Final = {
    VMAP_KIND: ("in_axes", "out_axes", "axis_name", "axis_size", "spmd_axis_name"),
    PMAP_KIND: ("axis_name",),
    **dict.fromkeys(GRAD_KINDS, ("argnums", "has_aux", "holomorphic")),
}
"""The options a transform takes by position after its function, in order (``jax.vmap(f, (0,
None), 0)``), the same on every JAX release the package supports."""
Options = list[tuple[str, Expression]]
"""A transform's options as a call passes them, each by name."""
PRINTED: Final = {
    JIT_KIND: "jax.jit",
    VMAP_KIND: "jax.vmap",
    **{kind: kind for kind in GRAD_KINDS | CHECKPOINT_KINDS | {PMAP_KIND, NNX_JIT_KIND, *ARRAYS_ONLY_KINDS}},
}
STATIC_OPTIONS: Final = {
    "static_argnums": "static_argnums",
    "static_broadcasted_argnums": "static_argnums",
    "static_argnames": "static_argnames",
}
"""The options that make parameters static (``jax.pmap``'s by number only), as ``jax.jit`` names them."""
DONATE_OPTIONS: Final = {"donate_argnums": "static_argnums", "donate_argnames": "static_argnames"}
"""``jax.jit``'s options that donate parameters, read as ``static_names`` reads the static ones."""
TRACEABLE_CLASSES: Final = frozenset(
    {fullnames.ARRAY, "builtins.int", "builtins.float", "builtins.bool", "builtins.complex", "numpy.ndarray", "numpy.generic"}
)
"""Classes whose values JAX traces when passed as a non-static argument (subclasses too):
arrays and Python or NumPy scalars. Other types (containers, None, classes) may be pytrees or
static values, and leave the parameter undecided."""


class TransformedFunction:
    """A function a transform traces (``jax.jit``, ``jax.vmap``, ``jax.grad`` and its kin,
    ``jax.checkpoint``, a ``lax`` body): whether the calls of JAX inside it are staged (every
    result a tracer) and which parameters are traced."""

    __slots__ = ("function", "kind", "traced_parameters", "leaf_parameters", "decorator", "name", "bound", "given", "flattened")

    def __init__(
        self,
        function: FuncItem,
        kind: str,
        traced: frozenset[str],
        decorator: Expression | None,
        leaves: frozenset[str] = frozenset(),
        name: str = "",
        bound: bool = False,
    ) -> None:
        self.function = function
        self.kind = kind
        """``jit`` when a ``jax.jit`` is among the transforms, else ``vmap`` when a ``jax.vmap``
        is, else the checkpoint or grad kind (``jax.checkpoint``, ``jax.grad``, ...), or ``lax``."""
        self.traced_parameters = traced
        """The parameters that are certainly tracers (declared as arrays or scalars, not static,
        batched under ``vmap``)."""
        self.leaf_parameters = leaves
        """The parameters written without a type (or typed ``Any``), or declared a container of
        arrays or scalars (``held_as_leaves``), without a default, not static (batched under
        ``vmap``): each holds tracers, as a leaf or as the leaves of a
        pytree (a list, a dict), which the walk tells apart by how it is used
        (``values.CANDIDATE``). A default the caller leaves out is not traced."""
        self.decorator = decorator
        """The ``jax.jit`` decorator as written (``jax.jit``, ``jit``) where it is the only
        transform of the function, or None for another form."""
        self.name = name
        """How messages name the transform, where its kind does not (``jax.lax.fori_loop``)."""
        self.bound = bound
        """A method bound to its instance (``jax.jit(model.step)``): ``self`` is not an argument."""
        self.given: Env = {}
        self.flattened: frozenset[str] = frozenset()
        """Every parameter whose argument JAX flattens into tracers at each call, whatever its
        type: the non-static ones under ``jax.jit``, the batched ones under ``jax.vmap``, the
        differentiated ones under ``jax.grad`` (a function held in it raises ``TypeError``)."""
        """What the module's calls pass to parameters written without a type, where they all
        agree (``applied.given_states``): a state of ``values`` for each, in place of
        ``CANDIDATE``."""

    @property
    def transform(self) -> str:
        return self.name or PRINTED[self.kind]

    @property
    def differentiated(self) -> bool:
        """Under ``jax.grad`` or its kin alone."""
        return self.kind in GRAD_KINDS

    @property
    def staged(self) -> bool:
        """Whether every call of a JAX function inside gives a tracer (JAX stages it)."""
        return self.kind in (JIT_KIND, PMAP_KIND, NNX_JIT_KIND, EQUINOX_JIT_KIND, LAX_KIND, *CHECKPOINT_KINDS)

    @property
    def arrays_only(self) -> bool:
        """Whether only arrays are traced, and Python numbers passed as they are: a parameter
        written without a type is then a tracer only where an array method proves it one."""
        return self.kind in ARRAYS_ONLY_KINDS


def receiver_of(function: FuncItem | None) -> str | None:
    """The name of ``self`` in a method (None for a function, a static or class method)."""
    if not isinstance(function, FuncDef) or function.info is FUNC_NO_INFO or function.is_static or function.is_class:
        return None
    parameters = mypy_internals.parameters(function)
    return parameters[0].variable.name if parameters else None


def taken_by_the_walk(kind: str) -> bool:
    """Whether the walk takes the transform of this kind for one on the stubs' release."""
    return kind not in CHECKPOINT_KINDS or release.at_least(release.CHECKPOINT_TRACES_LIKE_JIT)


def partial_transform(node: Expression) -> str | None:
    """The kind of the transform ``node`` binds with ``functools.partial`` (``partial(jax.jit,
    static_argnames=...)``), whatever else it binds; None for anything else."""
    if not (isinstance(node, CallExpr) and isinstance(node.callee, RefExpr) and node.callee.fullname == fullnames.PARTIAL):
        return None
    if not node.args or node.arg_names[0] is not None or not isinstance(node.args[0], RefExpr):
        return None
    kind = TRANSFORMS.get(node.args[0].fullname or "")
    return kind if kind is not None and taken_by_the_walk(kind) else None


def transform_of(node: Expression) -> tuple[str, Options] | None:
    """The kind of ``node`` as a decorator (``jax.jit``, ``jax.jit(...)`` without a function,
    ``partial(jax.jit, ...)``) and the options it passes by name; None for anything else."""
    if isinstance(node, RefExpr) and node.fullname in TRANSFORMS and taken_by_the_walk(TRANSFORMS[node.fullname]):
        return TRANSFORMS[node.fullname], []
    if not isinstance(node, CallExpr) or not isinstance(node.callee, RefExpr):
        return None
    if node.callee.fullname in TRANSFORMS and taken_by_the_walk(TRANSFORMS[node.callee.fullname]):
        options = options_of(node, 0)
        return (TRANSFORMS[node.callee.fullname], options) if options is not None else None
    kind = partial_transform(node)
    options = options_of(node, 1) if kind is not None else None
    return (kind, options) if kind is not None and options is not None else None


def options_of(call: CallExpr, first: int, kind: str | None = None) -> Options | None:
    """The options a transform's call passes from its argument ``first`` on, each with its
    name: ``jax.jit(f, static_argnums=0)`` from 1, ``jax.jit(static_argnums=0)`` from 0,
    ``partial(jax.jit, ...)`` from 1. Where the call passes the function first, the options a
    transform of ``kind`` takes by position are named (``jax.vmap(f, in_axes, out_axes)``,
    ``jax.grad(f, argnums)``: ``POSITIONAL_OPTIONS``). None where an option is given otherwise
    (another by position, ``**options``): what it sets is not read."""
    options = []
    by_position = POSITIONAL_OPTIONS.get(kind, ()) if kind is not None and first == 1 else ()
    for index, (name, value, arg_kind) in enumerate(zip(call.arg_names[first:], call.args[first:], call.arg_kinds[first:])):
        if name is None and arg_kind == ARG_POS and index < len(by_position):
            name = by_position[index]
        if name is None:
            return None
        options.append((name, value))
    return options


def decorated(decorator: Decorator) -> TransformedFunction | None:
    """The transforms directly around ``decorator.func``: the innermost decorators, up to the
    first that is not a transform (whose effect is unknown)."""
    stack = []
    for node in reversed(decorator.decorators):
        found = transform_of(node)
        if found is None:
            break
        stack.append((node, found))
    if not stack:
        return None
    # the decorator as written, where jax.jit is the only transform: static_argnames there makes
    # a parameter static (under "@jax.jit @jax.vmap", vmap would still map it)
    written = stack[0][0] if len(stack) == 1 and stack[0][1][0] == JIT_KIND and isinstance(stack[0][0], RefExpr) else None
    return traced_function(decorator.func, [found for _, found in stack], written)


def transformed_by(call: CallExpr, module: str) -> TransformedFunction | None:
    """``jax.jit(f, ...)`` (or any of ``TRANSFORMS``) for a plain function ``f`` of ``module``
    or a lambda."""
    if not isinstance(call.callee, RefExpr) or call.callee.fullname not in TRANSFORMS:
        return None
    kind = TRANSFORMS[call.callee.fullname]
    if not taken_by_the_walk(kind) or not call.args or call.arg_names[0] is not None:
        return None
    function = function_of(call.args[0], module)
    if function is None:
        return None
    options = options_of(call, 1, kind)
    if options is None:
        return None
    return traced_function(function, [(kind, options)], None)


def bound_method(call: CallExpr, method: FuncDef, module: str) -> TransformedFunction | None:
    """``jax.jit(model.step, ...)`` for a method of a class of ``module`` bound to its instance
    (``method``, as mypy typed ``model.step``): the transform traces the parameters after
    ``self``, which is not an argument (its fields are Python values or concrete arrays)."""
    if not isinstance(call.callee, RefExpr) or call.callee.fullname not in TRANSFORMS:
        return None
    kind = TRANSFORMS[call.callee.fullname]
    if not taken_by_the_walk(kind) or receiver_of(method) is None or not method.fullname.startswith(module + "."):
        return None
    if method.is_property or method.is_decorated or method.is_conditional:
        return None
    options = options_of(call, 1, kind)
    return traced_function(method, [(kind, options)], None, bound=True) if options is not None else None


def function_of(node: Expression, module: str) -> FuncItem | None:
    """The function ``node`` gives a transform: a lambda written there, or a plain function by
    name, of ``module`` or defined in the enclosing function (another module's is checked with
    that module)."""
    if isinstance(node, LambdaExpr):
        return node
    if not isinstance(node, NameExpr) or not isinstance(node.node, FuncDef) or node.node.is_conditional:
        return None  # one defined in a block (under "if") may have variants, of which mypy names the first
    return node.node if node.kind == LDEF or node.node.fullname.startswith(module + ".") else None


def traced_function(
    function: FuncItem, stack: list[tuple[str, Options]], written: Expression | None, bound: bool = False
) -> TransformedFunction:
    """Combine the transforms around ``function``: under any ``jax.jit`` (or ``jax.pmap``,
    ``nnx.jit``, ``jax.checkpoint``) every non-static parameter is traced; else under
    ``jax.vmap``, the batched ones; under ``jax.shard_map`` or equinox's transforms, every one
    that holds arrays; under ``jax.grad`` and its kin alone, the differentiated ones. A
    ``bound`` method's first parameter is its instance, not an argument."""
    own = mypy_internals.named_parameters(function)
    named = own[1:] if bound else own
    positional = [name for name, kind in named if kind in (ARG_POS, ARG_OPT)]
    keyword_only = [name for name, kind in named if kind in (ARG_NAMED, ARG_NAMED_OPT)]
    kinds = {kind for kind, _ in stack}
    star_args = any(kind == ARG_STAR for _, kind in named)
    if kinds & TRACING_EVERY_ARGUMENT:
        # jax.checkpoint and jax.pmap count a negative number from each call's arguments, as
        # jax.jit does for a function with *args: such a number leaves every parameter undecided
        statics = union_of(
            static_names(options, positional, kind != JIT_KIND or star_args) for kind, options in stack if kind in TRACING_EVERY_ARGUMENT
        )
        if statics and ARG_STAR2 not in (kind for _, kind in named) and statics - {*positional, *keyword_only}:
            statics = None  # a name that is not a parameter: jax.jit raises ValueError there, and traces nothing
        candidates = None if statics is None else {name for name in positional + keyword_only if name not in statics}
        kind = next(kind for kind in (JIT_KIND, PMAP_KIND, NNX_JIT_KIND, *CHECKPOINT_KINDS) if kind in kinds)
    elif VMAP_KIND in kinds:
        candidates = union_of(batched_names(options, positional, keyword_only) for kind, options in stack if kind == VMAP_KIND)
        kind = VMAP_KIND
    elif kinds & set(ARRAYS_ONLY_KINDS):
        every = all({name for name, _ in options} <= ARRAYS_ONLY_OPTIONS.get(kind, frozenset()) for kind, options in stack)
        candidates = set(positional + keyword_only) if every else None
        kind = next(kind for kind in ARRAYS_ONLY_KINDS if kind in kinds)
    else:  # jax.grad and its kin alone: what any of them differentiates
        candidates = union_of(differentiated_names(options, positional) for _, options in stack)
        kind = stack[0][0]
    # A default the caller leaves out is not traced (JAX traces what is passed): a parameter with
    # one holds a tracer only at the calls that pass it, so none is decided.
    required = {name for name, kind in named if kind in (ARG_POS, ARG_NAMED)}
    holds_tracers = types.is_array if kind in ARRAYS_ONLY_KINDS else traceable
    traced = frozenset(name for name in candidates or () if name in required and holds_tracers(declared_type(function, name)))
    receiver = receiver_of(function)
    leaves = frozenset(name for name in candidates or () if name in required and name != receiver and held_as_leaves(function, name))
    transformed = TransformedFunction(function, kind, traced, written, leaves, bound=bound)
    transformed.flattened = frozenset(name for name in candidates or () if name != receiver)
    return transformed


LAX_BODIES: Final = {
    fullnames.LAX_LOOPS + "fori_loop": ("jax.lax.fori_loop", ((2, "body_fun"),)),
    fullnames.LAX_LOOPS + "while_loop": ("jax.lax.while_loop", ((0, "cond_fun"), (1, "body_fun"))),
    fullnames.LAX_LOOPS + "scan": ("jax.lax.scan", ((0, "f"),)),
    fullnames.LAX_LOOPS + "map": ("jax.lax.map", ((0, "f"),)),
    fullnames.LAX_CONDITIONALS + "cond": ("jax.lax.cond", ((1, "true_fun"), (2, "false_fun"))),
    fullnames.LAX_CONDITIONALS + "switch": ("jax.lax.switch", ((1, "branches"),)),
    fullnames.EVAL_SHAPE: ("jax.eval_shape", ((0, "fun"),)),
}
"""``jax.lax``'s control flow and ``jax.eval_shape``, each with the functions it calls with tracers
(by position and by name; ``jax.lax.switch``'s is a list of them): every parameter JAX passes
there holds tracers, under ``jax.jit`` or not."""


def lax_bodies(call: CallExpr, module: str) -> list[TransformedFunction]:
    """The functions a ``jax.lax`` control-flow call (or ``jax.eval_shape``) passes: by name for
    a function of ``module`` (``body`` in ``jax.lax.fori_loop(0, n, body, x)``), or as a lambda;
    each with its parameters as tracers: declared as arrays or scalars, certainly; unannotated,
    as tracers or pytrees of them."""
    if not isinstance(call.callee, RefExpr) or call.callee.fullname not in LAX_BODIES:
        return []
    printed, places = LAX_BODIES[call.callee.fullname]
    found = []
    for position, keyword in places:
        given = arguments.written_for(call, position, keyword)
        target = call.args[given[0]] if len(given) == 1 else None
        if isinstance(target, (ListExpr, TupleExpr)):  # lax.switch's branches
            targets = target.items if len(target.items) > 1 else []  # a single branch is called directly, untraced
        else:
            targets = [target] if target is not None else []
        for function in filter(None, (function_of(item, module) for item in targets)):
            found.append(lax_body(function, printed))
    return found


def lax_body(function: FuncItem, printed: str) -> TransformedFunction:
    """A function a ``jax.lax`` control-flow call (or ``jax.eval_shape``) traces: each required
    parameter holds tracers."""
    required = [name for name, kind in mypy_internals.named_parameters(function) if kind == ARG_POS]
    traced = frozenset(name for name in required if traceable(declared_type(function, name)))
    leaves = frozenset(name for name in required if held_as_leaves(function, name))
    return TransformedFunction(function, LAX_KIND, traced, None, leaves, printed)


def union_of(found: Iterable[set[str] | None]) -> set[str] | None:
    """The names every transform of a stack decides together; None when one cannot decide."""
    names: set[str] = set()
    for each in found:
        if each is None:
            return None
        names |= each
    return names


def static_names(
    options: Sequence[tuple[str, Expression]],
    positional: Sequence[str | None],
    star_args: bool,
    named_by: Mapping[str, str] = STATIC_OPTIONS,
) -> set[str] | None:
    """The parameters ``static_argnums`` and ``static_argnames`` make static (JAX reads each
    from the other through the signature when only one is given; ``named_by`` maps other
    options to these two: ``DONATE_OPTIONS`` reads the donated parameters); None when that depends on
    the call or cannot be read: an option that is not a literal, both
    options at once (then an argument is static only if passed the way its option says), or a
    negative number where JAX counts it from the end of each call's positional arguments
    (before ``release.NEGATIVE_ARGNUMS_BY_SIGNATURE``, or for a function with ``*args``);
    from that release JAX counts it from the end of the function's positional parameters."""
    by_signature = release.at_least(release.NEGATIVE_ARGNUMS_BY_SIGNATURE) and not star_args and bool(positional)
    names: set[str] = set()
    given = {named_by[name] for name, _ in options if name in named_by}
    if len(given) > 1:
        return None
    for name, value in options:
        if named_by.get(name) == "static_argnums":
            numbers = literal_items(value, int)
            if numbers is not None and by_signature:
                numbers = [n % len(positional) if n < 0 else n for n in numbers]
            if numbers is None or any(n < 0 for n in numbers):
                return None
            names.update(found for found in (positional[n] for n in numbers if n < len(positional)) if found is not None)
        elif named_by.get(name) == "static_argnames":
            strings = literal_items(value, str)
            if strings is None:
                return None
            names.update(strings)
    return names


def batched_names(options: Options, positional: list[str], keyword_only: list[str]) -> set[str] | None:
    """The parameters ``jax.vmap`` maps over: every one for an integer ``in_axes`` (the default
    0), those without ``None`` in a tuple or list of them; keyword arguments always. None when
    ``in_axes`` is not such a literal."""
    in_axes: Expression | None = None
    for name, value in options:
        if name == "in_axes":
            in_axes = value
    if in_axes is None or int_literal(in_axes) is not None:
        return set(positional) | set(keyword_only)
    if isinstance(in_axes, (TupleExpr, ListExpr)) and len(in_axes.items) == len(positional):
        batched = set(keyword_only)
        for name, axis in zip(positional, in_axes.items):
            if int_literal(axis) is not None:
                batched.add(name)
            elif not (isinstance(axis, NameExpr) and axis.fullname == "builtins.None"):
                return None
        return batched
    return None


def differentiated_names(options: Options, positional: list[str]) -> set[str] | None:
    """The parameters ``jax.grad`` (or its kin) differentiates: those ``argnums`` numbers (the
    first by default); None when it is not a literal of numbers in range."""
    numbers: list[int] | None = [0]
    for name, value in options:
        if name == "argnums":
            numbers = literal_items(value, int)
    if numbers is None or any(not 0 <= n < len(positional) for n in numbers):
        return None
    return {positional[n] for n in numbers}


def literal_items(node: Expression, kind: type) -> list | None:  # type: ignore[type-arg]
    """An int or str literal, or a tuple or list of them, as a list; None for anything else."""
    items = node.items if isinstance(node, (TupleExpr, ListExpr)) else [node]
    found = []
    for item in items:
        value = int_literal(item) if kind is int else (item.value if isinstance(item, StrExpr) else None)
        if value is None:
            return None
        found.append(value)
    return found


def declared_type(function: FuncItem, name: str) -> Type | None:
    """A parameter's declared type; None when it is not annotated."""
    signature = function.type
    if not isinstance(signature, CallableType) or function.is_dynamic():
        return None
    for (parameter, _), typ in zip(mypy_internals.named_parameters(function), signature.arg_types):
        if parameter == name:
            return None if isinstance(get_proper_type(typ), AnyType) else typ
    return None


def held_as_leaves(function: FuncItem, name: str) -> bool:
    """Whether a traced parameter holds tracers as a leaf or as the leaves of a pytree, which
    the walk tells apart by use (``values.CANDIDATE``): written without a type (or ``Any``), or
    declared a container of arrays or scalars (``rows: list[jax.Array]``)."""
    declared = declared_type(function, name)
    if declared is None:
        return True
    found = members(declared)
    return bool(found) and all(
        isinstance(member, TupleType)
        and bool(member.items)
        and all(traceable(item) for item in member.items)
        or isinstance(member, Instance)
        and member.type.fullname in types.PYTREE_CONTAINERS
        and bool(member.args)
        and traceable(member.args[-1])
        for member in found
    )


def traceable(typ: Type | None) -> bool:
    """Whether every value of ``typ`` is traced when passed to a transformed function: each
    member an array or a scalar (``ArrayLike``, ``jax.Array``, ``int``, ``bool``, a TypeVar
    bound to one)."""
    if typ is None:
        return False
    found = members(typ)
    return bool(found) and all(types.instance_of(member, *TRACEABLE_CLASSES) for member in found)


def positional_only(function: object, name: str) -> bool:
    """Whether ``name`` is a positional-only parameter of ``function``, which ``static_argnames``
    cannot name (``jax.jit`` raises ValueError); for a function read from mypy's cache, whether
    ``name`` is not among the names it keeps there (a positional-only one is kept without)."""
    if not isinstance(function, FuncItem):
        return False
    parameters = mypy_internals.parameters(function)
    if parameters is None:  # read from mypy's cache, where a positional-only parameter has no name
        return name not in function.arg_names
    return any(arg.pos_only for arg in parameters if arg.variable.name == name)


def made_static(functools: Spelling, decorator: Expression, name: str) -> tuple[str, Fix | None]:
    """``decorator``, a bare ``@jax.jit``, written to make parameter ``name`` static
    (``@partial(jax.jit, static_argnames=("name",))``, ``(needs "import functools")`` after it
    where ``partial`` is not imported: ``functools`` says how the module names it), and that
    rewrite as a fix where it needs no import (unsafe: the function compiles once per value, and
    an array passed there raises)."""
    partial, imports = functools.reference("partial")
    written = source(decorator)
    text = f'{partial}({written or "jax.jit"}, static_argnames=("{name}",))'
    if imports:
        return f'"@{text}" (needs "{imports[0]}")', None
    fix = fixes.replace_expression(decorator, written, text, f'Make "{name}" static: "@{text}"') if written else None
    return f'"@{text}"', fix
