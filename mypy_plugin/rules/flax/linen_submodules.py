"""``jax-linen-submodule`` (``docs/rules/``): a Linen submodule made where Flax does not let a
module make one.

A Linen module makes its submodules in ``setup`` or in a method decorated ``@nn.compact`` (and in
the methods those call); a submodule made in any other method of the module raises
``AssignSubModuleError`` as that method runs inside ``init`` or ``apply``. PyTorch code makes
layers where it uses them, in a ``forward`` ported as a plain ``__call__``.

Read from the hook mypy runs where the code makes an instance of a Linen class (a constructor
hook keyed by ``flax.linen.Module``: Flax's layers and the user's own classes) or calls a
``functools.partial``, so a project without Flax imports nothing of this rule. Which methods of a
class run outside ``setup`` and every compact method is read once per tree (``linen_methods``).
"""

from __future__ import annotations

import itertools
from typing import Final, TypeGuard

from mypy.nodes import (
    FUNC_NO_INFO,
    LDEF,
    AssignmentStmt,
    CallExpr,
    ForStmt,
    FuncDef,
    FuncItem,
    MemberExpr,
    NameExpr,
    Node,
    Statement,
    TypeInfo,
    WhileStmt,
)
from mypy.plugin import CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import Instance, Type, get_proper_type

from mypy_plugin.analyses import transforms
from mypy_plugin.lib import checked_module, mypy_internals, nodes, reporting, statements
from mypy_plugin.lib.errorcodes import LINEN_SUBMODULE
from mypy_plugin.lib.rule import Rule
from mypy_plugin.lib.source import source
from mypy_plugin.rules.flax import linen_methods
from mypy_plugin.rules.flax.linen_methods import LINEN_MODULE

CODE: Final = LINEN_SUBMODULE

PARTIAL_CALL: Final = "functools.partial.__call__"
"""A class of submodules kept as a ``functools.partial`` in ``setup`` and called to make one."""

MADE_OUTSIDE: Final = 'submodule "{cls}" made in "{method}", which is neither "setup" nor compact; Flax raises AssignSubModuleError'
DECORATE: Final = 'Decorate "{method}" with "@{compact}"{needs}: a compact method makes its submodules as it runs'
IN_SETUP: Final = 'Or make it once in "setup", "self.{name} = {made}", and call "self.{name}" here'


def on_made(ctx: FunctionContext | MethodContext) -> Type:
    """An instance of a Linen class made in a body mypy checks (``nn.Dense(3)``, ``Block(8)``, a
    ``functools.partial`` of a class called): reported where the method making it runs outside
    ``setup`` and every compact method of its module, the first made there."""
    made = get_proper_type(ctx.default_return_type)
    if not isinstance(made, Instance) or not made.type.has_base(LINEN_MODULE):
        return ctx.default_return_type
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    method = mypy_internals.current_function(ctx.api)
    if not isinstance(call, CallExpr) or tree is None or not plain_linen_method(method) or linen_methods.may_pass_parent(call):
        return ctx.default_return_type
    classes = linen_methods.linen_classes(tree)
    only_outside = classes.outside.get(method)
    statement = checked_module.statement_at(ctx.api, call)
    parts = linen_methods.enclosing_parts(statement, call) if statement is not None else None
    if (
        only_outside is None
        or statement is None
        or parts is None
        or not linen_methods.runs_when_reached(parts, call, surely=not only_outside)
    ):
        return ctx.default_return_type
    if not only_outside and not on_straight_path(method, statement):
        return ctx.default_return_type  # run from compact code too: only what runs whenever it does
    if linen_methods.made_class(call) is None and not classes.partial_of_a_class(call, method):
        return ctx.default_return_type  # made through something other than its class's name
    if classes.first_made.setdefault(method, call) is call:
        report_made_outside(ctx.api, call, made.type, method, statement, parts)
    return ctx.default_return_type


def plain_linen_method(method: FuncItem | None) -> TypeGuard[FuncDef]:
    """A method written as a plain ``def`` in a Linen class, whose body runs when it is called
    (no ``async``, no generator): only such a method may run outside ``setup`` and every compact
    method (asked first: most submodules are made in compact methods)."""
    return (
        isinstance(method, FuncDef)
        and not method.is_decorated
        and not (method.is_coroutine or method.is_generator or method.is_async_generator)
        and method.info is not FUNC_NO_INFO
        and method.name != "setup"
        and method.info.has_base(LINEN_MODULE)
    )


def on_straight_path(method: FuncDef, statement: Statement) -> bool:
    """Whether ``statement`` runs whenever ``method`` does (no branch, loop or ``try`` decides)."""
    return any(each is statement for each in statements.straight_path(method.body))


def report_made_outside(
    api: CheckerPluginInterface, call: CallExpr, made: TypeInfo, method: FuncDef, statement: Statement, parts: list[Node]
) -> None:
    """``jax-linen-submodule``: a Linen module made in a method that runs outside ``setup`` and
    every compact method. mypy may check the call while it only tries the call around it
    (``nn.relu(nn.Dense(3)(x))`` against each item of an overloaded ``relu``), under watchers that
    drop what is reported: the submodule is made whichever item fits, so the report goes past
    them, once per line (mypy drops a repeated error's notes)."""
    message = MADE_OUTSIDE.format(cls=made.name, method=method.name)
    compact, imports = checked_module.reference(api, "flax.linen", "compact")
    notes = [DECORATE.format(method=method.name, compact=compact, needs=checked_module.needs(imports))]
    written = source(call)
    if written is not None and movable_to_setup(api, call, method, parts):
        notes.append(IN_SETUP.format(name=attribute_name(statement, call, made, method), made=written))
    with mypy_internals.unwatched(api) as shown:
        if shown and not mypy_internals.already_reported(api, call, message):
            reporting.error_with_notes(api, call, CODE, message, notes)


def movable_to_setup(api: CheckerPluginInterface, call: CallExpr, method: FuncDef, parts: list[Node]) -> bool:
    """Whether ``call`` would make the same submodule in ``setup``: it reads no name local to the
    method but its receiver (``h.shape[-1]``; ``self.hidden`` is there too), and runs once (not in
    a loop or a comprehension, which make one per turn)."""
    receiver = transforms.receiver_of(method)
    if any(isinstance(node, NameExpr) and node.kind == LDEF and node.name != receiver for node in nodes.walk(call.args)):
        return False
    if not linen_methods.runs_when_reached(parts, call, surely=True):
        return False
    return not any(isinstance(statement, (ForStmt, WhileStmt)) for statement in checked_module.enclosing_statements(api, call))


def attribute_name(statement: Statement, call: CallExpr, made: TypeInfo, method: FuncDef) -> str:
    """The name the submodule is kept under in ``setup``: the variable the statement binds it to
    (``dense = nn.Dense(3)``), else the class's name in lower case; with a number added where the
    class already keeps something under that name (``dense_1``)."""
    name = made.name.lower()
    if isinstance(statement, AssignmentStmt) and statement.rvalue is call and len(statement.lvalues) == 1:
        target = statement.lvalues[0]
        if isinstance(target, NameExpr):
            name = target.name
    taken = set(method.info.names) | {
        node.name for node in nodes.walk([method.info.defn]) if isinstance(node, MemberExpr) and isinstance(node.expr, NameExpr)
    }
    candidates = itertools.chain([name], (f"{name}_{number}" for number in itertools.count(1)))
    return next(candidate for candidate in candidates if candidate not in taken)


RULE: Final = Rule(CODE, constructor_hooks={LINEN_MODULE: on_made}, method_hooks={PARTIAL_CALL: on_made})
