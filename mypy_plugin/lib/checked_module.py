"""What the module being checked imports and where a node sits in it, read from its syntax tree.

The plugin interface does not hand hooks the module's tree; ``mypy_internals.module_tree``
reads it. Without it, callers get no imports and fall back on what holds for any module.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from typing import Final, Generic, TypeVar

from mypy.nodes import (
    Block,
    ClassDef,
    Context,
    Decorator,
    Expression,
    ExpressionStmt,
    FuncDef,
    IfStmt,
    Import,
    ImportBase,
    ImportFrom,
    MemberExpr,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    Statement,
    UnaryExpr,
)
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.lib import mypy_internals, statements

Read = TypeVar("Read")

SHORT_NAMES: Final = {"jax.numpy": "jnp", "equinox": "eqx", "flax.linen": "nn"}
"""The names the libraries' documentation imports their modules under."""
BOUND_BY_PARENT: Final = frozenset({"jax.numpy", "jax.random"})
"""Submodules their package's ``__init__`` imports (``from jax import numpy as numpy``), so that
any ``import jax`` or ``import jax.<module>`` makes ``jax.numpy`` reachable."""


def imports(api: CheckerPluginInterface, package: str) -> list[ImportBase]:
    """The module's imports of ``package`` or its submodules, in source order (also those
    inside functions); empty when the tree cannot be read."""
    tree = mypy_internals.module_tree(api)
    if tree is None:
        return []
    found = [node for node in tree.imports if isinstance(node, ImportBase) and imports_package(node, package)]
    return sorted(found, key=lambda node: (node.line, node.column))


def imports_package(node: ImportBase, package: str) -> bool:
    """``import jax.numpy``, ``from jax import numpy`` and ``from jax.numpy import zeros`` all
    import ``jax.numpy`` (``from X import Y`` may import the module ``X.Y``)."""
    module = getattr(node, "id", "")
    names = [name for name, _ in getattr(node, "ids", [])]
    names += [module] + [f"{module}.{name}" for name, _ in getattr(node, "names", [])]
    return any(name == package or name.startswith(package + ".") for name in names if name)


def reference(api: CheckerPluginInterface, module: str, name: str) -> tuple[str, tuple[str, ...]]:
    """How code anywhere in the checked module can name ``module.name`` (``Spelling.reference``)."""
    return spelling(api, module).reference(name)


def needs(imports: Sequence[str]) -> str:
    """What a note adds after code that needs imports the module lacks: `` (needs "import
    equinox as eqx")``; nothing where it needs none."""
    return " (needs " + ", ".join(f'"{statement}"' for statement in imports) + ")" if imports else ""


def spelling(api: CheckerPluginInterface, module: str) -> Spelling:
    """How the checked module names the members of ``module``; a module with no tree to read
    gets the short name and its import."""
    tree = mypy_internals.module_tree(api)
    return Spelling(tree.defs if tree is not None else [], module)


class Spelling:
    """How one module's code names the members of ``module`` (``jax.numpy``), decided once from
    its top-level imports where a report needs several names (``jnp.where``, ``jnp.stack``)."""

    def __init__(self, defs: list[Statement], module: str) -> None:
        self.module = module
        self.imports = [node for node in defs if isinstance(node, (Import, ImportFrom))]

    def reference(self, name: str) -> tuple[str, tuple[str, ...]]:
        """How code anywhere in the module can name ``module.name``: through one of its
        top-level imports (``dataclasses.replace``, ``dc.replace``, ``replace``, ``jnp.where``,
        ``jax.numpy.where`` after ``import jax``), else as ``<short name>.name`` with the import
        statement that makes it so (the second item). Imports inside functions or under
        conditions do not count: they may not bind the name where the reference is used."""
        module = self.module
        parent = module.rpartition(".")[0]
        for node in self.imports:
            if isinstance(node, Import):
                for imported, alias in node.ids:
                    if imported == module:
                        return f"{alias or module}.{name}", ()
            elif node.relative == 0:
                for imported, alias in node.names:
                    if node.id == module and imported == name:
                        return alias or name, ()
                    if f"{node.id}.{imported}" == module:
                        return f"{alias or imported}.{name}", ()
        for node in self.imports:
            if isinstance(node, Import) and module in BOUND_BY_PARENT:
                if any(alias is None and (imported + ".").startswith(parent + ".") for imported, alias in node.ids):
                    return f"{module}.{name}", ()
        alias = SHORT_NAMES.get(module, module)
        statement = f"import {module}" if alias == module else f"import {module} as {alias}"
        return f"{alias}.{name}", (statement,)

    def written(self, name: str) -> str:
        """``module.name`` as the module's code can write it, for a note to quote."""
        return self.reference(name)[0]

    def prefix(self) -> str:
        """How the module names ``module`` itself (``jnp``, ``np``, ``jax.numpy``); the short
        name where it does not import it as a module."""
        written, imports = self.reference("where")
        prefix = written.rpartition(".")[0]
        return prefix if prefix and not imports else SHORT_NAMES.get(self.module, self.module)


