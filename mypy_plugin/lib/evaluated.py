"""Whether a place in a module's source runs as Python runs the module, read from its text.

A removed name raises only where the code naming it runs. Much of what a type checker reads
never runs (measured on CPython 3.10 to 3.13 by ``scripts/probe_annotations.py``; the table is
``mypy_plugin/contract/annotations.json``):

- a string (a string annotation, ``Optional["jnp.DeviceArray"]``): never evaluated;
- the annotation of a local variable, or of ``self.x`` in a method (PEP 526): never evaluated;
- a parameter's, a return's, a module variable's or a class variable's annotation: evaluated
  when the ``def``, the module or the class body runs, except under ``from __future__ import
  annotations`` (PEP 563), and from Python 3.14 (PEP 649: evaluated only when something reads
  them; decided from the PEP, no 3.14 interpreter was at hand to measure it);
- the body of ``if TYPE_CHECKING:`` (and the ``else`` of ``if not TYPE_CHECKING:``).

Under the future import, some code reads annotations as it runs: a function registered with a
``functools.singledispatch`` function's ``register``, and a class deriving from
``pydantic.BaseModel`` (each measured: ``AttributeError``). ``dataclasses``, ``typing.
NamedTuple``, Flax's ``struct.dataclass``, ``linen.Module`` and ``nnx.Module``, Equinox's
``Module``, ``chex.dataclass`` and jaxtyping's ``jaxtyped`` with beartype do not. beartype's and
typeguard's own decorators do, but raise their own exceptions, not JAX's: left silent, as is any
``typing.get_type_hints`` call, which may read any object's annotations.
"""

from __future__ import annotations

import ast
import builtins
from typing import Final

Position = tuple[int, int]
"""A line (from 1) and a column (from 0), as mypy and ``ast`` give them."""

DEFERRED_FROM: Final = (3, 14)
"""The first Python that evaluates annotations only when something reads them (PEP 649)."""
FUNCTION_READERS: Final = frozenset({"functools.singledispatch", "functools.singledispatchmethod"})
"""Decorators whose ``register`` evaluates the annotations of the function it registers."""
CLASS_READERS: Final = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
"""Bases whose subclasses have their annotations evaluated when the class is made."""


