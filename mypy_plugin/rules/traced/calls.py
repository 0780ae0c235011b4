"""The traced-value walk's reading of calls: conversions, shapes and sizes, and helpers followed.

A call is where most sites are (``int()``, ``range()``, ``np.asarray``, ``jnp.zeros(n)``,
``jnp.nonzero`` without ``size=``) and where values come from: a JAX function declared to
return an array gives a tracer under a staging transform or from traced arguments, an array
method proves its receiver an array, and a plain function of the checked module called with
tracers (a helper) is walked with them on its parameters, up to ``HELPER_DEPTH`` calls deep.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_NAMED_OPT,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    LDEF,
    CallExpr,
    Decorator,
    Expression,
    FuncDef,
    ListExpr,
    MemberExpr,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    StrExpr,
    TupleExpr,
    TypeInfo,
    Var,
)

from mypy_plugin.analyses import contract, sites
from mypy_plugin.analyses.contract import Concrete
from mypy_plugin.analyses.sites import BOOL, CONVERT, FORMAT, INDEX, NO_SIZE, NUMPY_CONVERSION, SETTING_ARGUMENT, SHAPE_ARGUMENT
from mypy_plugin.analyses.transforms import declared_type, receiver_of, traceable
from mypy_plugin.analyses.values import (
    CANDIDATE,
    CONCRETE_ARRAY,
    ITEM,
    TRACED,
    TRACED_MASK,
    Env,
    State,
    array_state,
    holds_tracers,
    is_number,
    is_traced,
    is_ufunc,
    jitted_by_jax,
    returned_type,
    staged_by_operation,
)
from mypy_plugin.lib import arguments, fullnames, mypy_internals
from mypy_plugin.lib.source import source
from mypy_plugin.rules.traced.expressions import Expressions
from mypy_plugin.rules.traced.trace import Trace

HELPER_DEPTH: Final = 3
"""How many calls deep the walk follows helpers from the transformed function."""


class Calls:
    """The evaluation of calls for one walk (``trace.Trace``), with the reader of its other
    expressions."""

    def __init__(self, trace: Trace, expressions: Expressions) -> None:
        self.trace = trace
        self.expressions = expressions

    def call(self, node: CallExpr, env: Env) -> State:
        callee = node.callee
        fullname = (callee.fullname or "") if isinstance(callee, RefExpr) else ""
        printing = fullname in sites.PRINTERS or is_format_call(callee)
        self.trace.printing += printing
        try:
            # a method's receiver (mypy may name the method it resolves: "....Array.reshape");
            # a module's attribute (jnp.zeros) reads as undecided
            receiver = self.expressions.value(callee.expr, env) if isinstance(callee, MemberExpr) else None
            args = [self.expressions.value(arg, env) for arg in node.args]
        finally:
            self.trace.printing -= printing
        positional = [(arg, state) for arg, state, kind in zip(node.args, args, node.arg_kinds) if kind == ARG_POS]
        first = positional[0] if positional else None
        traced_args = any(holds_tracers(state) for state in args)
        if receiver in (CANDIDATE, ITEM) and isinstance(callee, MemberExpr) and callee.name in sites.ARRAY_METHODS:
            receiver = TRACED  # only an array has this method
            self.expressions.proven(callee.expr, env)
        if fullname == "builtins.bool" and first and is_traced(first[1]):
            self.trace.site(BOOL, node, first[0], '"bool()"')
            return None
        if fullname in sites.CONVERTERS and first and holds_tracers(first[1]):
            self.trace.site(CONVERT, node, first[0], sites.CONVERTERS[fullname])
            return None
        if fullname.startswith("math.") and fullname[len("math.") :] in sites.MATH_FUNCTIONS:
            operand = next((arg for arg, state in positional if holds_tracers(state)), None)
            if operand is not None:
                self.trace.site(CONVERT, node, operand, called_as(callee, fullname), callee=fullname)
            return None
        if fullname in sites.COMPARING_BUILTINS:
            self.compared(node, fullname, positional, env)
            return None
        if fullname == "builtins.sum" and first and len(node.args) == 1 and (is_traced(first[1]) or first[1] == CANDIDATE):
            return first[1] if first[1] == CANDIDATE else TRACED  # the sum of the items: a tracer, or a pytree's
        if is_format_call(callee) and isinstance(callee, MemberExpr) and callee.name == "format":
            self.formatted(node, args)
        if fullname == "builtins.range":
            for arg, state in positional:
                if holds_tracers(state):
                    self.trace.site(INDEX, node, arg, '"range()"')
                    break
            return None
        numpy_converter = fullname.startswith("numpy.") and fullname.rpartition(".")[2] in sites.NUMPY_CONVERTERS
        if (numpy_converter or (isinstance(callee, RefExpr) and is_ufunc(callee.node))) and first and is_traced(first[1]):
            self.trace.site(NUMPY_CONVERSION, node, first[0], called_as(callee, fullname), callee=fullname)
            return None
        method = callee.name if isinstance(callee, MemberExpr) else None
        if receiver == CONCRETE_ARRAY and method is not None and method not in sites.ARRAY_STAGING_METHODS | sites.SHAPE_METHODS:
            return None  # "W.item()" runs on the concrete array, "W.astype(W.dtype)" may return it, "W.is_deleted()" is Python
        if staged_by_operation(receiver) and method is not None:
            return self.method_call(node, method, args)
        self.sizes(node, fullname, args, positional)
        instance = self.called_instance(callee, env)
        if instance is not None:
            # a layer called with tracers (eqx.nn.Linear(...)(x), layer(x)): what its __call__ is declared to return
            declared = array_state(returned_type(instance.get_method("__call__")))
            if declared is not None and traced_args:
                return declared
        if not isinstance(callee, RefExpr):
            if traced_args and instance is None:
                self.gave_up(node)
            return None
        followed = self.follow(node, args, env)
        if followed is not None and followed[0] is not None:
            return followed[0]
        if followed is None and traced_args and not fullname.startswith(KNOWN_MODULES):
            self.gave_up(node)
        if isinstance(callee.node, TypeInfo) and followed is None:
            return callee.node  # an instance of the class, which may be called
        declared = array_state(returned_type(callee.node)) or (TRACED if jitted_by_jax(callee.node) else None)
        if declared is None:
            return None
        staged = self.trace.staged and fullname.startswith(fullnames.JAX_PACKAGE)
        if not (staged or traced_args):
            return None
        if fullname == fullnames.JNP + "asarray" and first and first[1] == CONCRETE_ARRAY and len(node.args) == 1:
            return CONCRETE_ARRAY  # a concrete array comes back as it is, unstaged
        if declared == TRACED and fullname in sites.MASK_FUNCTIONS:
            return TRACED_MASK
        return declared

    def called_instance(self, callee: Expression, env: Env) -> TypeInfo | None:
        """The class of the instance a call calls: made right there (``eqx.nn.Linear(3, 2,
        key=k)(x)``), or held in a local name the walk bound to one (``layer = nnx.Linear(...)``
        above ``layer(x)``)."""
        if isinstance(callee, CallExpr) and isinstance(callee.callee, RefExpr) and isinstance(callee.callee.node, TypeInfo):
            return callee.callee.node
        if isinstance(callee, NameExpr) and callee.kind == LDEF:
            state = env.get(callee.name)
            return state if isinstance(state, TypeInfo) else None
        return None

    def compared(self, node: CallExpr, fullname: str, positional: list[tuple[Expression, State]], env: Env) -> None:
        """``max(x, 0.0)``, ``any(x > 0)`` (``sites.COMPARING_BUILTINS``): a tracer among two or
        more arguments, or the one argument a traced array (or a tuple of tracers), whose items
        are compared or tested. A ``key=`` decides what is compared: left undecided."""
        if node.arg_names.count(None) != len(node.args) or len(positional) != len(node.args):
            return
        construct = f'"{fullname.rpartition(".")[2]}()"'
        compares = fullname not in ("builtins.any", "builtins.all")
        if len(positional) > 1 and compares:
            # two pytrees of tracers compare their leaves; a list or a dict is not compared with a number
            numbers = any(is_number(arg) for arg, _ in positional)
            traced = next((arg for arg, state in positional if is_traced(state)), None)
            if traced is None:
                traced = next((arg for arg, state in positional if (state == CANDIDATE if numbers else holds_tracers(state))), None)
        elif len(positional) == 1:
            arg, state = positional[0]
            items = state if isinstance(state, tuple) else (state,)
            if isinstance(arg, ListExpr):
                items = tuple(self.expressions.value(item, env) for item in arg.items)
            # a pytree is truthy; compared with another, its leaves are
            held = any(holds_tracers(item) if compares else is_traced(item) for item in items)
            traced = arg if len(items) > 1 and held or is_traced(state) else None
        else:
            traced = None
        if traced is not None:
            self.trace.site(BOOL, node, traced, construct, callee=fullname)

    def formatted(self, node: CallExpr, args: list[State]) -> None:
        """``"{:.3f}".format(loss)``, and an f-string's ``f"{loss:.3f}"``, which mypy's tree holds
        as ``"{:{}}".format(loss, ".3f")``: a tracer formatted with a spec raises ``TypeError``
        (one without a spec prints). Fields by name, and specs not written out, are not read."""
        assert isinstance(node.callee, MemberExpr) and isinstance(node.callee.expr, StrExpr)  # the caller says so
        if any(kind != ARG_POS for kind in node.arg_kinds):
            return
        try:
            fields = [field for field in string.Formatter().parse(node.callee.expr.value) if field[1] is not None]
        except ValueError:
            return
        automatic = 0
        for _, name, spec, conversion in fields:
            if name != "" or conversion:
                return
            position, automatic = automatic, automatic + 1
            if spec == "{}":  # the spec is the next argument
                given = node.args[automatic] if automatic < len(node.args) else None
                spec, automatic = (given.value if isinstance(given, StrExpr) else ""), automatic + 1
            if spec and "{" not in spec and position < len(args) and holds_tracers(args[position]):
                self.trace.site(FORMAT, node, node.args[position], f'Format spec ":{spec}"')
                return

    def own_method(self, callee: Expression) -> FuncDef | None:
        """``self.normalise`` called in a method of a class of the module (the walked one, or a
        constructor's ``__init__``): the method written in that class's body."""
        receiver = receiver_of(self.trace.function)
        if not (isinstance(callee, MemberExpr) and isinstance(callee.expr, NameExpr) and callee.expr.name == receiver):
            return None
        assert isinstance(self.trace.function, FuncDef)  # receiver_of says so
        info = self.trace.function.info
        found = info.names.get(callee.name)
        method = found.node if found is not None else None
        written = isinstance(method, FuncDef) and any(statement is method for statement in info.defn.defs.body)
        in_module = info.fullname.startswith(self.trace.module + ".")
        return method if written and in_module and isinstance(method, FuncDef) and receiver_of(method) is not None else None

    def gave_up(self, node: CallExpr) -> None:
        """A call given tracers that the walk neither knows (JAX, NumPy, Python's own) nor
        follows: what it does with them is not seen. Nothing is done here; ``benchmarks/
        walk_count.py`` counts these by ``not_followed``."""

    def method_call(self, node: CallExpr, method: str, args: list[State]) -> State:
        """A method of a tracer (or of a concrete array whose operations are staged): a shape
        given to ``.reshape()``, a conversion, ``.nonzero()`` without ``size=``; a tracer."""
        assert isinstance(node.callee, MemberExpr)  # the caller says so
        if method in sites.SHAPE_METHODS:
            traced_size = next((arg for arg, state in zip(node.args, args) if holds_tracers(state)), None)
            if traced_size is not None:
                self.trace.site(SHAPE_ARGUMENT, node, traced_size, f'".{method}()"', fullnames.ARRAY, "TypeError")
        if method in sites.CONVERTING_METHODS:
            self.trace.site(CONVERT, node, node.callee.expr, f'".{method}()"')
            return None
        entry = contract.ARRAY_METHOD_PREFIX + method
        self.concrete_arguments(node, entry, contract.method_parameters(method), args, lambda: f'".{method}()"')
        if contract.method_makes_shape(method) and "size" not in node.arg_names:
            self.trace.site(NO_SIZE, node, node.callee.expr, f'".{method}()"')
        return TRACED

    def sizes(self, node: CallExpr, fullname: str, args: list[State], positional: list[tuple[Expression, State]]) -> None:
        """A JAX function given a tracer where it needs a Python value (``contract``: a shape, a
        size, an axis), or one whose result's shape depends on traced values without ``size=``."""
        self.concrete_arguments(node, fullname, contract.concrete_parameters(fullname), args, lambda: called_as(node.callee, fullname))
        shape_making = contract.makes_shape(fullname) or (fullname == fullnames.JAX_NUMPY_WHERE and len(node.args) == 1)
        if shape_making and "size" not in node.arg_names and any(is_traced(state) for _, state in positional):
            self.trace.site(NO_SIZE, node, next(arg for arg, state in positional if is_traced(state)), called_as(node.callee, fullname))

    def concrete_arguments(
        self, node: CallExpr, entry: str, parameters: tuple[Concrete, ...], args: list[State], construct: Callable[[], str]
    ) -> None:
        """The first parameter of ``parameters`` that ``node`` gives a tracer: a shape
        (``SHAPE_ARGUMENT``) or a setting (``SETTING_ARGUMENT``), with what JAX raises there
        and ``construct``'s text, made only for a site."""
        if entry in contract.SIZE_FIXED_BY and contract.SIZE_FIXED_BY[entry] in node.arg_names:
            return
        for parameter in parameters:
            written = arguments.written_for(node, parameter.position, parameter.name)
            traced = next((index for index in written if holds_tracers(args[index])), None)
            if traced is None:
                continue
            value = traced_item(node.args[traced], args[traced])
            raises = parameter.raised_by(in_a_tuple=value is not node.args[traced])
            if not raises:
                continue  # written this way, a tracer runs there
            if parameter.shape:
                self.trace.site(SHAPE_ARGUMENT, node, value, construct(), entry, raises)
            else:
                self.trace.site(SETTING_ARGUMENT, node, value, f'"{parameter.name}" of {construct()}', entry, raises)
            return

    def follow(self, node: CallExpr, args: list[State], env: Env) -> tuple[State] | None:
        """A call of a plain function of the checked module with tracers (or staged arrays,
        ``CONCRETE_ARRAY``) among its arguments (a helper): walk its body with the arguments'
        states on its parameters, and keep its sites with the call on their trail. A function
        defined in the walked body sees its closure's states at the call. None where the call is
        not followed: another module's function, a method, a decorated function, a generator,
        arguments passed with ``*`` or ``**``, past ``HELPER_DEPTH`` calls. A class of the module
        called (a constructor) runs the ``__init__`` written in its body (``initializer``), and
        ``self.method(x)`` in a method the one written in its class (``own_method``)."""
        function = node.callee.node if isinstance(node.callee, NameExpr) else self.own_method(node.callee)
        constructed = isinstance(function, TypeInfo)
        if isinstance(function, TypeInfo):
            function = initializer(function, self.trace.module)
        if not isinstance(function, FuncDef) or self.trace.depth >= HELPER_DEPTH:
            return None
        local = function in self.trace.defined
        bound = constructed or isinstance(node.callee, MemberExpr)
        if not local and not bound and function.fullname != f"{self.trace.module}.{function.name}":
            return None
        if function.is_generator or function.is_coroutine or function.is_async_generator or function is self.trace.transformed.function:
            return None
        if function.is_conditional:
            return None  # defined under "if": a variant of it may be the one called
        parameters = passed_to(function, node, args, bound=bound)
        if parameters is None:
            return None
        closure = {name: state for name, state in env.items() if name not in parameters} if local else {}
        if not any(holds_tracers(state) or state == CONCRETE_ARRAY for state in (*parameters.values(), *closure.values())):
            return None
        for name, state in parameters.items():
            if state == CANDIDATE and traceable(declared_type(function, name)):
                parameters[name] = TRACED  # the helper declares it an array or a number
        key = (
            function,
            tuple(sorted(parameters.items(), key=lambda item: item[0])),
            tuple(sorted(closure.items(), key=lambda item: item[0])),
        )
        if key in self.trace.followed:
            return (self.trace.followed[key],)
        self.trace.followed[key] = None
        returned, found_sites = self.trace.helper(function, {**closure, **parameters})
        if constructed:
            returned = None  # an instance, whose fields are not followed
        self.trace.followed[key] = returned
        for found, site in found_sites.items():
            site.trail = ((node, function), *site.trail)
            self.trace.sites.setdefault(found, site)
        return (returned,)


def passed_to(function: FuncDef, call: CallExpr, args: list[State], bound: bool = False) -> dict[str, State] | None:
    """The state of each parameter of ``function`` that ``call`` passes an argument to (after
    ``self`` for a ``bound`` method: a constructor's ``__init__``); None where an argument's
    parameter is unknown (``*args``, ``**kwargs``, a name it does not have)."""
    every = mypy_internals.parameters(function)
    if every is None:
        return None  # read from mypy's cache, without its parameters
    parameters = every[1:] if bound else every
    positional = [arg.variable.name for arg in parameters if arg.kind in (ARG_POS, ARG_OPT)]
    named = {arg.variable.name for arg in parameters if arg.kind in (ARG_POS, ARG_OPT, ARG_NAMED, ARG_NAMED_OPT)}
    found: dict[str, State] = {}
    for name, state in zip(arguments.parameters_written(call, positional), args):
        if name is None or name not in named or name in found:
            return None
        found[name] = state
    return found


KNOWN_MODULES: Final = ("jax.", "numpy.", "builtins.", "math.", "jaxlib.", "typing.")
"""Where the callees the walk reads by their names are defined (``sites``, ``contract``)."""
NOT_FOLLOWED: Final = {
    "imported": "a function of another module",
    "method": "a method call",
    "callable": "a callable held in a name (a parameter, a variable)",
    "dynamic": "a call of an expression (a call's result, an item)",
    "star": "arguments passed with * or **",
    "class": "a class whose __init__ is not written in the module",
    "decorated": "a decorated function",
    "other": "another reason (depth, a generator, a function defined under if)",
}
"""Why a call given tracers is not followed, as ``not_followed`` tells them apart."""


def not_followed(node: CallExpr, module: str) -> str:
    """The key of ``NOT_FOLLOWED`` that says why the walk did not follow ``node``."""
    callee = node.callee
    if any(kind in (ARG_STAR, ARG_STAR2) for kind in node.arg_kinds):
        return "star"
    if not isinstance(callee, RefExpr):
        return "dynamic"
    target = callee.node
    if isinstance(callee, MemberExpr) and not isinstance(target, (FuncDef, Decorator, TypeInfo)):
        return "method"
    if isinstance(target, TypeInfo):
        return "class"
    if isinstance(target, Decorator):
        return "decorated" if target.fullname.startswith(module + ".") else "imported"
    if isinstance(target, (FuncDef, OverloadedFuncDef)):
        return "other" if target.fullname.startswith(module + ".") else "imported"
    if isinstance(target, Var):
        return "callable"
    return "other"


def initializer(info: TypeInfo, module: str) -> FuncDef | None:
    """The ``__init__`` written in the body of a class of ``module`` (not one a plugin made for
    a dataclass or a NamedTuple, nor an inherited one): a constructor called with tracers runs
    it with them."""
    if not info.fullname.startswith(module + ".") or info.is_named_tuple:
        return None
    found = info.names.get("__init__")
    init = found.node if found is not None else None
    written = isinstance(init, FuncDef) and any(statement is init for statement in info.defn.defs.body)
    return init if written and isinstance(init, FuncDef) and receiver_of(init) is not None else None


def traced_item(node: Expression, state: State) -> Expression:
    """The part of ``node`` that holds tracers: ``n`` in ``(n, 3)``."""
    if isinstance(node, TupleExpr) and isinstance(state, tuple) and len(state) == len(node.items):
        return next((traced_item(item, item_state) for item, item_state in zip(node.items, state) if holds_tracers(item_state)), node)
    return node


def called_as(callee: Expression, fullname: str) -> str:
    """A callee as written, quoted with its parentheses (``"np.tanh()"``)."""
    return f'"{source(callee) or fullname}()"'


def is_format_call(callee: Expression) -> bool:
    """``"...".format(...)``, which f-strings become in mypy's tree, and ``"".join``."""
    return isinstance(callee, MemberExpr) and isinstance(callee.expr, StrExpr) and callee.name in ("format", "join")
