"""The words of the traced family's reports (``jax-traced-value``, ``jax-traced-shape``,
``jax-leaked-tracer``): every text, and the message and notes made for a site. Nothing here asks
mypy: the rule (``traced_values.py``) finds and decides, then hands a site here with how the
checked module names ``jax.numpy`` (a ``Spelling``, read once per check), and reports what comes
back."""

from __future__ import annotations

from typing import Final

from mypy.nodes import CallExpr, Expression, FuncDef, IndexExpr, ListExpr, MemberExpr, TupleExpr

from mypy_plugin.analyses import sites, transforms
from mypy_plugin.analyses.sites import Site
from mypy_plugin.analyses.transforms import TransformedFunction
from mypy_plugin.lib.checked_module import Spelling
from mypy_plugin.lib.source import source

RAISES: Final = {
    sites.BOOL: "TracerBoolConversionError",
    sites.CONVERT: "ConcretizationTypeError",
    sites.INDEX: "TracerIntegerConversionError",
    sites.NUMPY_CONVERSION: "TracerArrayConversionError",
    sites.BOOLEAN_MASK: "NonConcreteBooleanIndexError",
    sites.NO_SIZE: "ConcretizationTypeError",
    sites.SLICE: "IndexError",
    sites.FORMAT: "TypeError",
}
"""What JAX raises at each kind of site."""

BRANCH: Final = (
    'Choose between values with "{jnp}.where({condition}, a, b)", or between computations with '
    '"jax.lax.cond({condition}, true_fun, false_fun, *operands)"'
)
LOOP: Final = 'Loop on a traced condition with "jax.lax.while_loop(cond_fun, body_fun, init_val)"'
ASSERT: Final = (
    'Assert only on shapes and dtypes here; check values with "jax.experimental.checkify.check" (the '
    'function run under "checkify.checkify")'
)
COMBINE: Final = 'Combine traced conditions with "&", "|" and "~" (or "{jnp}.logical_and", "{jnp}.logical_or", "{jnp}.logical_not")'
CHAINED: Final = 'Compare one pair at a time and combine with "&": "(a < b) & (b < c)"'
KEEP_AN_ARRAY: Final = 'A tracer has no Python value while JAX traces: keep it an array (e.g. "x.astype({jnp}.int32)" instead of "int(x)")'
AUX: Final = (
    'Keep it an array here; for its Python value (to log it), return it beside the result with "has_aux=True" and convert it outside'
)
PRINT: Final = 'To print it as the function runs, use "jax.debug.print("{{{spec}}}", {value})"'
FORI_LOOP: Final = 'Loop a traced number of times with "jax.lax.fori_loop(0, n, body_fun, init_val)"'
INDEX_THE_VALUES: Final = (
    'Keep the values in a JAX array and index it (e.g. "{jnp}.asarray(list({values}.values()))[{index}]" for keys 0, 1, ...)'
)
ITEMS_OF_A_SHAPE: Final = "Iterating a 0-d array raises TypeError there instead, a 2-d one ValueError"
INDEX_AN_ARRAY: Final = 'Index a JAX array instead (e.g. "{jnp}.asarray({values})[{index}]")'
USE_JAX_NUMPY: Final = 'Use the jax.numpy function, which traces: "{name}"'
STATIC: Final = 'If "{name}" is a Python setting, make it static: {how}'
PASS_TO_JIT: Final = 'pass "static_argnames=("{name}",)" to jax.jit'

NEEDS_THE_VALUE: Final = "{construct} needs the Python value of {value} under {transform}; JAX raises {error}"
CONVERTS_TO_NUMPY: Final = "{construct} converts {value} to NumPy under {transform}; JAX raises {error}"
GIVEN_AS_A_SHAPE: Final = "{construct} is given {value} as a shape or size under {transform}; JAX raises {error}"
TRACED_SLICE_BOUND: Final = "A slice bound is {value} under {transform}; JAX raises {error}"
MASK_TRACED: Final = "{mask} is traced under {transform}; JAX raises {error}"
WITHOUT_SIZE: Final = '{construct} of {value} without "size=" under {transform}; JAX raises {error}'
NAMED_VALUE: Final = 'traced "{text}"'
UNNAMED_VALUE: Final = "a traced value"
NAMED_MASK: Final = 'Boolean mask "{text}"'
UNNAMED_MASK: Final = "A boolean mask"
LONGEST_QUOTED: Final = 60
"""The longest expression an error quotes; a longer one is named by what it is."""
WHERE_FOR_A_MASK: Final = (
    'A boolean mask makes a shape from values; keep the shape with "{jnp}.where({mask}, {array}, 0)", or use "size=" of "{jnp}.nonzero"'
)
WHERE_FOR_A_MASKED_UPDATE: Final = (
    'A boolean mask makes a shape from values; choose the new values with "{jnp}.where({mask}, new_values, {array})" instead'
)
HELPER: Final = 'In "{function}"{steps}, which {transform} traces'
CALLED_FROM: Final = ', called from "{function}" at line {line}'
SHAPE_FROM_SHAPES: Final = (
    'A shape must be known while JAX traces: make "{value}" static, or compute it from shapes ("x.shape[0]"); to keep the shape '
    'and drop entries, mask instead ("{jnp}.where({jnp}.arange(x.shape[0]) < n, x, 0)")'
)
STATIC_SLICE: Final = (
    'Slice with a traced start and a static size: "jax.lax.dynamic_slice_in_dim(x, start, size)"; or make "{value}" static'
)
SLICED_LIST: Final = 'Where "{name}" is a list, Python raises TracerIntegerConversionError there instead'
SETTING_FROM_PYTHON: Final = (
    "JAX reads it while tracing, to decide what to compute: pass a Python value, computed from shapes "
    '("x.ndim - 1") and Python settings, not from array values'
)
OUTLIVES_THE_TRACE: Final = (
    '{value} kept in "{holder}" outlives the trace of {transform}; its use at line {line} raises UnexpectedTracerError'
)
COLLECT_IT: Final = (
    'Collect it as a result: "jax.lax.scan" stacks the second item its body returns at each step; '
    'to see it while tracing, use "jax.debug.print"'
)
RETURN_IT: Final = 'Return it from "{function}" and keep what the call returns; to see it while tracing, use "jax.debug.print"'
FIX_THE_SIZE: Final = 'Give the result a fixed shape with "size=" (the most entries expected); "fill_value=" sets the padding'


