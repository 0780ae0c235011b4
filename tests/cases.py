"""Read the YAML type-check cases, so the runtime-truth test runs exactly what mypy saw; find
the statement a case reports and the array it updates; run a case with probes in it."""

from __future__ import annotations

import ast
import builtins
import configparser
import importlib.metadata
import importlib.util
import io
import re
import runpy
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import jax
import numpy as np
import yaml

TYPECHECK = Path(__file__).parent / "typecheck"
IN_AN_UNCHECKED_BODY = re.compile(r"^main:(\d+): note: At line (\d+), in the body of ")
"""A report made at a transform for a line of a body mypy does not check: JAX raises there."""


def dotted(release: str) -> str:
    """A release as a skip's tuple writes it (``0, 10, 7``), as a version is written (``0.10.7``)."""
    return ".".join(part.strip() for part in release.split(","))


RELEASE_SKIP = re.compile(
    r"tuple\(int\(part\) for part in __import__\('jax'\)\.__version__\.split\('\.'\)\[:3\]\)"
    r" (?P<op><|>=) \((?P<release>[\d, ]+)\)"
)
"""A ``skip`` that compares the installed JAX release with one: the form most cases use."""
LIBRARY_SKIP = re.compile(
    r"__import__\('importlib\.util'\)\.util\.find_spec\('(?P<library>\w+)'\) is None"
    r"(?: or tuple\(int\(part\) for part in __import__\('importlib\.metadata'\)\.metadata\.version\('(?P=library)'\)"
    r"\.split\('\.'\)\[:3\]\) < \((?P<release>[\d, ]+)\))?"
)
"""A ``skip`` for a case about another library (Equinox, Flax), which the suite's environment has
at the test extra's pins and the matrix's at other releases or not at all; with a release, the
first one where the case's code runs as the case says (``Variable[...] += 1``, a check Flax makes)."""
LIBRARY_CODES = frozenset(
    {
        "jax-linen-frozen",
        "jax-linen-unbound",
        "jax-linen-mutable",
        "jax-linen-submodule",
        "jax-equinox-module",
        "jax-equinox-frozen",
        "jax-nnx-trace-level",
    }
)
"""The codes of rules about another library (Flax, Equinox), which the demo and the lint sample do not
import (most of the matrix's environments do not have them): their YAML cases and pages show them."""
PORTED_FROM_NUMPY = Path(__file__).resolve().parent / "lint" / "ported_from_numpy.py"
"""The module ``jax-stubs lint`` is tested on: one misuse of each code, marked ``# jax-...``."""
MARK = re.compile(r"# (jax-[\w-]+)$")
PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
UNESCAPE = re.compile(r"\\(.)")  # a regex "out" line, read back as the text it matches
GOT = re.compile(r'does not accept a stream \(got "(.*?)"\)')


@dataclass(frozen=True)
class Rule:
    """A misuse the type check reports, and what JAX does with it at run time."""

    code: str
    reported: re.Pattern[str]
    """An "out" line that reports the misuse on line ``group(1)``: the plugin's error or note,
    or the stubs' own error."""
    exception: str | None
    """What JAX raises; None for a statement that runs and changes nothing (a discarded update)."""
    message: re.Pattern[str] | None
    """What JAX's exception says (searched: its wording changes between JAX releases)."""
    raised_by_a_call: bool = False
    """The report is at a declaration that no value passed can satisfy; JAX raises at each
    call of what is declared, on a later line."""
    on_the_traceback: bool = False
    """The reported line calls what raises: it is on the exception's traceback, not necessarily
    last (a captured module's method changes its state a few frames further in)."""
    or_subclass: bool = False
    """JAX raises a subclass of ``exception`` whose name changed between releases
    (``XlaRuntimeError``, then ``JaxRuntimeError``)."""
    or_instead: tuple[tuple[str, re.Pattern[str]], ...] = ()
    """Another exception JAX raises from that line, with what it says, where which one depends on
    what ran before (an operation compiled for a live array, read on a donated one: ``ValueError``)."""
    raises_at: re.Pattern[str] | None = None
    """Where the report's message says JAX raises (``group(1)``, a line of ``main``), where that
    is another line than the report's: the runtime test checks the traceback ends there."""


CONCRETIZATION = re.compile(r"Abstract tracer value encountered where concrete value is expected")
NON_HASHABLE = re.compile(r"^Non-hashable static arguments are not supported")
UNTRACEABLE_ARGUMENT = re.compile(  # JAX 0.4.31 words it in two ways of its own
    r"Error interpreting argument to .* as an abstract array|is not a valid JAX type|"
    r"^Cannot interpret value of type .* as an abstract array"
)


