"""What a rule module declares: its error code and the hooks it needs, keyed by what they react to.

``main.py`` reads only these declarations: it wraps every hook in the guard, and answers mypy's
hook getters from tables built from ``rules/hooked.py``, the keys of every rule's hooks written
out (``rules.Hooked``), so that loading the plugin imports no rule: a rule's module is imported the
first time mypy asks for a name it hooks. mypy asks a method hook
with the receiver's class (``pkg.Sub.to_device`` for a subclass of ``jax.Array``), so method
hooks are keyed by the method's name and the hook decides from the receiver's type, or, for a
method of one class that has no subclasses to follow, by its full name
(``jax._src.pjit.JitWrapped.__call__``): a hook keyed by a common name such as ``__call__``
would take that name from every other plugin listed after this one. ``numpy_arguments`` keys
``Array.reshape``, ``take``, ``ravel`` and ``flatten`` by full name for that reason, leaving
subclasses of ``jax.Array`` unread. For a receiver typed by a TypeVar mypy names the method
after the callee (``sort of Array``), a key that a rule may declare as well. Function hooks are
keyed by the function's full name. Attribute hooks are keyed by a class's full name, and run on
every attribute of that class and of the classes deriving from it (mypy asks with the class
that declares the attribute, ``pkg.Linear.weight``): a rule for the modules of a library
(``equinox.Module``) hooks them all without naming each. Constructor hooks are keyed by a class's
full name too, and run where the code makes an instance of that class or of a class deriving
from it (mypy asks its function hook with the class's name, ``pkg.Block``): a rule for the
modules of Flax Linen (``flax.linen.Module``) sees the user's own classes made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mypy.errorcodes import ErrorCode
from mypy.plugin import AttributeContext, FunctionContext, FunctionSigContext, MethodContext, MethodSigContext
from mypy.types import FunctionLike, Type

MethodSignatureHook = Callable[[MethodSigContext], FunctionLike]
MethodHook = Callable[[MethodContext], Type]
FunctionSignatureHook = Callable[[FunctionSigContext], FunctionLike]
FunctionHook = Callable[[FunctionContext], Type]
AttributeHook = Callable[[AttributeContext], Type]


class Rule:
    """One rule: the error code it reports under (and any others), and its hooks.

    - ``method_signature_hooks``, ``method_hooks``: by method name (``"to_device"``), or by a
      method's full name (``"functools.partial.__call__"``);
    - ``function_signature_hooks``, ``function_hooks``: by full name (``"jax.numpy.clip"``);
    - ``attribute_hooks``: by a class's full name, for its attributes and its subclasses';
    - ``constructor_hooks``: by a class's full name, for the making of it and of its subclasses
      (function hooks: mypy asks them with the class's name).

    A signature hook runs before mypy checks the call's arguments (it may change the signature
    they are checked against), the other after (it sees their types, and reports).
    """

    __slots__ = (
        "attribute_hooks",
        "code",
        "constructor_hooks",
        "function_hooks",
        "function_signature_hooks",
        "method_hooks",
        "method_signature_hooks",
        "other_codes",
    )

    def __init__(
        self,
        code: ErrorCode,
        *,
        other_codes: tuple[ErrorCode, ...] = (),
        method_signature_hooks: Mapping[str, MethodSignatureHook] | None = None,
        method_hooks: Mapping[str, MethodHook] | None = None,
        function_signature_hooks: Mapping[str, FunctionSignatureHook] | None = None,
        function_hooks: Mapping[str, FunctionHook] | None = None,
        attribute_hooks: Mapping[str, AttributeHook] | None = None,
        constructor_hooks: Mapping[str, FunctionHook] | None = None,
    ) -> None:
        self.code = code
        self.other_codes = other_codes
        """Further codes the rule reports under, for kinds a user may silence apart."""
        self.method_signature_hooks: Mapping[str, MethodSignatureHook] = method_signature_hooks or {}
        self.method_hooks: Mapping[str, MethodHook] = method_hooks or {}
        self.function_signature_hooks: Mapping[str, FunctionSignatureHook] = function_signature_hooks or {}
        self.function_hooks: Mapping[str, FunctionHook] = function_hooks or {}
        self.attribute_hooks: Mapping[str, AttributeHook] = attribute_hooks or {}
        self.constructor_hooks: Mapping[str, FunctionHook] = constructor_hooks or {}


HOOK_KINDS: tuple[str, ...] = (
    "method_signature_hooks",
    "method_hooks",
    "function_signature_hooks",
    "function_hooks",
    "attribute_hooks",
    "constructor_hooks",
)
"""The attributes of a ``Rule`` (and of a ``Hooked``) that hold hooks, by kind."""
