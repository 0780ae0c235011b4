"""What a jitted function keeps of the function it wraps: its signature and its static parameters.

JAX's stubs type every ``jax.jit(f)`` as ``JitWrapped``, whose ``__call__(*args, **kwargs)`` has
no annotation: calls go unchecked and their results are ``Any``. As mypy's own
``functools.partial`` support does (``mypy/plugins/functools.py``), the plugin keeps the wrapped
signature on the ``JitWrapped`` instance as an extra attribute (``Instance.extra_attrs``, which
mypy's cache and the daemon's interface diff include) and checks each call against it.

A jitted function returns arrays: every leaf of what the function returns goes through
``jnp.asarray``, so a Python or NumPy scalar (``-> float``) comes back as a ``jax.Array``; the
kept signature says so (``outputs``).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    CLASSDEF_NO_INFO,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Expression,
    ExpressionStmt,
    ForStmt,
    ListExpr,
    MypyFile,
    RefExpr,
    ReturnStmt,
    TupleExpr,
    TypeInfo,
    Var,
)
from mypy.types import (
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypeAliasType,
    TypedDictType,
    TypeType,
    UnionType,
    get_proper_type,
)

from mypy_plugin.analyses import transforms
from mypy_plugin.lib import checked_module, fullnames, mypy_internals, types
from mypy_plugin.lib.types import members

CALL: Final = fullnames.JIT_WRAPPED + ".__call__"
SIGNATURE_ATTRIBUTE: Final = "jax-stubs:jitted"
STATIC_PREFIX: Final = "jax-stubs:static:"
WRAPS_PREFIX: Final = "jax-stubs:wraps:"
DELETED_PREFIX: Final = "jax-stubs:deleted:"
"""The extra attributes: the wrapped signature, one entry per static parameter, the full name
of the JAX function wrapped where it takes a shape or a size (``jax.jit(jnp.zeros)``;
``contract.concrete_parameters``), and one entry per donated parameter whose argument JAX deletes
(``donation.deleted_parameters``). None is an identifier, so no attribute access in user code
can reach them."""
DEPTH: Final = 8
"""How deep ``outputs`` and ``unhashable`` follow nested types (a recursive alias ends there)."""

BECOME_ARRAYS: Final = transforms.TRACEABLE_CLASSES - {fullnames.ARRAY}
"""Classes whose values a jitted function returns as ``jax.Array`` (subclasses too): the ones
JAX traces, Python and NumPy scalars and NumPy arrays."""
UNHASHABLE_CONTAINER: Final = "container"
UNHASHABLE_MAPPING: Final = "mapping"
UNHASHABLE_OTHER: Final = "other"
"""Kinds of unhashable value, each with its own advice."""
STR: Final = "a str"
BYTES: Final = "bytes"
FUNCTION: Final = "a function"
CLASS: Final = "a class"
MODULE: Final = "a module"
GENERATOR: Final = "a generator"
RANGE: Final = "a range"
DEVICE: Final = "a device"
"""What ``untraceable`` finds: the argument kinds JAX refuses to trace."""
UNTRACEABLE_CLASSES: Final = {
    MODULE: frozenset({"types.ModuleType"}),
    GENERATOR: frozenset({"typing.Generator", "collections.abc.Generator", "typing.AsyncGenerator"}),
    RANGE: frozenset({"builtins.range"}),
    DEVICE: frozenset({"jaxlib.xla_extension.Device", "jaxlib._jax.Device", "jaxlib.xla_client.Device"}),
}
"""Classes none of whose instances JAX can trace, by kind (``jax.Device`` is defined in
``jaxlib.xla_extension`` before jaxlib 0.5, in ``jaxlib._jax`` since)."""
READ_ONLY: Final = frozenset({"builtins.isinstance", "builtins.issubclass"})
"""Calls given a class that cannot register it as a pytree."""
PLAIN_DECORATOR: Final = "dataclasses.dataclass"
"""The one class decorator that leaves a class as JAX sees any class: not a pytree."""


class JittedSignature:
    """The wrapped function's signature, as declared, the names of its static parameters, the
    full name of the function where it is one of JAX's with a shape or size parameter (else
    empty), and the donated parameters whose arguments JAX deletes."""

    __slots__ = ("deleted", "signature", "statics", "wraps")

    def __init__(self, signature: CallableType, statics: frozenset[str], wraps: str = "", deleted: frozenset[str] = frozenset()) -> None:
        self.signature = signature
        self.statics = statics
        self.wraps = wraps
        self.deleted = deleted


def is_wrapper(typ: Type) -> bool:
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and proper.type.fullname == fullnames.JIT_WRAPPED


def with_jitted_signature(wrapper: Instance, kept: JittedSignature) -> Instance:
    """``wrapper`` (a ``JitWrapped``) carrying ``kept``."""
    typed = mypy_internals.with_extra_attribute(wrapper, SIGNATURE_ATTRIBUTE, kept.signature)
    for name in sorted(kept.statics):
        typed = mypy_internals.with_extra_attribute(typed, STATIC_PREFIX + name, NoneType())
    if kept.wraps:
        typed = mypy_internals.with_extra_attribute(typed, WRAPS_PREFIX + kept.wraps, NoneType())
    for name in sorted(kept.deleted):
        typed = mypy_internals.with_extra_attribute(typed, DELETED_PREFIX + name, NoneType())
    return typed


def jitted_signature_of(typ: Type) -> JittedSignature | None:
    """What ``keep`` put on a ``JitWrapped``; None for anything else."""
    proper = get_proper_type(typ)
    if not isinstance(proper, Instance):
        return None
    attrs = mypy_internals.extra_attributes(proper)
    signature = get_proper_type(attrs.get(SIGNATURE_ATTRIBUTE)) if SIGNATURE_ATTRIBUTE in attrs else None
    if not isinstance(signature, CallableType):
        return None
    statics = frozenset(name[len(STATIC_PREFIX) :] for name in attrs if name.startswith(STATIC_PREFIX))
    wraps = next((name[len(WRAPS_PREFIX) :] for name in attrs if name.startswith(WRAPS_PREFIX)), "")
    deleted = frozenset(name[len(DELETED_PREFIX) :] for name in attrs if name.startswith(DELETED_PREFIX))
    return JittedSignature(signature, statics, wraps, deleted)


def kept_signature(function: CallableType, array: Instance) -> CallableType:
    """The signature a call of ``jax.jit(function)`` is typed with: ``function``'s parameters,
    and its result with every scalar or NumPy leaf an ``array`` (``jax.Array``)."""
    return function.copy_modified(ret_type=outputs(function.ret_type, array))


def outputs(typ: Type, array: Instance, depth: int = 0) -> Type:
    """``typ`` as a jitted function returns it: leaves that are Python or NumPy scalars or NumPy
    arrays become ``jax.Array``, through tuples, lists, dicts and unions; anything else (a
    NamedTuple, a registered class, a TypeVar, ``Any``, an alias below the top) is kept as
    declared."""
    if depth > DEPTH or depth and isinstance(typ, TypeAliasType):
        return typ  # an alias inside the result (a recursive PyTree) is kept as declared
    proper = get_proper_type(typ)
    if isinstance(proper, LiteralType):
        proper = proper.fallback
    if isinstance(proper, UnionType):
        return UnionType.make_union([outputs(item, array, depth + 1) for item in proper.items], proper.line, proper.column)
    if isinstance(proper, TupleType):
        if proper.partial_fallback.type.fullname != "builtins.tuple":
            return typ  # a NamedTuple: its fields keep their declared types
        return proper.copy_modified(items=[outputs(item, array, depth + 1) for item in proper.items])
    if isinstance(proper, Instance):
        if types.instance_of(proper, *BECOME_ARRAYS) and not types.is_array(proper):
            return array
        if proper.type.fullname in types.PYTREE_CONTAINERS and proper.args:  # the keys of a mapping are kept
            return proper.copy_modified(args=[*proper.args[:-1], outputs(proper.args[-1], array, depth + 1)])
    return typ


def unhashable(typ: Type, depth: int = 0) -> bool:
    """Whether no value of ``typ`` can be hashed, so that JAX refuses it as a static argument:
    every member is a ``jax.Array``, a class that declares ``__hash__`` as None (``list``,
    ``dict``, ``set``, ``numpy.ndarray``), a TypedDict, or a tuple of fixed length with such an
    item (a ``tuple[list[int], ...]`` may be empty, and ``()`` hashes)."""
    found = members(typ) if depth <= DEPTH else []
    return bool(found) and all(unhashable_member(member, depth) for member in found)


def unhashable_member(member: ProperType, depth: int) -> bool:
    if isinstance(member, TypedDictType):
        return True
    if isinstance(member, TupleType):
        return any(unhashable(item, depth + 1) for item in member.items)
    if not isinstance(member, Instance):
        return False
    if types.is_array(member):
        return True
    declared = member.type.get("__hash__")
    node = declared.node if declared is not None else None
    return isinstance(node, Var) and node.type is not None and isinstance(get_proper_type(node.type), NoneType)


def unhashable_part(typ: Type) -> tuple[str, str]:
    """What makes a value of ``typ`` unhashable: its kind (``UNHASHABLE_CONTAINER``, ``UNHASHABLE_MAPPING``, ``UNHASHABLE_OTHER``)
    and its description for a message (``a "list"``, ``a tuple holding a "dict"``: the class,
    without the type arguments a call's context may have made up)."""
    member = members(typ)[0]
    if isinstance(member, TupleType):
        inner = next((item for item in member.items if unhashable(item)), None)
        return UNHASHABLE_OTHER, f"a tuple holding {unhashable_part(inner)[1]}" if inner is not None else "a tuple"
    if isinstance(member, TypedDictType):
        return UNHASHABLE_MAPPING, "a TypedDict"
    if isinstance(member, Instance):
        name = member.type.name
        article = "an" if name[:1].lower() in "aeiou" else "a"
        kind = UNHASHABLE_MAPPING if name == "dict" else UNHASHABLE_CONTAINER if name in ("list", "set", "bytearray") else UNHASHABLE_OTHER
        return kind, f'{article} "{name}"'
    return UNHASHABLE_OTHER, f'"{member}"'


def untraceable(typ: Type) -> str | None:
    """What every value of ``typ`` is, where JAX cannot make an abstract array of it (measured on
    JAX 0.4.31, 0.7.2, 0.10.2 and 0.12.0.1): ``STR``, ``BYTES``, ``FUNCTION`` (a jitted function
    too), ``CLASS`` (a class object: never a pytree, whatever its instances are), ``MODULE``,
    ``GENERATOR``, ``RANGE`` or ``DEVICE`` (where the installed jaxlib types it); None otherwise."""
    found = members(typ)
    if not found:
        return None
    for kind, test in ((STR, "builtins.str"), (BYTES, "builtins.bytes")):
        if all(isinstance(m, LiteralType) and m.fallback.type.fullname == test or types.instance_of(m, test) for m in found):
            return kind
    if all(isinstance(m, (CallableType, Overloaded)) and not m.is_type_obj() or is_wrapper(m) for m in found):
        return FUNCTION
    if all(isinstance(m, TypeType) or isinstance(m, (CallableType, Overloaded)) and m.is_type_obj() for m in found):
        return CLASS
    for kind, classes in UNTRACEABLE_CLASSES.items():
        if all(isinstance(m, Instance) and m.type.fullname in classes for m in found):
            return kind
    return None


def never_a_pytree(info: TypeInfo, module: MypyFile) -> bool:
    """Whether nothing in ``module`` can make an instance of ``info`` a pytree, so that
    ``jax.jit`` cannot trace it as ``self``. ``jax.tree_util.register_pytree_node*``,
    ``register_dataclass``, flax's and equinox's bases, a ``NamedTuple``, a metaclass or
    ``__init_subclass__`` all can; so the class, its bases and its subclasses in ``module`` must
    be plain classes of ``module`` (no decorator but ``dataclasses.dataclass``, no base of an
    unresolved type), none of them given to a call written as a statement or listed in a
    tuple or a list there (``register_pytree_node(Model, ...)``, ``for c in (A, B): register(c)``).
    A registration in another module is not seen."""
    definitions, given = classes_and_registrations(module)
    family = [info] + [defn.info for defn in definitions if info in defn.info.mro[1:]]
    return all(plain_class(member, module.fullname) and member not in given for member in family)


def plain_class(info: TypeInfo, module: str) -> bool:
    """A class of ``module``, all of whose bases but ``object`` are plain classes of it too (an
    unresolved base, ``Any`` to mypy, is left out of the MRO: ``fallback_to_any`` says so)."""
    *own, root = info.mro
    return root.fullname == fullnames.OBJECT and all(
        base.module_name == module
        and not base.fallback_to_any
        and not base.is_named_tuple
        and base.declared_metaclass is None
        and "__init_subclass__" not in base.names
        and all(fullnames.called(decorator) == PLAIN_DECORATOR for decorator in base.defn.decorators)
        for base in own
    )


def hashed_by_identity(info: TypeInfo) -> bool:
    """Whether instances of ``info`` hash by identity (``object.__hash__``): no class on the way
    is decorated (a dataclass's ``__eq__`` unsets the hash) or defines ``__eq__`` or ``__hash__``."""
    return all(not base.defn.decorators and not {"__eq__", "__hash__"} & base.names.keys() for base in info.mro[:-1])


def classes_and_registrations(module: MypyFile) -> tuple[list[ClassDef], set[TypeInfo]]:
    """The module's class definitions mypy analysed, at any depth (not in a block it found
    unreachable), and the classes a statement may register: given to a call written as a
    statement (``register_pytree_node(Model, ...)``, ``x = register(Model)``, ``return
    register(Model)``; not to ``isinstance``), itself or in a tuple or a list, or listed in a
    ``for`` loop's source."""
    definitions: list[ClassDef] = []
    given: set[TypeInfo] = set()
    for statement in checked_module.statements_anywhere(module.defs):
        if isinstance(statement, ClassDef) and statement.info is not CLASSDEF_NO_INFO:
            definitions.append(statement)
        values: list[Expression] = []
        if isinstance(statement, ForStmt):
            values.append(statement.expr)
        expression = (
            statement.expr
            if isinstance(statement, (ExpressionStmt, ReturnStmt))
            else statement.rvalue
            if isinstance(statement, AssignmentStmt)
            else None
        )
        if isinstance(expression, CallExpr) and fullnames.called(expression) not in READ_ONLY:
            values += expression.args
        for value in values:
            items = value.items if isinstance(value, (TupleExpr, ListExpr)) else [value]
            given.update(item.node for item in items if isinstance(item, RefExpr) and isinstance(item.node, TypeInfo))
    return definitions, given