def by_exception(before: str, messages: dict[tuple[str, str], re.Pattern[str]]) -> list[Rule]:
    """One entry per (code, exception): an error under ``code`` that ends ``<before>JAX raises
    <exception>``, and the pattern of JAX's message."""
    return [
        Rule(code, re.compile(rf"^main:(\d+): error: .*{before}JAX raises {exception}  \[{code}\]$"), exception, message)
        for (code, exception), message in messages.items()
    ]


RULES = (
    [
        Rule(
            "jax-to-device-stream",
            re.compile(
                r'^main:(\d+): (?:error|note): (?:"\w+\.to_device" does not accept a stream|Argument "stream" to "to_device" of "Array")'
            ),
            "NotImplementedError",
            re.compile(r"^stream argument of array\.to_device\(\)$"),
        ),
        Rule(
            "jax-immutable-array",
            re.compile(r'^main:(\d+): error: "\w+" does not support item assignment'),
            "TypeError",
            re.compile(r"JAX arrays are\s+immutable"),
        ),
    ]
    + by_exception(
        r" under (?:jax\.(?:jit|vmap|pmap|shard_map|eval_shape|grad|value_and_grad|jacfwd|jacrev|hessian|checkpoint|remat|lax\.\w+)"
        r"|eqx\.filter_jit|eqx\.filter_vmap|nnx\.jit); ",
        {
            ("jax-traced-value", "TracerBoolConversionError"): re.compile(r"^Attempted boolean conversion of traced array"),
            ("jax-traced-value", "ConcretizationTypeError"): CONCRETIZATION,
            ("jax-traced-value", "TracerIntegerConversionError"): re.compile(r"^The __index__\(\) method was called on traced array"),
            # a format spec given a tracer; a dict looked up with one
            ("jax-traced-value", "TypeError"): re.compile(r"^unsupported format string passed to \w+\.__format__|^unhashable type: '\w+'"),
            ("jax-traced-value", "TracerArrayConversionError"): re.compile(
                r"^The numpy\.ndarray conversion method __array__\(\) was called on traced array"
            ),
            ("jax-traced-shape", "NonConcreteBooleanIndexError"): re.compile(r"^Array boolean indices must be concrete"),
            ("jax-traced-shape", "ConcretizationTypeError"): CONCRETIZATION,
            ("jax-traced-shape", "TypeError"): re.compile(r"^Shapes must be 1D sequences of concrete values of integer type"),
            ("jax-traced-shape", "TracerIntegerConversionError"): re.compile(r"^The __index__\(\) method was called on traced array"),
            # 0.4.31, 0.7.2 and 0.12 word it one way, 0.10.2 the other
            ("jax-traced-shape", "IndexError"): re.compile(
                r"^Array slice indices must have static start/stop/step|^Slice entries must be static integers"
            ),
        },
    )
    + by_exception(
        r", which jax\.jit traces unless static; ",
        {
            ("jax-jit-call", "TypeError"): re.compile(r"^Shapes must be 1D sequences of concrete values of integer type"),
            ("jax-jit-call", "ConcretizationTypeError"): CONCRETIZATION,
            ("jax-jit-call", "TracerIntegerConversionError"): re.compile(r"^The __index__\(\) method was called on traced array"),
        },
    )
    + by_exception(
        "; ",
        {
            ("jax-unsupported-argument", "TypeError"): re.compile(
                # clip's removed keywords; interpolation, removed by the function (0.8) or refused by
                # jax.jit (0.9 on); kind
                r"got an unexpected keyword argument|argument interpolation was removed|"
                r"^Error interpreting argument to .* as an abstract array|^'kind' argument to \w+ is not supported"
            ),
            ("jax-unsupported-argument", "NotImplementedError"): re.compile(
                r"^Only implemented for order='K'|order=A is not implemented|^Ravel not implemented for order='K'|"
                r"^The 'edge_order' argument to jnp\.gradient is not supported|^The 'raise' mode to jnp\.\w+ is not supported|"
                r"^wrap=True is not implemented"
            ),
            ("jax-unsupported-argument", "ValueError"): re.compile(
                r"^Unexpected value for 'order' argument|^method can only be|does not support overwrite_input=True|"
                r"^jax\.numpy\.meshgrid only supports copy=True|^Unknown gather mode|^the only valid string value of"
            ),
            ("jax-inplace-default", "ValueError"): re.compile(r"cannot modify arrays\s*in-place"),
            ("jax-inplace-default", "NotImplementedError"): re.compile(
                r"^JAX arrays are immutable, must use inplace=False|jnp\.ufunc\.at\(\) cannot operate inplace"
            ),
            ("jax-unsupported-function", "NotImplementedError"): re.compile(r"^jnp\.from\w+\(\) is not implemented"),
            ("jax-unsupported-function", "TypeError"): re.compile(r"Array\(\) takes no arguments"),
            ("jax-prng-key", "TypeError"): re.compile(
                r"^JAX encountered invalid PRNG key data|^PRNG key seed must be an integer|"
                r"^(?:PRNGKey|key) accepts a scalar seed, but was given"
            ),
            ("jax-prng-key", "ValueError"): re.compile(r"^\w+ accepts a single key, but was given a key array of shape"),
            ("jax-float-shape", "TypeError"): re.compile(
                r"^Shapes must be 1D sequences of concrete values of integer type|^'float' object cannot be interpreted as an integer|"
                r"^'float' object is not iterable|^broadcast_in_dim shape must have every element be an integer type"
            ),
            ("jax-random-dtype", "ValueError"): re.compile(r"^dtype argument to `\w+` must be an? [\w ]+ dtype|^Invalid integer data type"),
            ("jax-random-dtype", "TypeError"): re.compile(r"^randint only accepts integer dtypes"),
            ("jax-random-shape", "TypeError"): re.compile(r"^shape argument of jax\.random\.choice must be a sequence"),
            ("jax-dtype-argument", "TypeError"): re.compile(r"^Cannot interpret '.*' as a data type"),
        },
    )
    + [
        Rule(
            "jax-discarded-update",
            re.compile(
                r'^main:(\d+): error: Result of ".*" is discarded; JAX returns an? \w+ copy and leaves .* unchanged  '
                r"\[jax-discarded-update\]$"
            ),
            None,
            None,
        ),
        Rule(
            "jax-jit-declaration",
            re.compile(r"^main:(\d+): error: (?:static|donate)_arg(?:names|nums).* jax\.jit raises ValueError  \[jax-jit-declaration\]$"),
            "ValueError",
            re.compile(r"^Jitted function has (?:invalid argnames|\w+=\(.*\), but only accepts)"),
        ),
        Rule(
            "jax-jit-declaration",
            re.compile(r"^main:(\d+): error: Static parameter .* each call raises ValueError  \[jax-jit-declaration\]$"),
            "ValueError",
            NON_HASHABLE,
            raised_by_a_call=True,
        ),
        Rule(
            "jax-jit-declaration",
            re.compile(r'^main:(\d+): error: jax\.jit traces "\w+", .* each call raises TypeError  \[jax-jit-declaration\]$'),
            "TypeError",
            UNTRACEABLE_ARGUMENT,
            raised_by_a_call=True,
        ),
        Rule(
            "jax-donated-buffer",
            re.compile(r"^main:(\d+): error: .* is read after .* JAX raises RuntimeError or ValueError  \[jax-donated-buffer\]$"),
            "RuntimeError",
            re.compile(r"Array has been deleted"),
            or_instead=(("ValueError", re.compile(r"[Bb]uffer has been deleted or donated|Donation requested for invalid buffer")),),
        ),
        Rule(
            "jax-donated-buffer",
            re.compile(r"^main:(\d+): error: .* is passed to .* again, .* JAX raises RuntimeError  \[jax-donated-buffer\]$"),
            "RuntimeError",
            re.compile(r"previously donated in the same call"),
            or_subclass=True,
        ),
        Rule(
            "jax-grad-output",
            re.compile(r"^main:(\d+): error: .* needs a scalar loss; each call raises TypeError  \[jax-grad-output\]$"),
            "TypeError",
            re.compile(r"^Gradient only defined for scalar-output functions"),
            raised_by_a_call=True,
        ),
        Rule(
            "jax-grad-output",
            re.compile(r'^main:(\d+): error: .* needs a pair "\(loss, aux\)"; each call raises TypeError  \[jax-grad-output\]$'),
            "TypeError",
            re.compile(r"^expected function with aux output to return a two-element tuple"),
            raised_by_a_call=True,
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: in_axes of jax\.vmap maps no argument .* each call raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap must have at least one non-None value in in_axes"),
            raised_by_a_call=True,
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: in_axes of jax\.vmap has \d+ entries .* each call raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments"),
            raised_by_a_call=True,
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: out_axes of jax\.vmap is .* each call raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap out_axes specification must be a tree prefix of the corresponding value"),
            raised_by_a_call=True,
        ),
        Rule(
            "jax-leaked-tracer",
            re.compile(
                r"^main:(\d+): error: .* outlives the trace of .*; its use at line \d+ raises UnexpectedTracerError  \[jax-leaked-tracer\]$"
            ),
            "UnexpectedTracerError",
            re.compile(r"^Encountered an unexpected tracer"),
            raised_by_a_call=True,
            raises_at=re.compile(r"its use at line (\d+) raises"),
        ),
        Rule(
            "jax-linen-frozen",
            re.compile(
                r"^main:(\d+): error: .* set in compact method .*; Flax raises SetAttributeFrozenModuleError  \[jax-linen-frozen\]$"
            ),
            "SetAttributeFrozenModuleError",
            re.compile(r"Module instance is frozen outside of setup method"),
        ),
        Rule(
            "jax-linen-frozen",
            re.compile(
                r"^main:(\d+): error: .* set "
                r'(in ".*", which runs outside "setup"|after "super\(\)\.__post_init__\(\)"|on submodule ".*" after it is made); '
                r"Flax raises SetAttributeFrozenModuleError  \[jax-linen-frozen\]$"
            ),
            "SetAttributeFrozenModuleError",
            re.compile(r"Module instance is frozen outside of setup method"),
        ),
        Rule(
            "jax-linen-frozen",
            re.compile(
                r'^main:(\d+): error: .* set in "setup", but ".*" is a field of ".*"; '
                r"Flax raises SetAttributeInModuleSetupError  \[jax-linen-frozen\]$"
            ),
            "SetAttributeInModuleSetupError",
            re.compile(r"^Module construction attributes are frozen"),
        ),
        Rule(
            "jax-linen-submodule",
            re.compile(
                r'^main:(\d+): error: submodule ".*" made in ".*", which is neither "setup" nor compact; '
                r"Flax raises AssignSubModuleError  \[jax-linen-submodule\]$"
            ),
            "AssignSubModuleError",
            re.compile(r"must be defined in `setup\(\)` or in a method wrapped in `@compact`"),
        ),
        Rule(
            "jax-linen-unbound",
            re.compile(
                r"^main:(\d+): error: compact .* on an unbound module; Flax raises CallCompactUnboundModuleError  \[jax-linen-unbound\]$"
            ),
            "CallCompactUnboundModuleError",
            re.compile(r"^Can't call compact methods on unbound modules"),
        ),
        Rule(
            "jax-linen-unbound",
            re.compile(
                r'^main:(\d+): error: "setup" of .* on an unbound module; Flax raises CallSetupUnboundModuleError  \[jax-linen-unbound\]$'
            ),
            "CallSetupUnboundModuleError",
            re.compile(r"^Can't call compact methods on unbound modules"),
        ),
        Rule(
            "jax-linen-mutable",
            re.compile(
                r'^main:(\d+): error: .* updates "batch_stats", which this call keeps immutable; '
                r"Flax raises ModifyScopeVariableError  \[jax-linen-mutable\]$"
            ),
            "ModifyScopeVariableError",
            re.compile(r'^Cannot update variable "\w+" in .* because collection "batch_stats" is immutable'),
            on_the_traceback=True,
        ),
        Rule(
            "jax-equinox-module",
            re.compile(
                r"^main:(\d+): error: .* holds a (?:function|string), which .* cannot trace; JAX raises TypeError  \[jax-equinox-module\]$"
            ),
            "TypeError",
            UNTRACEABLE_ARGUMENT,
        ),
        Rule(
            "jax-equinox-frozen",
            re.compile(
                r'^main:(\d+): error: ".*" (?:set in ".*", after the Equinox module is made|set on an Equinox module already made'
                r'|is not a field of ".*"); Equinox raises FrozenInstanceError  \[jax-equinox-frozen\]$'
            ),
            "FrozenInstanceError",
            re.compile(r"^cannot assign to field '\w+'"),
            on_the_traceback=True,
        ),
        Rule(
            "jax-nnx-trace-level",
            re.compile(r"^main:(\d+): error: .* is made outside .* in it; Flax raises TraceContextError  \[jax-nnx-trace-level\]$"),
            "TraceContextError",
            re.compile(r"^Cannot mutate \w+ from a different trace level"),
            on_the_traceback=True,
        ),
        Rule(
            "jax-grad-argument",
            re.compile(r"^main:(\d+): error: Argument \d+ of .* cannot differentiate; JAX raises TypeError  \[jax-grad-argument\]$"),
            "TypeError",
            re.compile(r"^(?:grad|jacfwd|jacrev) requires real(?:- or complex)?-valued inputs"),
        ),
        Rule(
            "jax-grad-argument",
            re.compile(
                r"^main:(\d+): error: jax\.(?:grad|value_and_grad) differentiates argument .* JAX raises TypeError  \[jax-grad-argument\]$"
            ),
            "TypeError",
            re.compile(r"^differentiating with respect to argnums=.* requires at least \d+ positional arguments"),
        ),
        Rule(
            "jax-grad-argument",
            re.compile(
                r"^main:(\d+): error: jax\.(?:jacfwd|jacrev|hessian) differentiates .* JAX raises ValueError  \[jax-grad-argument\]$"
            ),
            "ValueError",
            re.compile(r"^Positional argument indices, e\.g\. for `static_argnums`, must have value greater than or equal to"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: in_axes of jax\.vmap has \d+ entries, but .* JAX raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(
                r"^main:(\d+): error: Argument \d+ of .* has no axis for jax\.vmap to map; JAX raises ValueError  \[jax-vmap-axes\]$"
            ),
            "ValueError",
            re.compile(r"^vmap was requested to map its argument along axis -?\d+, which implies that its rank should be at least"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: in_axes of jax\.vmap gives argument .* JAX raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap in_axes specification must be a tree prefix of the corresponding value"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: jax\.vmap maps an axis of size .* JAX raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap got inconsistent sizes for array axes to be mapped"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: jax\.vmap maps axis -?\d+ of .*, which has .* JAX raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap was requested to map its argument along axis -?\d+, which implies that its rank should be at least"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: in_axes of jax\.vmap is .*; JAX raises TypeError  \[jax-vmap-axes\]$"),
            "TypeError",
            re.compile(r"^vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: in_axes of jax\.pmap is .*; JAX raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^pytree structure error: different types at key path"),
        ),
        Rule(
            "jax-vmap-axes",
            re.compile(r"^main:(\d+): error: out_axes of jax\.vmap is .* for this call; JAX raises ValueError  \[jax-vmap-axes\]$"),
            "ValueError",
            re.compile(r"^vmap out_axes specification must be a tree prefix of the corresponding value"),
        ),
        Rule(
            "jax-lax-structure",
            re.compile(r"^main:(\d+): error: .* JAX raises TypeError  \[jax-lax-structure\]$"),
            "TypeError",
            # 0.10 and 0.12 word each one way, 0.4.31 the branches and while_loop's carry another
            re.compile(r"must be a pair|must have the same pytree structure|must have same type structure"),
        ),
        Rule(
            "jax-jit-call",
            re.compile(r"^main:(\d+): error: Static argument .* JAX raises ValueError  \[jax-jit-call\]$"),
            "ValueError",
            NON_HASHABLE,
        ),
        Rule(
            "jax-jit-call",
            re.compile(r"^main:(\d+): error: Argument .* which JAX cannot trace; JAX raises TypeError  \[jax-jit-call\]$"),
            "TypeError",
            UNTRACEABLE_ARGUMENT,
        ),
    ]
)
"""A rule may raise several exceptions, one per kind of site: each has its entry, and the
error names the exception JAX raises."""


LINT_RULES = [
    Rule(
        "jax-removed-name",
        re.compile(r'^main:(\d+): error: "[\w.]+" was removed in JAX [\d.]+; JAX raises AttributeError  \[jax-removed-name\]$'),
        "AttributeError",
        re.compile(r"has no attribute|was removed in JAX|is deprecated"),
    ),
    Rule(
        "jax-call-signature",
        re.compile(r'^main:(\d+): error: "[\w.]+" takes no keyword "\w+" in JAX [\d.]+; JAX raises TypeError  \[jax-call-signature\]$'),
        "TypeError",
        re.compile(r"got an unexpected keyword argument"),
    ),
    Rule(
        "jax-call-signature",
        re.compile(r'^main:(\d+): error: "[\w.]+" cannot write into "out="; JAX raises NotImplementedError  \[jax-call-signature\]$'),
        "NotImplementedError",
        re.compile(r"out"),
    ),
]
"""The codes ``jax-stubs lint`` shows for mypy's own errors (``lint/mypy_errors.py``), which no
YAML case (mypy's output) holds: the lint sample's misuses of them raise these."""


def rule_for(code: str, message: str) -> Rule:
    """The entry of ``RULES`` for an error of ``code``: where a code has several (one per kind
    of misuse), the one whose report it is."""
    found = [rule for rule in [*RULES, *LINT_RULES] if rule.code == code]
    if len(found) > 1:
        found = [rule for rule in found if rule.reported.match(f"main:1: error: {message}  [{code}]")]
    [rule] = found
    return rule


@dataclass
class Case:
    name: str
    main: str
    files: dict[str, str] = field(default_factory=dict)
    out: list[str] = field(default_factory=list)
    mypy_config: str = ""
    runtime: str | None = None
    runtime_reason: str | None = None
    runtime_line: int | None = None
    """The line of ``main`` that raises, where no misuse report names it (a check the user
    disabled or silenced, a misuse only mypy's own errors show)."""
    runtime_message: str | None = None
    """A pattern of what the exception says, where no rule of ``RULES`` for its class does."""
    regex: bool = False
    skip: str | None = None
    """pytest-mypy-plugins' ``skip``: an expression true where the case does not apply (a
    JAX release without the form it uses)."""
    unseen_by_stubs: str | None = None
    """Why a misuse that mypy reports is invisible to the stubs alone, where the reported type
    does not show it (a TypeVar bound to ``Optional[Any]``)."""
    on_platform: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The outcome where a platform's runtime differs from the CPU's, by the name
    ``jax.default_backend()`` gives it: ``tpu: {runtime: ..., runtime_line: ...,
    runtime_message: ..., runtime_reason: ...}`` (a TPU array has no DLPack export)."""

    def on(self, platform: str) -> Case:
        """The case as it runs on ``platform``: its ``on_platform`` outcome there, if any."""
        return replace(self, **self.on_platform.get(platform, {}))

    @property
    def out_lines(self) -> list[str]:
        """The expected output as text (a regex case read back)."""
        return [UNESCAPE.sub(r"\1", line) for line in self.out] if self.regex else self.out

    @property
    def misuses(self) -> list[tuple[int, Rule]]:
        """The lines of ``main`` that the type check reports as a misuse, with the rule."""
        found = {(int(m.group(1)), rule.code): rule for line in self.out_lines for rule in RULES if (m := rule.reported.match(line))}
        moved = {int(m.group(1)): int(m.group(2)) for line in self.out_lines if (m := IN_AN_UNCHECKED_BODY.match(line))}
        return sorted(((moved.get(line, line), rule) for (line, _), rule in found.items()), key=lambda pair: pair[0])

    def said_to_raise_at(self, rule: Rule) -> int | None:
        """The line the report of ``rule`` says JAX raises at (``Rule.raises_at``), or None."""
        if rule.raises_at is None:
            return None
        return next((int(m.group(1)) for line in self.out_lines if rule.reported.match(line) and (m := rule.raises_at.search(line))), None)

    @property
    def misuse_lines(self) -> list[int]:
        return [line for line, _ in self.misuses]

    @property
    def stream_types(self) -> list[str]:
        """The stream types the plugin's errors and notes name (``got "int | None"``)."""
        return [m.group(1) for line in self.out_lines if (m := GOT.search(line))]

    @property
    def seen_by_stubs(self) -> bool:
        """Whether a checker that reads only the stubs reports the misuse: a stream passed to
        ``to_device`` with some member of its type neither ``Any`` nor ``None`` (every checker
        accepts those for ``stream: None``). The stubs refine nothing else."""
        return (
            [rule.code for _, rule in self.misuses] == ["jax-to-device-stream"]
            and not self.unseen_by_stubs
            and all(set(types.split(" | ")) - {"Any", "None"} for types in self.stream_types)
        )

    @property
    def skip_reason(self) -> str:
        """Why the case does not apply here, as a sentence (its ``skip`` compares the JAX
        release, or asks for a library)."""
        library = LIBRARY_SKIP.fullmatch((self.skip or "").strip())
        if library is not None:
            name = library["library"]
            if library["release"] is None or importlib.util.find_spec(name) is None:
                return f"the case needs {name}, which this environment does not have"
            return f"the case needs {name} {dotted(library['release'])} or later; this is {name} {importlib.metadata.version(name)}"
        found = RELEASE_SKIP.fullmatch((self.skip or "").strip())
        if found is None:
            return f"the case does not apply here ({self.skip})"
        release = dotted(found["release"])
        if found["op"] == "<":
            return f"the case needs JAX {release} or later; this is JAX {jax.__version__}"
        return f"the case is about JAX before {release}; this is JAX {jax.__version__}"

    @property
    def skipped(self) -> bool:
        """Whether the case does not apply here, by its ``skip`` expression."""
        return self.skip is not None and bool(eval(self.skip))  # noqa: S307 (the case's own expression)

    @property
    def config(self) -> str:
        """The case's mypy configuration as pytest-mypy-plugins runs it: the suite's
        ``typecheck/mypy.ini`` with the case's own ``mypy_config`` over it, without the
        ``[mypy]`` header (``mypy_runs.write_config`` writes its own)."""
        parser = configparser.ConfigParser()
        parser.read(TYPECHECK / "mypy.ini")
        parser.read_string(self.mypy_config if "[mypy]" in self.mypy_config else f"[mypy]\n{self.mypy_config}")
        written = io.StringIO()
        parser.write(written)
        return written.getvalue().removeprefix("[mypy]\n")

    @property
    def uses_plugin(self) -> bool:
        return "mypy_plugin" in configparser_value(self.config, "plugins")


def configparser_value(config: str, option: str) -> str:
    """``option`` of the ``[mypy]`` section of ``config`` (as ``Case.config`` gives it)."""
    parser = configparser.ConfigParser()
    parser.read_string(f"[mypy]\n{config}")
    return parser.get("mypy", option, fallback="")


def render(text: str, params: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), text)


