"""A plugin bug must never end the user's type check.

Every hook runs through ``guarded``: on an unexpected exception mypy gets its own result back
(the default signature or return type, as if the plugin had no hook there), and the plugin says
once, on stderr, where it gave up, so that the bug is reported and fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from mypy.plugin import AttributeContext, FunctionContext, FunctionSigContext, MethodContext, MethodSigContext
from mypy.types import FunctionLike, Type

from mypy_plugin.lib import stderr

Context = TypeVar("Context", bound=FunctionContext | MethodContext | FunctionSigContext | MethodSigContext | AttributeContext)
Result = TypeVar("Result")

_said = False


def guarded(hook: Callable[[Context], Result], fallback: Callable[[Context], Result]) -> Callable[[Context], Result]:
    """``hook``, falling back to ``fallback`` (mypy's own result) if it raises."""

    def run(ctx: Context) -> Result:
        try:
            return hook(ctx)
        except Exception as error:  # the guard's whole purpose
            say_once(ctx, error)
            return fallback(ctx)

    return run


def internal_problem(where: str, error: Exception) -> str:
    return (
        f"skipped its check at {where} after an internal error "
        f"({type(error).__name__}: {error}); mypy's own result stands there. Please report this"
    )


def say_once(ctx: object, error: Exception) -> None:
    global _said
    if not _said:
        _said = True
        line = getattr(getattr(ctx, "context", None), "line", "?")
        path = getattr(getattr(ctx, "api", None), "path", "?")
        stderr.say(internal_problem(f"{path}:{line}", error))


def default_signature(ctx: FunctionSigContext | MethodSigContext) -> FunctionLike:
    return ctx.default_signature


def default_return_type(ctx: FunctionContext | MethodContext) -> Type:
    return ctx.default_return_type


def default_attribute_type(ctx: AttributeContext) -> Type:
    return ctx.default_attr_type