def statement_at(api: CheckerPluginInterface, node: Context) -> Statement | None:
    """The innermost statement of the checked module that holds ``node``; None when the tree
    cannot be read."""
    found = enclosing_statements(api, node)
    return found[-1] if found else None


def enclosing_statements(api: CheckerPluginInterface, node: Context) -> list[Statement]:
    """The statements of the checked module that hold ``node``, outermost first, found by
    their lines (only the blocks around it are searched); empty when the tree cannot be read.
    Found once per line of the tree checked now (``_chains``): several rules ask it of one call."""
    tree = mypy_internals.module_tree(api)
    if tree is None:
        return []
    chains = _chains(tree)
    known = chains.get(node.line)
    if known is None:
        known = chains[node.line] = statements_holding(tree.defs, node.line)
    return list(known)


class PerTree(Generic[Read]):
    """What is read once from the tree checked now (``read(tree)``), kept until another tree is
    checked. The daemon keeps a module's tree object when its file changes and gives it new
    statements: a new list of statements is a new tree here."""

    def __init__(self, read: Callable[[MypyFile], Read]) -> None:
        self.read = read
        self.last: tuple[MypyFile, list[Statement], Read] | None = None

    def __call__(self, tree: MypyFile) -> Read:
        if self.last is None or self.last[0] is not tree or self.last[1] is not tree.defs:
            self.last = (tree, tree.defs, self.read(tree))
        return self.last[2]


_chains: PerTree[dict[int, list[Statement]]] = PerTree(lambda tree: {})
"""The chains of statements found in the tree checked now, by line."""


def statements_holding(defs: list[Statement], line: int) -> list[Statement]:
    """The statements among ``defs`` and the blocks inside them that hold ``line``, outermost first."""
    found: list[Statement] = []
    candidates = defs
    while candidates:
        holding = holding_line(candidates, line)
        if not holding:
            break
        found.append(holding[-1])
        candidates = inner_statements(found[-1])
    return found


def only_for_type_checkers(api: CheckerPluginInterface, node: Context) -> bool:
    """Whether ``node`` sits in a block that only type checkers run: the body of ``if
    TYPE_CHECKING:`` (the ``else`` of ``if not TYPE_CHECKING:``), which Python never runs.
    False when the tree cannot be read."""
    chain = enclosing_statements(api, node)
    for outer, inner in zip(chain, chain[1:]):
        if not isinstance(outer, IfStmt) or len(outer.expr) != 1:
            continue
        checking = type_checking_condition(outer.expr[0])
        block = outer.body[0] if checking else outer.else_body if checking is False else None
        if block is not None and any(statement is inner for statement in block.body):
            return True
    return False


def type_checking_condition(test: Expression) -> bool | None:
    """True for ``TYPE_CHECKING`` (``typing.TYPE_CHECKING``), False for ``not TYPE_CHECKING``,
    None for any other test."""
    if isinstance(test, UnaryExpr) and test.op == "not":
        inner = type_checking_condition(test.expr)
        return None if inner is None else not inner
    if isinstance(test, (NameExpr, MemberExpr)) and test.name == "TYPE_CHECKING":
        return True
    return None


def statements_after(api: CheckerPluginInterface, chain: list[Statement]) -> list[Statement] | None:
    """The statements that follow the innermost of ``chain`` (``enclosing_statements``) in its
    block; None when the tree cannot be read."""
    found = block_holding(api, chain)
    return found[0][found[1] + 1 :] if found is not None else None


def statements_before(api: CheckerPluginInterface, chain: list[Statement]) -> list[Statement] | None:
    """The statements that come before the innermost of ``chain`` in its block, in order; None
    when the tree cannot be read."""
    found = block_holding(api, chain)
    return found[0][: found[1]] if found is not None else None