PLATFORM_OUTCOME: Final = ("runtime", "runtime_reason", "runtime_line", "runtime_message")
"""What ``on_platform`` may state for a platform."""
PLATFORMS: Final = ("cpu", "gpu", "tpu")
"""The names ``jax.default_backend()`` gives the platforms."""


def load_cases(folder: Path = TYPECHECK, paths: list[Path] | None = None) -> list[Case]:
    """Every case of every YAML file (of ``folder``, or ``paths``), one per parametrized entry,
    named like pytest names them."""
    cases = []
    for path in sorted(folder.glob("*.yml")) if paths is None else paths:
        for raw in yaml.safe_load(path.read_text(encoding="utf-8")):
            for params in raw.get("parametrized") or [{}]:
                suffix = ",".join(f"{k}={v}" for k, v in params.items())
                cases.append(
                    Case(
                        name=f"{path.stem}::{raw['case']}" + (f"[{suffix}]" if suffix else ""),
                        main=render(raw["main"], params),
                        files={f["path"]: render(f.get("content", ""), params) for f in raw.get("files", [])},
                        out=render(raw.get("out", ""), params).splitlines(),
                        mypy_config=raw.get("mypy_config", ""),
                        runtime=raw.get("runtime"),
                        runtime_reason=raw.get("runtime_reason"),
                        runtime_line=raw.get("runtime_line"),
                        runtime_message=raw.get("runtime_message"),
                        regex=bool(raw.get("regex", False)),
                        unseen_by_stubs=raw.get("unseen_by_stubs"),
                        skip=raw.get("skip"),
                        on_platform=raw.get("on_platform") or {},
                    )
                )
    return cases


