"""mypy with the plugin never crashes, whatever shape the code reaching a rule takes.

Hypothesis composes programs from receivers, call shapes, streams and surroundings that real
code has, also wrong (names never defined, a module that does not exist) and unparsable, and
mypy checks a whole batch of them in one process, beside a misuse whose report shows that the
hooks ran (mypy stops at a syntax error before any hook: that kind is checked alone). A crash
shows as ``INTERNAL ERROR``, a traceback, an exit status above 2, or the plugin's own
"internal error" line (its guard keeps mypy alive but the test still fails on it).

CI runs a fixed seed and a few batches; ``JAX_STUBS_FUZZ_EXAMPLES=200`` runs longer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from mypy_runs import MISUSE, assert_no_crash, run_mypy

EXAMPLES = int(os.environ.get("JAX_STUBS_FUZZ_EXAMPLES", "4"))
BATCH = 25

HEADER = """\
import dataclasses
import functools
from typing import Any, Final, Generic, NamedTuple, NoReturn, Optional, TypeVar, Union, cast, overload
import jax
import jax.numpy as jnp
import numpy as np

A = TypeVar("A", bound=jax.Array)
x = jnp.zeros(3)
dev = jax.devices()[0]
s_any: Any = 1
s_opt: Optional[int] = None
maybe: Optional[jax.Array] = None
either: Union[jax.Array, np.ndarray] = x
args: tuple[Any, ...] = (dev,)
kwargs: dict[str, Any] = {}

class Sub(jax.Array): ...

class Pair(NamedTuple):
    a: jax.Array
    b: Sub

@dataclasses.dataclass(frozen=True)
class Frozen:
    w: jax.Array
    n: int = dataclasses.field(init=False, default=0)

class Prop:
    @property
    def w(self) -> jax.Array:
        return x

pair = Pair(x, cast(Sub, x))
frozen = Frozen(x)
prop = Prop()
tup: tuple[jax.Array, Sub] = (x, cast(Sub, x))
FIXED: Final = x

class Own(jax.Array):
    def to_device(self, device: Any, *, stream: Any = None) -> jax.Array:  # type: ignore[override]
        return self

class Box(Generic[A]):
    def __init__(self, item: A) -> None:
        self.item = item

def never() -> NoReturn:
    raise SystemExit

@overload
def wrap(v: int) -> int: ...
@overload
def wrap(v: jax.Array) -> jax.Array: ...
def wrap(v: Any) -> Any:
    return v

async def produce() -> jax.Array:
    return x

def untyped(v):
    return v

@jax.jit
def jitted_h(v: jax.Array, mode: str = "a") -> float:
    return v  # type: ignore[return-value]

PyTree = Union[jax.Array, float, tuple["PyTree", ...], list["PyTree"], dict[str, "PyTree"]]
Nested = Union[tuple["Nested", int], list[int]]

@functools.partial(jax.jit, static_argnames=("n",))
def recursive_h(v: PyTree, n: Nested) -> PyTree:
    return v