TESTED_BY: Final = {
    '"while"': LOOP,
    '"assert"': ASSERT,
    '"and"': COMBINE,
    '"or"': COMBINE,
    '"not"': COMBINE,
    "a chained comparison": CHAINED,
}
"""The note for a traced value tested by each construct; ``BRANCH`` for the others."""


class Quoted:
    """The code a site's report quotes, read from the source once: the traced value, the
    container it indexes (``TABLE`` of ``TABLE[i]``), the array of ``x.at[mask]``, and the
    arguments of the call it is in (None where the source cannot be printed)."""

    __slots__ = ("value", "container", "at_update", "updated", "argument_texts")

    def __init__(self, site: Site) -> None:
        self.value = source(site.value)
        base = site.node.base if isinstance(site.node, IndexExpr) else None
        self.container = source(base) if base is not None else None
        self.at_update = isinstance(base, MemberExpr) and base.name == "at"
        self.updated = source(base.expr) if isinstance(base, MemberExpr) and self.at_update else None
        self.argument_texts = [source(arg) or "x" for arg in site.node.args] if isinstance(site.node, CallExpr) else []


def named(text: str | None, known: str = NAMED_VALUE, unknown: str = UNNAMED_VALUE) -> str:
    """The traced value as the error names it: ``traced "x.sum()"``, or for one too long to
    print, ``a traced value``."""
    return known.format(text=text) if text is not None and len(text) <= LONGEST_QUOTED else unknown


def value_report(traced: TransformedFunction, site: Site, numpy: Spelling) -> tuple[str, list[str]]:
    """``jax-traced-value``: a Python value of a tracer is needed; the message and its notes."""
    quoted = Quoted(site)
    error = site.raises or RAISES[site.kind]
    text = CONVERTS_TO_NUMPY if site.kind == sites.NUMPY_CONVERSION else NEEDS_THE_VALUE
    message = text.format(construct=site.construct, value=named(quoted.value), transform=traced.transform, error=error)
    return message, value_notes(traced, site, quoted, numpy)


def value_notes(traced: TransformedFunction, site: Site, quoted: Quoted, numpy: Spelling) -> list[str]:
    """The notes of a ``jax-traced-value`` report: the JAX way for the construct written."""
    value = quoted.value or "x"
    jnp = numpy.prefix()
    if site.kind == sites.BOOL and site.callee in sites.COMPARING_BUILTINS:
        return compare_with_jax_numpy(site, quoted, numpy)
    if site.kind == sites.BOOL:
        construct = {
            '"while"': LOOP,
            '"assert"': ASSERT,
            '"and"': COMBINE,
            '"or"': COMBINE,
            '"not"': COMBINE,
            "a chained comparison": CHAINED,
        }
        return [construct.get(site.construct, BRANCH).format(condition=quoted.value or "pred", jnp=jnp)]
    if site.kind == sites.CONVERT and site.callee.startswith("math."):
        return [USE_JAX_NUMPY.format(name=f"{numpy.written(sites.MATH_FUNCTIONS[site.callee.rpartition('.')[2]])}({value})")]
    if site.kind == sites.CONVERT and site.printing:
        return [PRINT.format(spec="", value=value)]
    if site.kind == sites.CONVERT:
        return [AUX if traced.differentiated else KEEP_AN_ARRAY.format(jnp=jnp)]
    if site.kind == sites.INDEX:
        return [FORI_LOOP if site.construct == '"range()"' else index_an_array(quoted, jnp, site.construct == sites.DICT_INDEX)]
    if site.kind == sites.NUMPY_CONVERSION and site.construct == sites.NUMPY_INDEX:
        return [index_an_array(quoted, jnp)]
    if site.kind == sites.NUMPY_CONVERSION:
        name = site.callee.rpartition(".")[2] if site.callee else "asarray"
        return [USE_JAX_NUMPY.format(name=f"{numpy.written(name)}({value})")]
    if site.kind == sites.FORMAT:
        return [PRINT.format(spec=site.construct.partition('"')[2].rstrip('"'), value=value)]
    return [SETTING_FROM_PYTHON] if site.kind == sites.SETTING_ARGUMENT else []