def run_snippet(case: Case, folder: Path, main: str | None = None) -> BaseException | None:
    """Run ``main`` (by default the case's own) with the case's ``files`` importable, as a fresh
    ``__main__`` in ``folder/main.py``; return what it raised."""
    for relative, content in case.files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    path = folder / "main.py"
    path.write_text(case.main if main is None else main, encoding="utf-8")
    modules_before = set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        runpy.run_path(str(path), run_name="__main__")
    except Exception as error:  # the outcome under test
        return error
    finally:
        sys.path.remove(str(folder))
        for name in set(sys.modules) - modules_before:
            module_file = getattr(sys.modules[name], "__file__", None) or ""
            if module_file.startswith(str(folder)):
                del sys.modules[name]
    return None


def reported_statement(source: str, line: int) -> ast.stmt:
    """The statement reported on ``line``: the one there that assigns to an item, or a call as
    a statement (an in-place function, ``jnp.put(x, ...)``, or a discarded update,
    ``x.at[i].set(v)``, ``x.sort()``)."""
    found = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.stmt) and node_reported(node) and node.lineno == line]
    assert len(found) == 1, (line, source)
    return found[0]


def node_reported(node: ast.stmt) -> bool:
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        return isinstance(assigned_item(node), ast.Subscript)
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)