"""

RECEIVERS = [
    "x",
    "jnp.ones(2)",
    "cast(Sub, x)",
    "cast(Own, x)",
    "maybe",
    "either",
    "never()",
    "s_any",
    "jax.Array",
    "type(x)",
    "Box(x).item",
    "wrap(x)",
    "untyped(x)",
    "(x + 1)",
    "x[0]",
    "x.T",
    "(lambda v: v)(x)",
    "getattr(x, 'sum')()",
    "jax.device_put(x)",
    "np.zeros(3)",
    "Sub",
    "cast(type[jax.Array], type(x))",
    "undefined_name",
    "pair.a",
    "pair.b",
    "pair[0]",
    "frozen.w",
    "prop.w",
    "tup[0]",
    "tup[1]",
    "tup[-1]",
    "FIXED",
    "[pair][0].a",
    "{'k': frozen}['k'].w",
]
STREAMS = [
    "None",
    "0",
    "-1",
    "s_any",
    "s_opt",
    "object()",
    "'s'",
    "undefined_name",
    "never()",
    "lambda: 0",
    "[i for i in range(2)]",
    "(yield)",
    "await produce()",
    "x",
    "reveal_type(1)",
    "...",
    "(s_opt or None)",
    "s_opt if s_opt is None else None",
    "kwargs.get('stream')",
    "getattr(x, 'stream', None)",
    "cast(Optional[Any], s_any)",
]
CALLS = [
    "{r}.to_device(dev, stream={s})",
    "{r}.to_device(dev, {s})",
    "{r}.to_device(stream={s})",
    "{r}.to_device(dev, stream={s}, extra=1)",
    "{r}.to_device(*args, stream={s})",
    "{r}.to_device(dev, **kwargs)",
    "{r}.to_device(*args, **kwargs)",
    "{r}.to_device()",
    "{r}.to_device(x, dev, stream={s})",
    "{r}.to_device",
    "{r}.to_device.__call__(dev, stream={s})",
    "getattr({r}, 'to_device')(dev, stream={s})",
    "functools.partial({r}.to_device, stream={s})(dev)",
    "functools.partial({r}.to_device, dev)(stream={s})",
    "(bound := {r}.to_device)(dev, stream={s})",
    "{r}.__dlpack__(stream={s})",
    "[{r}.to_device(dev, stream={s}) for _ in range(1)]",
    "{r}[0] = {s}",
    "{r}[{s}] += 1",
    "{r}[...] //= {s}",
    "{r}.T[0], {r}[1:] = {s}, {s}",
    "{r}.__setitem__({s}, 1)",
    "{r}[:][0] **= {s}",
    "{r}[lambda: 0] @= {s}",
    "{r}.at[{s}].set(1)",
    "{r}[0], {r}[1] = {s}, {s}",
    "{r}[{r} > 0] = {s}",
    "for item in [{r}]:\n        item[0] = {s}",
    "if {r}.sum() > {s}:\n        pass",
    "int({r}) + len(range({s}))",
    "{r}[{r} > {s}], jnp.nonzero({r}, size={s}), np.tanh({r})",
    "jitted_h({r}, mode={s})[0] = jitted_h({s})",
    "recursive_h({r}, n={s})[0] = recursive_h([{r}], (({s}, 1), 2))",
    "jax.jit(jitted_h, static_argnums={s})({r}, {s})",
    "jax.jit(lambda v: v, static_argnames={s}, donate_argnums=(0, 7))({r})",
    "functools.partial(jax.jit, static_argnames={s})(untyped)({r}, *args, **kwargs)",
    "jnp.clip({r}, a_min={s}, a_max={s}, *args)",
    "jnp.sort({r}, kind={s}), {r}.reshape(3, order={s}), jnp.array({r}, order={s}, **kwargs)",
    "jnp.put({r}, 0, {s}, inplace={s}), jnp.add.at({r}, {s}, 1.0, *args), jnp.put_along_axis({r}, {s}, 1, 0, {s})",
    "jnp.fromiter({s}), jnp.ndarray({s}), jax.Array(*args), jnp.quantile({r}, 0.5, method={s})",
    "jax.random.normal({s}, ({r},), dtype={s}), jax.random.split({r}, {s}), jax.random.key({s})",
    "jax.random.PRNGKey(**kwargs), jax.random.randint({r}, (3,), 0, {s}, dtype=jnp.float32)",
    "{r}.sort(); {r}.at[{s}].apply({s}); ({r}.at[0]).max(*args); {r}.at[{s}].get()",
    "jnp.add.at({r}, {s}, 1.0, inplace=False); jnp.place({r}, {r} > 0, {s}, inplace={s}); jnp.put(**kwargs)",
]
SURROUNDINGS = [
    "{c}",
    "def f() -> None:\n    {c}",
    "def g(t: A) -> None:\n    t.to_device(dev, stream=1)\n    {c}",
    "async def h() -> None:\n    {c}",
    "def gen() -> Any:\n    {c}",
    "@jax.jit\ndef j(v: jax.Array) -> jax.Array:\n    {c}\n    return v",
    "class K:\n    arr = x\n    def m(self) -> None:\n        self.arr.to_device(dev, stream=2)\n        {c}",
    "f2 = lambda: {c}",
    "if isinstance(either, jax.Array):\n    {c}",
    "try:\n    {c}\nexcept NotImplementedError:\n    pass",
    (
        "@functools.partial(jax.jit, static_argnums=s_any)\ndef pj(v: jax.Array, n: int) -> jax.Array:\n    "
        "if n > 0 and v.sum():\n        {c}\n    return v"
    ),
    "@jax.vmap\ndef vm(v: jax.Array) -> jax.Array:\n    while v > 0:\n        {c}\n    return v[v > 0]",
    "def plain(v: jax.Array, n: int) -> jax.Array:\n    {c}\n    return v\n\njitted = jax.jit(plain, static_argnames=('n', 1))",
    (
        "@jax.jit\ndef jw(v: jax.Array, *rest: int, **more: Any) -> Any:\n    with "
        "jax.ensure_compile_time_eval():\n        {c}\n    return [int(w) for w in v if w] or np.asarray(v)"
    ),
    (
        "@functools.partial(jax.jit, static_argnames=('mode', 'q'), donate_argnums=(0, 9))\ndef bj(v: "
        "jax.Array, mode: list[int]) -> float:\n    {c}\n    return 0.0\n\nbj(x, [1])"
    ),
]
# Code that does not parse: mypy stops at its syntax error, and nothing may crash on the way.
BREAKAGES = [")", "(", "stream=", ", stream=1, stream=2)", " + ", "\n    )", "def"]
# Code that parses but is wrong: mypy checks it through, and every hook meets what errors leave
# behind (a module that does not exist, names never defined, types of them, calls that fail).
WRONGS = [
    ("import jax.numpy as jnp", "import jax.nump as jnp"),
    ("x = jnp.zeros(3)", "x = undefined_array"),
    ("dev = jax.devices()[0]", "dev = jax.devices(1, 2, 3)[0]"),
    ('A = TypeVar("A", bound=jax.Array)', 'A = TypeVar("A", bound=Undefined)'),
    ("kwargs: dict[str, Any] = {}", "kwargs: dict[str, Undefined] = {}"),
    ("either: Union[jax.Array, np.ndarray] = x", "either: Union[jax.Arra, np.ndarray] = x"),
]
SENTINEL = MISUSE
"""A module beside the wrong ones with a misuse only the plugin reports: its report shows that
the hooks ran in that process."""


def statement(parts: tuple[str, str, str, str]) -> str:
    receiver, stream, call, surrounding = parts
    code = surrounding.format(c=call.format(r=receiver, s=stream))
    try:
        compile(code, "<statement>", "exec")
    except SyntaxError:  # e.g. a yield in a comprehension stops mypy itself; broken code comes below
        return "pass"
    return code


programs = st.lists(
    st.tuples(
        st.sampled_from(RECEIVERS),
        st.sampled_from(STREAMS),
        st.sampled_from(CALLS),
        st.sampled_from(SURROUNDINGS),
    ).map(statement),
    min_size=1,
    max_size=6,
).map(lambda statements: HEADER + "\n" + "\n\n".join(statements) + "\n")

batches = st.tuples(
    st.lists(programs, min_size=BATCH, max_size=BATCH),
    st.sampled_from(BREAKAGES),
    st.sampled_from(["", "strict = True\n", "warn_unreachable = True\ncheck_untyped_defs = True\n"]),
    st.lists(st.sampled_from(WRONGS), min_size=BATCH, max_size=BATCH),
)


def check_batch(folder: Path, sources: list[str], config: str, parses: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for index, source in enumerate(sources):
        (folder / f"p{index}.py").write_text(source)
    names = [f"p{i}.py" for i in range(len(sources))]
    if parses:
        (folder / "sentinel.py").write_text(SENTINEL)
        names.append("sentinel.py")
    result = run_mypy(folder, "--show-traceback", *names, extra=config)
    # Status 2 is a blocking error: expected from code that does not parse, a failure for code
    # that does (mypy would have stopped before the plugin saw anything).
    assert_no_crash(result, statuses=(0, 1) if parses else (0, 1, 2))
    if parses:
        assert "sentinel.py:4: error:" in result.stdout and "[jax-to-device-stream]" in result.stdout, result.stdout[-3000:]


@pytest.mark.parametrize("kind", ["valid", "wrong", "unparsable"])
def test_mypy_with_the_plugin_never_crashes(kind: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    @seed(20261130)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.generate],  # each example is a mypy run: no shrinking
        suppress_health_check=list(HealthCheck),
    )
    @given(batches)
    def run(batch: tuple[list[str], str, str, list[tuple[str, str]]]) -> None:
        sources, breakage, config, wrongs = batch
        if kind == "wrong":
            # One wrong line in each program's header: every program still parses.
            sources = [source.replace(*wrong, 1) for source, wrong in zip(sources, wrongs)]
        if kind == "unparsable":
            # Cut one program short and append the breakage: it must not parse.
            sources = [sources[0][: len(HEADER) + 40] + breakage]
        check_batch(tmp_path_factory.mktemp("batch"), sources, config, parses=kind != "unparsable")

    run()


def test_guard_gives_mypy_its_own_result_and_says_so_once(capsys: pytest.CaptureFixture[str]) -> None:
    from types import SimpleNamespace

    from mypy_plugin.lib import guard
    from mypy_plugin.lib.stderr import PREFIX

    def broken(ctx: object) -> object:
        raise KeyError("boom")

    ctx = SimpleNamespace(default_return_type="mypy's own", context=SimpleNamespace(line=7), api=SimpleNamespace(path="user.py"))
    hook = guard.guarded(broken, guard.default_return_type)
    assert hook(ctx) == "mypy's own"  # type: ignore[arg-type]
    assert hook(ctx) == "mypy's own"  # type: ignore[arg-type]
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(PREFIX + "skipped its check at user.py:7 after an internal error (KeyError")