def index_an_array(quoted: Quoted, jnp: str, mapping: bool = False) -> str:
    """The container indexed by a tracer, made a JAX array (``jnp.asarray(TABLE)[i]``; a dict's
    values, for keys that count from 0)."""
    values = quoted.container or "values"
    values = values if len(values) <= LONGEST_QUOTED else "values"
    text = INDEX_THE_VALUES if mapping else INDEX_AN_ARRAY
    return text.format(jnp=jnp, values=values, index=quoted.value or "i")


def compare_with_jax_numpy(site: Site, quoted: Quoted, numpy: Spelling) -> list[str]:
    """``max(x, 0.0)`` as ``jnp.maximum(x, 0.0)``, ``any(x > 0)`` as ``jnp.any(x > 0)``; where one
    array's items are compared, what other shapes raise."""
    assert isinstance(site.node, CallExpr)  # a comparing builtin's call
    one, two = sites.COMPARING_BUILTINS[site.callee]
    arguments = quoted.argument_texts
    reference = numpy.written(two if len(arguments) > 1 else one)
    if len(arguments) > 1:
        return [USE_JAX_NUMPY.format(name=f"{reference}({', '.join(arguments)})")]
    if isinstance(site.node.args[0], (ListExpr, TupleExpr)):  # the items as one array
        return [USE_JAX_NUMPY.format(name=f"{reference}({numpy.written('stack')}({arguments[0]}))")]
    return [USE_JAX_NUMPY.format(name=f"{reference}({arguments[0]})"), ITEMS_OF_A_SHAPE]


def shape_report(traced: TransformedFunction, site: Site, numpy: Spelling) -> tuple[str, list[str]]:
    """``jax-traced-shape``: a shape would be made from traced values; the message and its note."""
    quoted = Quoted(site)
    error = site.raises or RAISES[site.kind]
    said = {"construct": site.construct, "value": named(quoted.value), "transform": traced.transform, "error": error}
    if site.kind == sites.SHAPE_ARGUMENT:
        message = GIVEN_AS_A_SHAPE.format(**said)
        note = SHAPE_FROM_SHAPES.format(value=quoted.value or "n", jnp=numpy.prefix())
    elif site.kind == sites.SLICE:
        message = TRACED_SLICE_BOUND.format(**said)
        note = STATIC_SLICE.format(value=quoted.value or "n")
        if site.construct == sites.SLICED_PARAMETER:
            note = f"{note}. {SLICED_LIST.format(name=quoted.container or 'it')}"
    elif site.kind == sites.BOOLEAN_MASK:
        message = MASK_TRACED.format(mask=named(quoted.value, NAMED_MASK, UNNAMED_MASK), **said)
        mask = quoted.value or "mask"
        if quoted.at_update:  # x.at[mask].set(v)
            note = WHERE_FOR_A_MASKED_UPDATE.format(mask=mask, array=quoted.updated or "x", jnp=numpy.prefix())
        else:
            note = WHERE_FOR_A_MASK.format(mask=mask, array=quoted.container or "x", jnp=numpy.prefix())
    else:
        message = WITHOUT_SIZE.format(**said)
        note = FIX_THE_SIZE
    return message, [note]


def leak_report(traced: TransformedFunction, site: Site, holder: str, use: Expression) -> tuple[str, list[str]]:
    """``jax-leaked-tracer``: a tracer kept in ``holder`` outlives the trace, and ``use`` computes
    with it; the message and its note."""
    message = OUTLIVES_THE_TRACE.format(value=named(source(site.value)), holder=holder, transform=traced.transform, line=use.line)
    function = traced.function.name if isinstance(traced.function, FuncDef) else "the function"
    return message, [COLLECT_IT if traced.kind == transforms.LAX_KIND else RETURN_IT.format(function=function)]


def helper_note(traced: TransformedFunction, site: Site) -> list[str]:
    """For a site in a helper, the note naming the calls that lead there from the transformed
    function."""
    if not site.trail:
        return []
    functions = [traced.function, *(function for _, function in site.trail)]
    calls = [call for call, _ in site.trail]
    steps = "".join(CALLED_FROM.format(function=functions[i].name, line=calls[i].line) for i in reversed(range(len(calls))))
    return [HELPER.format(function=functions[-1].name, steps=steps, transform=traced.transform)]


def static(name: str, how: str) -> str:
    """The note that makes parameter ``name`` static, ``how`` the decorator written takes it."""
    return STATIC.format(name=name, how=how)


def static_in_a_call(name: str) -> str:
    """How to make ``name`` static where ``jax.jit`` is called on the function."""
    return STATIC.format(name=name, how=PASS_TO_JIT.format(name=name))
