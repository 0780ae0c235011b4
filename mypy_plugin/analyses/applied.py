"""Where the function a transform returns is called: the calls whose arguments decide what runs.

``jax.grad(f)`` and ``jax.vmap(f)`` return a plain ``Callable`` in JAX's stubs, whose calls run
no hook of the plugin. So the calls are found in the module's syntax tree from the transform:
called at once (``jax.grad(f)(3.0)``), or through the one name it is assigned to
(``grad_fn = jax.grad(f)``, then ``grad_fn(x)`` in the statements after it in that block, the
blocks inside them and the functions defined there), or, for a decorated function, through its
own name in the statements after the definition. A name bound again in that scope is not
followed (which binding a call sees is not known).
"""

from __future__ import annotations

from mypy.nodes import AssignmentStmt, Block, CallExpr, Decorator, NameExpr, Statement
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.lib import checked_module, nodes, statements


def calls_of_result(api: CheckerPluginInterface, transform: CallExpr) -> list[CallExpr]:
    """The calls of what ``transform`` (``jax.grad(f, ...)``) returns."""
    chain = checked_module.enclosing_statements(api, transform)
    if not chain:
        return []
    holding = chain[-1]
    direct = [call for call in nodes.calls_in([holding]) if call.callee is transform]
    if direct:
        return direct
    if not (isinstance(holding, AssignmentStmt) and holding.rvalue is transform and len(holding.lvalues) == 1):
        return []
    target = holding.lvalues[0]
    return calls_of_name(api, chain, target) if isinstance(target, NameExpr) else []


def calls_of_decorated(api: CheckerPluginInterface, decorator: Decorator) -> list[CallExpr]:
    """The calls of a decorated function by its name, after its definition."""
    chain = checked_module.enclosing_statements(api, decorator)
    if not chain or chain[-1] is not decorator:
        return []
    return calls_of_name(api, chain, NameExpr(decorator.name), decorator.var)


def calls_of_name(api: CheckerPluginInterface, chain: list[Statement], name: NameExpr, node: object = None) -> list[CallExpr]:
    """The calls of ``name`` (bound by the innermost statement of ``chain``) after it."""
    after = checked_module.statements_after(api, chain)
    if after is None or any(name.name in bound_names(statement) for statement in after):
        return []
    node = node if node is not None else name.node
    return [
        call
        for call in nodes.calls_in(after)
        if isinstance(call.callee, NameExpr) and call.callee.name == name.name and (node is None or call.callee.node is node)
    ]


def bound_names(statement: Statement) -> set[str]:
    """The names ``statement`` binds, in its own scope (not in the functions it defines)."""
    found = statements.assigned_names(Block([statement]))
    name = getattr(statement, "name", None)
    return found | {name} if isinstance(name, str) else found
