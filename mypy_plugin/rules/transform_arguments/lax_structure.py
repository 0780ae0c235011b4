"""``jax-lax-structure`` (``docs/rules/jax-lax-structure.md``): how the rule finds it.

Structures are read from the code (``analyses/structures.py``): the literal or declared initial
carry, and every ``return`` of the function given (a function of the module or one defined in
the enclosing function, or a lambda), with its parameters holding what JAX passes. A body is
reported only where every ``return`` it has gives a structure that certainly differs; shapes
and dtypes are not decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mypy.nodes import CallExpr, Expression, FuncItem, LambdaExpr, ListExpr, TupleExpr
from mypy.plugin import FunctionContext
from mypy.types import Type

from mypy_plugin.analyses import structures, transforms
from mypy_plugin.analyses.structures import Returned, Returns, Structure
from mypy_plugin.lib import arguments, errorcodes, fullnames, mypy_internals, reporting
from mypy_plugin.lib.rule import Rule

CODE: Final = errorcodes.LAX_STRUCTURE

LOOPS: Final = {
    fullnames.LAX_LOOPS + "scan": ("jax.lax.scan", (0, "f"), (1, "init"), 0),
    fullnames.LAX_LOOPS + "fori_loop": ("jax.lax.fori_loop", (2, "body_fun"), (3, "init_val"), 1),
    fullnames.LAX_LOOPS + "while_loop": ("jax.lax.while_loop", (1, "body_fun"), (2, "init_val"), 0),
}
"""Each loop: as printed, where its body and its initial carry are passed (position, name), and
which of the body's parameters is the carry."""
BRANCHES: Final = {
    fullnames.LAX_CONDITIONALS + "cond": ("jax.lax.cond", ((1, "true_fun"), (2, "false_fun")), 3),
    fullnames.LAX_CONDITIONALS + "switch": ("jax.lax.switch", ((1, "branches"),), 2),
}
"""Each conditional: as printed, where its branches are passed, and the position of the first
operand."""

NOT_A_PAIR: Final = '{body} returns {got} to jax.lax.scan, which needs a pair "(carry, y)"; JAX raises TypeError'
RETURN_A_PAIR: Final = 'Return the new carry and the step\'s output: "return carry, y" ("return carry, None" when there is none)'
CARRY_CHANGED: Final = "{body} returns {got} as the carry of {loop}, which starts from {initial}; JAX raises TypeError"
CARRY_CHANGED_INSIDE: Final = (
    "{body} returns a carry of {loop} that differs from the initial one at {path}: {got} against {initial}; JAX raises TypeError"
)
KEEP_THE_CARRY: Final = (
    "The carry keeps its structure from step to step (tuple lengths, dict keys, NamedTuple classes, None against an array): "
    "return it in the form it came in"
)
RETURNS_NOTHING: Final = "{body} ends without a return: it returns None"
AT_LINE: Final = "Returned at line {line}"
BRANCHES_DIFFER: Final = "The branches of {conditional} return {a} ({first}) and {b} ({second}); JAX raises TypeError"
BRANCHES_DIFFER_INSIDE: Final = (
    "The branches of {conditional} return different structures at {path}: {a} ({first}) against {b} ({second}); JAX raises TypeError"
)
SAME_STRUCTURE: Final = (
    "Every branch returns the same structure (tuple lengths, dict keys, NamedTuple classes, None against an array); "
    'where a branch has nothing to return, return zeros of the same form (e.g. "jnp.zeros_like(x)")'
)


def on_loop(ctx: FunctionContext) -> Type:
    """``jax.lax.scan``, ``fori_loop`` or ``while_loop``: the body's returns against the
    initial carry."""
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    fullname = fullnames.called(call)
    if not isinstance(call, CallExpr) or tree is None or fullname not in LOOPS:
        return ctx.default_return_type
    printed, body_at, init_at, carry_position = LOOPS[fullname]
    body = passed_function(call, body_at, tree.fullname)
    init = argument_index(call, init_at)
    if body is None or init is None:
        return ctx.default_return_type
    initial = structure_of_argument(ctx, call, init)
    parameters = structures.positional_parameters(body)
    if initial is None or len(parameters) <= carry_position:
        return ctx.default_return_type
    returns = Returns(body, {parameters[carry_position]: initial}).read()
    if not returns:
        return ctx.default_return_type
    if printed == "jax.lax.scan":
        if all(structures.pair(found) is False for _, found in returns):
            report_not_a_pair(ctx, call, body, returns)
            return ctx.default_return_type
        carries = [
            (node, found.items[0] if isinstance(found, structures.Node) and structures.pair(found) else None) for node, found in returns
        ]
    else:
        carries = returns
    if all(structures.differ(found, initial) for _, found in carries) and not structures.registered_apart(
        ctx.api, initial, *(found for _, found in carries)
    ):
        report_carry_changed(ctx, call, body, printed, carries, initial)
    return ctx.default_return_type