def block_holding(api: CheckerPluginInterface, chain: list[Statement]) -> tuple[list[Statement], int] | None:
    """The block that holds the innermost of ``chain``, and where it is in it."""
    tree = mypy_internals.module_tree(api)
    if not chain or tree is None:
        return None
    holding = chain[-1]
    parent = chain[-2] if len(chain) > 1 else None
    blocks = [tree.defs] if parent is None else [block.body for block in (*statements.compound_blocks(parent), *definition_blocks(parent))]
    for block in blocks:
        index = next((i for i, statement in enumerate(block) if statement is holding), None)
        if index is not None:
            return block, index
    return None


def value_discarded(api: CheckerPluginInterface, node: Context) -> bool:
    """Whether ``node`` is the whole expression of an expression statement (``x.sort()`` as a
    statement of its own), so that its value is thrown away. Decided by identity, which holds
    because the tree's nodes are the ones the checker visits (``mypy_internals.module_tree``);
    every statement on the node's line is looked at (``x.sort(); y = 1``). False when the tree
    cannot be read or no statement holds that very node: a report that needs it is not made."""
    tree = mypy_internals.module_tree(api)
    candidates = tree.defs if tree is not None else []
    while candidates:
        holding = holding_line(candidates, node.line)
        if any(isinstance(s, ExpressionStmt) and s.expr is node for s in holding):
            return True
        candidates = [s for statement in holding for s in inner_statements(statement)]
    return False


def holding_line(candidates: list[Statement], line: int) -> list[Statement]:
    """The candidates among ``candidates`` whose lines include ``line``. Statements of one block
    come in the order of their lines, so only those that start on or before it are read, from
    the last one back, until one ends before it."""
    found: list[Statement] = []
    for statement in reversed(candidates[: bisect.bisect_right(candidates, line, key=first_line)]):
        if last_line(statement) >= line:
            found.append(statement)
        elif found or statement.line < line:
            break
    return found[::-1]


def first_line(statement: Statement) -> int:
    return statement.line


def last_line(statement: Statement) -> int:
    """The last line of a statement; for an overloaded function or a property with a setter,
    whose node mypy gives no end line, that of its last part."""
    if isinstance(statement, OverloadedFuncDef):
        return max([statement.line, *(last_line(part) for part in overload_parts(statement))])
    if isinstance(statement, Decorator) and statement.end_line is None:
        return statement.func.end_line or statement.line
    return statement.end_line or statement.line


def inner_statements(statement: Statement) -> list[Statement]:
    """The statements of the blocks directly inside ``statement``, in the order of their lines:
    mypy's support for dataclasses appends the methods it makes to a class's body (its
    ``__mypy-replace`` at the class's line), which ``holding_line`` would otherwise stop at."""
    found = [s for block in (*statements.compound_blocks(statement), *definition_blocks(statement)) for s in block.body]
    return sorted(found, key=first_line)


def decorated_by(api: CheckerPluginInterface, call: Context) -> Decorator | None:
    """The decorated function among whose decorators ``call`` is (``@jax.jit(...)``,
    ``@partial(jax.jit, ...)``); None when there is none or the tree cannot be read."""
    for statement in reversed(enclosing_statements(api, call)):
        if isinstance(statement, Decorator) and any(node is call for node in statement.decorators):
            return statement
    return None


def statements_anywhere(defs: list[Statement]) -> Iterator[Statement]:
    """Every statement among ``defs`` and in the blocks and bodies inside them, at any depth,
    but those of a block mypy found unreachable (it analyses nothing there)."""
    pending = list(defs)
    while pending:
        statement = pending.pop()
        if isinstance(statement, Block) and statement.is_unreachable:
            continue
        pending.extend(
            inner
            for block in (*statements.compound_blocks(statement), *definition_blocks(statement))
            if not block.is_unreachable
            for inner in block.body
        )
        yield statement


def definition_blocks(statement: Statement) -> list[Block]:
    """The body of a function (each item of an overloaded one) or of a class."""
    if isinstance(statement, Decorator):
        return [statement.func.body]
    if isinstance(statement, FuncDef):
        return [statement.body]
    if isinstance(statement, ClassDef):
        return [statement.defs]
    if isinstance(statement, OverloadedFuncDef):
        return [part.func.body if isinstance(part, Decorator) else part.body for part in overload_parts(statement)]
    return []


def overload_parts(statement: OverloadedFuncDef) -> list[Decorator | FuncDef]:
    """The items of an overloaded function (or of a property with a setter), then its
    implementation if it has one."""
    return [*statement.items, *([statement.impl] if statement.impl is not None else [])]
