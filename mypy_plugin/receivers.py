"""Which call receivers use one of JAX's own ``Array`` methods.

mypy names a method hook after the receiver's class (``pkg.Sub.to_device``) or, for a receiver
typed by a TypeVar, after the callee (``to_device of Array``). Neither says where the method is
defined, so the decision is made from the receiver's type and its MRO.
"""

from __future__ import annotations

from mypy.nodes import FuncDef, TypeInfo
from mypy.types import (
    CallableType,
    Instance,
    ProperType,
    Type,
    TypeType,
    TypeVarType,
    get_proper_type,
)

from mypy_plugin import fullnames


def receiver_class(receiver: Type) -> TypeInfo | None:
    """The class whose method a call on ``receiver`` uses, if mypy's type names one."""
    proper = get_proper_type(receiver)
    if isinstance(proper, TypeVarType):
        proper = get_proper_type(proper.upper_bound)
    if isinstance(proper, TypeType):
        proper = proper.item
    if isinstance(proper, CallableType) and proper.is_type_obj():
        return proper.type_object()
    if isinstance(proper, Instance):
        return proper.type
    return None


def array_method(receiver: ProperType, name: str) -> FuncDef | None:
    """JAX's own ``Array.<name>`` if ``receiver`` inherits it unchanged, else None.

    A class that defines its own method of that name (or an attribute) keeps mypy's normal
    behaviour: its signature is its own business.
    """
    info = receiver_class(receiver)
    if info is None:
        return None
    method = info.get_method(name)
    if isinstance(method, FuncDef) and method.info.fullname == fullnames.ARRAY:
        return method
    return None


def display_name(receiver: ProperType) -> str:
    """The receiver's class name as the user wrote it (``Array``, ``MyArray``)."""
    info = receiver_class(receiver)
    return info.name if info is not None else "Array"