def on_branches(ctx: FunctionContext) -> Type:
    """``jax.lax.cond`` or ``switch``: what each branch returns, against each other."""
    call = ctx.context
    tree = mypy_internals.module_tree(ctx.api)
    fullname = fullnames.called(call)
    if not isinstance(call, CallExpr) or tree is None or fullname not in BRANCHES:
        return ctx.default_return_type
    printed, places, first_operand = BRANCHES[fullname]
    functions: list[FuncItem] = []
    for place in places:
        index = argument_index(call, place)
        if index is None:
            return ctx.default_return_type
        node = call.args[index]
        items = node.items if isinstance(node, (ListExpr, TupleExpr)) else [node]
        for item in items:
            function = transforms.function_of(item, tree.fullname)
            if function is None:
                return ctx.default_return_type
            functions.append(function)
    operands = [arg for arg, name in zip(call.args[first_operand:], call.arg_names[first_operand:]) if name is None]
    structured = [(function, branch_structure(ctx, call, function, operands)) for function in functions]
    known = [(function, found) for function, found in structured if found is not None]
    for (first, a), (second, b) in zip(known, known[1:]):
        if structures.differ(a, b) and not structures.registered_apart(ctx.api, a, b):
            path, a_part, b_part = structures.first_difference(a, b)
            described = structures.described_apart(a_part, b_part)
            message = (BRANCHES_DIFFER_INSIDE if path else BRANCHES_DIFFER).format(
                conditional=printed,
                path=path,
                a=described[0],
                b=described[1],
                first=structures.named(first),
                second=structures.named(second),
            )
            reporting.error_with_notes(ctx.api, call, CODE, message, [SAME_STRUCTURE])
            break
    return ctx.default_return_type


def branch_structure(ctx: FunctionContext, call: CallExpr, function: FuncItem, operands: list[Expression]) -> Structure:
    """What a branch returns, where every ``return`` of it agrees; None where unknown."""
    parameters = structures.positional_parameters(function)
    given = {name: structure_of_argument(ctx, call, call.args.index(operand)) for name, operand in zip(parameters, operands)}
    returns = Returns(function, given).read()
    found = {found for _, found in returns}
    return found.pop() if len(found) == 1 else None


def argument_index(call: CallExpr, place: tuple[int, str]) -> int | None:
    """The index of the one argument written for a parameter (by position or name)."""
    written = arguments.written_for(call, *place)
    return written[0] if len(written) == 1 else None


def passed_function(call: CallExpr, place: tuple[int, str], module: str) -> FuncItem | None:
    index = argument_index(call, place)
    return transforms.function_of(call.args[index], module) if index is not None else None


def structure_of_argument(ctx: FunctionContext, call: CallExpr, index: int) -> Structure:
    """An argument's structure (``structures.of_argument``), with the type mypy gives it here."""
    node = call.args[index]
    typed = next((typ for types, args in zip(ctx.arg_types, ctx.args) for typ, arg in zip(types, args) if arg is node), None)
    return structures.of_argument(ctx.api, node, typed)


def subject(function: FuncItem) -> str:
    """A function as the subject of a message: ``"body"``, or ``The lambda``."""
    name = structures.named(function)
    return name[:1].upper() + name[1:]


def report_not_a_pair(ctx: FunctionContext, call: CallExpr, body: FuncItem, returns: Sequence[Returned]) -> None:
    got = describe_returns(returns)
    notes = [RETURN_A_PAIR, *where(body, returns)]
    reporting.error_with_notes(ctx.api, call, CODE, NOT_A_PAIR.format(body=subject(body), got=got), notes)


def report_carry_changed(
    ctx: FunctionContext, call: CallExpr, body: FuncItem, loop: str, carries: Sequence[Returned], initial: Structure
) -> None:
    notes = [KEEP_THE_CARRY, *where(body, carries)]
    differences = {structures.first_difference(found, initial) for _, found in carries}
    if len(differences) == 1 and next(iter(differences))[0]:  # every return differs at one place inside
        [(path, got, initially)] = differences
        described = structures.described_apart(got, initially)
        message = CARRY_CHANGED_INSIDE.format(body=subject(body), loop=loop, path=path, got=described[0], initial=described[1])
    elif len(carries) == 1:
        described = structures.described_apart(carries[0][1], initial)
        message = CARRY_CHANGED.format(body=subject(body), got=described[0], loop=loop, initial=described[1])
    else:
        got = describe_returns(carries)
        message = CARRY_CHANGED.format(body=subject(body), got=got, loop=loop, initial=structures.describe(initial))
    reporting.error_with_notes(ctx.api, call, CODE, message, notes)


def describe_returns(returns: Sequence[Returned]) -> str:
    return structures.describe_each([structure for _, structure in returns])


def where(body: FuncItem, returns: Sequence[Returned]) -> list[str]:
    """Where each return is (a lambda's is the call's line)."""
    if isinstance(body, LambdaExpr):
        return []
    notes = []
    for node, _ in returns:
        if node is body:
            notes.append(RETURNS_NOTHING.format(body=structures.named(body)))
        else:
            notes.append(AT_LINE.format(line=getattr(node, "line", body.line)))
    return notes


RULE: Final = Rule(
    CODE,
    function_hooks={**dict.fromkeys(LOOPS, on_loop), **dict.fromkeys(BRANCHES, on_branches)},
)