class Source:
    """One module's text as Python runs it: what its imports bind, and the places that do not run."""

    def __init__(self, text: str, python: tuple[int, int]) -> None:
        self.tree = ast.parse(text)
        self.lines = text.splitlines()
        self.bound: dict[str, str] = {}
        """What each imported name stands for: ``jnp`` -> ``jax.numpy``."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.bound.setdefault(alias.asname, alias.name)
                    else:
                        head = alias.name.split(".")[0]
                        self.bound.setdefault(head, head)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.bound.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")
        future = any(
            isinstance(node, ast.ImportFrom) and node.module == "__future__" and any(alias.name == "annotations" for alias in node.names)
            for node in self.tree.body
        )
        self.deferred = future or python >= DEFERRED_FROM
        """Whether the annotations Python evaluates at definition time are deferred here."""
        self.skipped: list[tuple[Position, Position]] = []
        """The spans that do not run as written."""
        self.read_by: list[tuple[Position, Position, Position, str]] = []
        """Deferred annotations that code evaluates where it runs: each span, the position of
        that code (a decorator, a class statement), and that code as written."""
        self.block(self.tree.body, in_function=False)

    def resolved(self, dotted: str) -> str | None:
        """``jnp.reshape`` as a full name (``jax.numpy.reshape``), or None for a name no import binds."""
        head, _, rest = dotted.partition(".")
        if head not in self.bound:
            return None
        return f"{self.bound[head]}.{rest}" if rest else self.bound[head]

    def runs(self, line: int, column: int) -> bool:
        """Whether the code at ``line``, ``column`` runs, as written or where something reads it."""
        return self.raised_from(line, column) is not None

    def raised_from(self, line: int, column: int) -> tuple[Position, str | None] | None:
        """Where what the code at ``line``, ``column`` raises is raised from: there, or where
        something reads it (a deferred annotation a decorator evaluates), with that reader as
        written; None where the code does not run."""
        here = (line, column)
        for start, end, at, reader in self.read_by:
            if start <= here <= end:
                return at, reader
        if any(start <= here <= end for start, end in self.skipped):
            return None
        return here, None

    # The walk

    def skip(self, node: ast.expr | ast.stmt) -> None:
        self.skipped.append(((node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0)))

    def block(self, body: list[ast.stmt], in_function: bool) -> None:
        for statement in body:
            self.statement(statement, in_function)

    def statement(self, node: ast.stmt, in_function: bool) -> None:
        if isinstance(node, ast.If) and type_checking_test(node.test) is not None:
            runs_body = not type_checking_test(node.test)
            for branch, runs in ((node.body, runs_body), (node.orelse, not runs_body)):
                if runs:
                    self.block(branch, in_function)
                else:
                    for statement in branch:
                        self.skip(statement)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reader = next((decorator for decorator in node.decorator_list if self.reads_function(decorator)), None)
            self.annotations(function_annotations(node), not self.deferred, reader)
            self.block(node.body, in_function=True)
            return
        if isinstance(node, ast.ClassDef):
            reads = self.deferred and any(self.resolved(dotted(base) or "") in CLASS_READERS for base in node.bases)
            self.class_body(node.body, not self.deferred, node if reads else None)
            return
        if isinstance(node, ast.AnnAssign):
            self.annotations([node.annotation], evaluated=not in_function and not self.deferred)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.statement(child, in_function)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                self.block(child.body, in_function)
            elif isinstance(child, ast.expr) and not (isinstance(node, ast.AnnAssign) and child is node.annotation):
                self.strings(child)

    def class_body(self, body: list[ast.stmt], evaluated: bool, reader: ast.AST | None) -> None:
        for statement in body:
            if isinstance(statement, ast.AnnAssign):
                self.annotations([statement.annotation], evaluated, reader)
                if statement.value is not None:
                    self.strings(statement.value)
            else:
                self.statement(statement, in_function=False)

    def annotations(self, nodes: list[ast.expr], evaluated: bool, reader: ast.AST | None = None) -> None:
        """Annotations evaluated where they are written, or deferred: then read where ``reader``
        runs (a decorator, a class statement), or not at all."""
        for node in nodes:
            if evaluated:
                self.strings(node)
            elif isinstance(reader, (ast.expr, ast.stmt)):
                span = ((node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0))
                written = ast.unparse(reader) if isinstance(reader, ast.expr) else f"class {getattr(reader, 'name', '')}"
                self.read_by.append((*span, (reader.lineno, reader.col_offset), written))
            else:
                self.skip(node)

    def strings(self, node: ast.expr) -> None:
        """A string is never code: a type written in one is not evaluated (``Optional["T"]``,
        ``cast("T", x)``)."""
        pending: list[ast.AST] = [node]
        while pending:
            part = pending.pop()
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                self.skip(part)
            elif isinstance(part, ast.JoinedStr):  # an f-string's text parts: before 3.12 they span the whole f-string
                pending += [value.value for value in part.values if isinstance(value, ast.FormattedValue)]
            else:
                pending += ast.iter_child_nodes(part)

    def reads_function(self, decorator: ast.expr) -> bool:
        """``@dispatch.register`` of a ``functools.singledispatch`` function of the module."""
        if not (isinstance(decorator, ast.Attribute) and decorator.attr == "register" and isinstance(decorator.value, ast.Name)):
            return False
        name = decorator.value.id
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return any(self.resolved(dotted(d) or "") in FUNCTION_READERS for d in node.decorator_list)
        return False


def function_annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    found = [argument.annotation for argument in every if argument is not None and argument.annotation is not None]
    return [*found, *([node.returns] if node.returns is not None else [])]


def type_checking_test(test: ast.expr) -> bool | None:
    """True for ``TYPE_CHECKING`` (``typing.TYPE_CHECKING``), False for ``not TYPE_CHECKING``,
    None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = type_checking_test(test.operand)
        return None if inner is None else not inner
    if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
        return True
    return None


def dotted(node: ast.AST) -> str | None:
    """``jax.numpy.reshape`` for the expression ``jax.numpy.reshape``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def handles(handler: ast.ExceptHandler, source: Source, raised: type[BaseException]) -> bool:
    """Whether ``except`` clause ``handler`` may catch ``raised``: a bare ``except``, a builtin
    base of it, or a class this module cannot tell (an imported or a user's exception: it may
    be a base)."""
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for name in names:
        written = dotted(name)
        if written is None or source.resolved(written) is not None or "." in written:
            return True  # an expression, or a name an import binds: undecided
        found = getattr(builtins, written, None)
        if not (isinstance(found, type) and issubclass(found, BaseException)):
            return True  # the module's own class, or unknown
        if issubclass(raised, found):
            return True
    return False