def assigned_item(statement: ast.Assign | ast.AugAssign) -> ast.expr:
    target = statement.target if isinstance(statement, ast.AugAssign) else statement.targets[0]
    return target.elts[0] if isinstance(target, ast.Tuple) else target


def updated_by_at(call: ast.Call) -> tuple[ast.expr, ast.expr, str] | None:
    """``(x, i, method)`` for ``x.at[i].method(...)``; None for another call."""
    method = call.func
    if isinstance(method, ast.Attribute) and isinstance(method.value, ast.Subscript):
        helper = method.value.value
        if isinstance(helper, ast.Attribute) and helper.attr == "at":
            return helper.value, method.value.slice, method.attr
    return None


def assigned_array(statement: ast.stmt) -> ast.expr:
    """The array a statement changes, or means to: the array of an item assignment, of
    ``x.at[i].set(v)``, of ``x.sort()``, or the one an in-place function is given first."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        at = updated_by_at(call)
        if at is not None:
            return at[0]
        if isinstance(call.func, ast.Attribute) and call.func.attr == "sort":
            return call.func.value
        return call.args[0]
    assert isinstance(statement, (ast.Assign, ast.AugAssign))
    item = assigned_item(statement)
    assert isinstance(item, ast.Subscript)
    return item.value


def in_place_of_statement(source: str, line: int, code: str) -> str:
    """``source`` with the statement on ``line`` replaced by ``code`` (other statements on that
    line, such as a ``global`` declaration before it, stay)."""
    statement = reported_statement(source, line)
    assert statement.end_lineno == line, "a reported statement on one line"
    lines = source.splitlines(keepends=True)
    text = lines[line - 1]
    lines[line - 1] = text[: statement.col_offset] + code + text[statement.end_col_offset :]
    return "".join(lines)


KEEP, SNAPSHOT = "jax_stubs_keep", "jax_stubs_snapshot"
"""The probes a rewritten case calls: keep an object; snapshot a value (or the last kept)."""


def concrete(value: Any) -> Any:
    """A NumPy copy of ``value``; None for a traced value (under ``jax.jit`` or ``jax.vmap``)."""
    if isinstance(value, jax.core.Tracer):
        return None
    return np.array(value)


class Probed:
    """What the probes saw while a case ran: the objects kept, the snapshots taken."""

    def __init__(self) -> None:
        self.kept: list[Any] = []
        self.snapshots: list[Any] = []


@contextmanager
def probes() -> Iterator[Probed]:
    """``jax_stubs_keep(x)`` and ``jax_stubs_snapshot(x=kept)`` as builtins while the block
    runs; the snapshots are NumPy copies, None for traced values."""
    probed = Probed()
    setattr(builtins, KEEP, probed.kept.append)
    setattr(builtins, SNAPSHOT, lambda value=None: probed.snapshots.append(concrete(probed.kept[-1] if value is None else value)))
    try:
        yield probed
    finally:
        delattr(builtins, KEEP)
        delattr(builtins, SNAPSHOT)


def marked_misuses(path: Path = PORTED_FROM_NUMPY) -> list[tuple[int, str]]:
    """The lines marked ``# jax-...`` in ``path``, with the code each mark names."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(number, found.group(1)) for number, line in enumerate(lines, 1) if (found := MARK.search(line))]


