"""Which call receivers use one of JAX's own ``Array`` methods.

mypy names a method hook after the receiver's class (``pkg.Sub.to_device``) or, for a receiver
typed by a TypeVar, after the callee (``to_device of Array``). Neither says where the method is
defined, so the decision is made from the receiver's type and its MRO, once per call: the
``ArrayReceiver`` it gives carries what a report needs.
"""

from __future__ import annotations

from mypy.nodes import FuncDef, TypeInfo
from mypy.types import CallableType, Instance, Type, TypeType, TypeVarType, get_proper_type

from mypy_plugin.lib import fullnames


class ArrayReceiver:
    """A receiver whose ``<method>`` is JAX's own ``Array.<method>``, inherited unchanged."""

    __slots__ = ("info", "method")

    def __init__(self, info: TypeInfo, method: FuncDef) -> None:
        self.info = info
        """The receiver's class (``Array``, or a subclass that does not redefine the method)."""
        self.method = method
        """JAX's own method; ``method.info`` is JAX's ``Array``."""

    @property
    def name(self) -> str:
        """The receiver's class name as the user wrote it (``Array``, ``MyArray``)."""
        return self.info.name

    @property
    def array(self) -> TypeInfo:
        """JAX's ``Array`` class, as the installed stubs declare it."""
        return self.method.info


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


def array_receiver(receiver: Type, method_name: str) -> ArrayReceiver | None:
    """The receiver, if ``receiver.<method_name>`` is JAX's own ``Array.<method_name>``.

    A class that defines its own method of that name (or an attribute) keeps mypy's normal
    behaviour: its signature is its own business.
    """
    info = receiver_class(receiver)
    if info is None:
        return None
    method = info.get_method(method_name)
    if isinstance(method, FuncDef) and method.info.fullname == fullnames.ARRAY:
        return ArrayReceiver(info, method)
    return None
