"""What the readers of one walk share: the walk itself (``tracing.Walk``), handed to the reader of
expressions (``expressions.Expressions``) and of calls (``calls.Calls``) as mypy's checker hands
itself to its expression checker. The readers see it through this protocol, so that neither
imports the walk."""

from __future__ import annotations

from typing import Protocol

from mypy.nodes import CallExpr, Expression, FuncDef, FuncItem, MypyFile

from mypy_plugin.analyses.sites import Site
from mypy_plugin.analyses.transforms import TransformedFunction
from mypy_plugin.analyses.values import Env, State

Followed = tuple[FuncDef, tuple[tuple[str, State], ...], tuple[tuple[str, State], ...]]
"""A helper walked with its parameters' and its closure's states."""
Sites = dict[tuple[str, int, int], Site]
"""What a walk found, keyed by kind and place: one site per kind at one place."""


class Trace(Protocol):
    """One walk of a transformed function, or of a helper it calls with tracers."""

    transformed: TransformedFunction
    """The transformed function, and how it is transformed."""
    staged: bool
    """Whether the transform stages the function (``jax.jit``): every JAX result is a tracer."""
    tree: MypyFile
    module: str
    """The checked module: only its own functions are followed as helpers (a change to one
    makes mypy check the module again, incrementally and in the daemon alike)."""
    depth: int
    """How many helper calls deep the walk is (0: the transformed function)."""
    function: FuncItem
    """The function walked: the transformed one, or the helper."""
    sites: Sites
    printing: int
    """How many calls that print their arguments the walk is inside."""
    outside: set[str]
    """Names declared ``global`` or ``nonlocal``: never local values."""
    defined: set[FuncDef]
    """The functions defined in the walked body: followed when called there, with the
    closure's states."""
    followed: dict[Followed, State]
    """Each helper walked with a set of argument states, with what it returns: walked once per
    transform, and not again on recursion (None while it is being walked)."""

    def site(self, kind: str, node: Expression, value: Expression, construct: str, callee: str = "", raises: str = "") -> None:
        """Record a site, unless a handler may catch what JAX raises there."""

    def call(self, node: CallExpr, env: Env) -> State:
        """The state of a call's value (``calls.Calls``)."""

    def helper(self, function: FuncDef, env: Env) -> tuple[State, Sites]:
        """Walk a helper's body from ``env``, one call deeper: what it returns, and its sites."""