def call_reported(path: Path, reported: dict[int, Rule], arguments: dict[str, tuple[Any, ...]]) -> tuple[dict[str, Any], list[str]]:
    """Call every top-level function of the module at ``path`` with its ``arguments``: one with
    a line in ``reported`` raises that rule's exception from that line (a discarded update
    runs); one without runs. Returns what the functions that ran returned, and the names of
    those without a report, in order."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {
        line: node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    assert set(functions.values()) == set(arguments)
    module = runpy.run_path(str(path), run_name="reported")
    returned: dict[str, Any] = {}
    unreported = []
    for name, given in arguments.items():
        lines = [line for line in reported if functions.get(line) == name]
        if not lines:
            unreported.append(name)
        rule = reported[lines[0]] if len(lines) == 1 else None
        if rule is None or rule.exception is None:
            assert len(lines) <= 1, (name, lines)
            returned[name] = module[name](*given)
            continue
        try:
            module[name](*given)
        except Exception as error:  # the outcome under test
            names = [kind.__name__ for kind in type(error).__mro__] if rule.or_subclass else [type(error).__name__]
            assert rule.exception in names and rule.message and rule.message.search(str(error)), error
            frames = [frame.lineno or 0 for frame in traceback.extract_tb(error.__traceback__) if frame.filename == str(path)]
            if rule.raised_by_a_call:  # reported where the function is transformed, raised by its call below
                assert frames[-1] > lines[0], (name, frames)
            else:
                assert frames[-1] == lines[0], (name, frames)
        else:
            raise AssertionError(f"{name} ran, but line {lines[0]} is reported under {rule.code}")
    return returned, unreported
