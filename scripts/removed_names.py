#!/usr/bin/env python3
"""The names and modules JAX removed from its public API, release by release, read from the releases' own sources.

    python scripts/removed_names.py [--json mypy_plugin/contract/removed.json] [--cache DIR]

For each JAX release on the package index (its wheel, or for the oldest its source archive,
fetched once into ``--cache``), reads the ``__init__.py`` (or module file) of each module of
``MODULES`` without importing it: the names it binds at run time (definitions, assignments,
imports; not what ``if TYPE_CHECKING`` declares) and the deprecated ones its ``_deprecations``
table still serves. A name one release has and every later release lacks was removed in the
first release without it; the text JAX's own ``_deprecations`` gave it (before or after the
removal: JAX keeps the entry a few releases, raising ``AttributeError`` with it) says what
replaced it, and ``REPLACEMENTS`` does for the few removed without such an entry. Releases are
read by bisection: every minor release's first, then between two read releases that differ.

Modules likewise: a public module file of the package (``jax/experimental/host_callback.py``,
no path part starting with ``_``, no tests) that one release has and every later release lacks
was removed in the first release without it. Where the newest release's parent package still
binds the module's name (``jax.config``, now an object), ``from jax import config`` runs and
the table says so (``parent_binds``): only ``import jax.config`` and ``from jax.config import
...`` raise.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from releases import version_key  # noqa: E402

MODULES = (
    "jax",
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.numpy.fft",
    "jax.lax",
    "jax.random",
    "jax.nn",
    "jax.nn.initializers",
    "jax.ops",
    "jax.tree_util",
    "jax.scipy.special",
    "jax.scipy.linalg",
    "jax.image",
    "jax.core",
    "jax.dtypes",
    "jax.interpreters.xla",
)
OLDEST = "0.2.0"
REPLACEMENTS = {
    "jax.partial": "use functools.partial",
    "jax.ops.index_update": "use x.at[idx].set(y)",
    "jax.ops.index_add": "use x.at[idx].add(y)",
    "jax.ops.index_mul": "use x.at[idx].multiply(y)",
    "jax.ops.index_min": "use x.at[idx].min(y)",
    "jax.ops.index_max": "use x.at[idx].max(y)",
    "jax.ops.index": "index the array's .at property: x.at[idx]",
    "jax.numpy.DeviceArray": "use jax.Array",
    "jax.tree_multimap": "use jax.tree_util.tree_map, which takes several trees",
}
"""What replaced a name JAX removed without a ``_deprecations`` entry (JAX's changelog)."""
MODULE_REPLACEMENTS = {
    "jax.config": "the configuration is the object jax.config: jax.config.update(...), or from jax import config",
    "jax.experimental.host_callback": "use jax.pure_callback, jax.experimental.io_callback or jax.debug.callback",
    "jax.experimental.maps": "xmap is gone: use jax.experimental.shard_map.shard_map, or jax.vmap",
    "jax.experimental.optimizers": "use jax.example_libraries.optimizers (or optax)",
    "jax.experimental.stax": "use jax.example_libraries.stax (or flax)",
    "jax.lib.xla_bridge": "use jax.extend.backend (get_backend)",
    "jax.linear_util": "use jax.extend.linear_util",
    "jax.prng": "use jax.extend.random",
}
"""What replaced a module JAX removed (JAX's changelog), each checked on 0.10.2."""
INDEX = "https://pypi.org/pypi/jax/json"


def releases() -> dict[str, str]:
    """Every final release from ``OLDEST`` on, oldest first, with the address of its wheel (or
    source archive)."""
    with urllib.request.urlopen(INDEX, timeout=60) as answer:
        listing = json.load(answer)["releases"]
    found: dict[str, str] = {}
    for version, files in listing.items():
        if not re.fullmatch(r"\d+(\.\d+)*", version) or version_key(version) < version_key(OLDEST):
            continue
        usable = [file for file in files if not file.get("yanked")]
        wheel = next((file["url"] for file in usable if file["filename"].endswith("-py3-none-any.whl")), None)
        archive = next((file["url"] for file in usable if file["filename"].endswith(".tar.gz")), None)
        if wheel or archive:
            found[version] = urllib.parse.urljoin(INDEX, wheel or archive or "")  # a mirror may give relative addresses
    return dict(sorted(found.items(), key=lambda item: version_key(item[0])))


def module_path(module: str) -> tuple[str, str]:
    base = module.replace(".", "/")
    return f"{base}/__init__.py", f"{base}.py"


def fetched(url: str, cache_folder: Path) -> Path:
    """The release's file, fetched into the cache the first time."""
    local = cache_folder / url.rsplit("/", 1)[1]
    if not local.exists():
        cache_folder.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(url, timeout=120) as answer:
            local.write_bytes(answer.read())
    return local


def sources(url: str, cache_folder: Path) -> dict[str, str]:
    """The module files of ``MODULES`` in one release's file (fetched once into the cache)."""
    local = fetched(url, cache_folder)
    wanted = {path for module in MODULES for path in module_path(module)}
    found: dict[str, str] = {}
    if local.name.endswith(".whl"):
        with zipfile.ZipFile(local) as wheel:
            for name in wheel.namelist():
                if name in wanted:
                    found[name] = wheel.read(name).decode("utf-8", "replace")
    else:
        with tarfile.open(fileobj=io.BytesIO(local.read_bytes())) as archive:
            for member in archive.getmembers():
                inner = member.name.split("/", 1)[1] if "/" in member.name else member.name
                if inner in wanted and member.isfile():
                    extracted = archive.extractfile(member)
                    if extracted is not None:
                        found[inner] = extracted.read().decode("utf-8", "replace")
    return found


def module_files(url: str, cache_folder: Path) -> set[str]:
    """The public modules of one release's file, by name (``jax.experimental.host_callback``)."""
    local = fetched(url, cache_folder)
    if local.name.endswith(".whl"):
        with zipfile.ZipFile(local) as wheel:
            paths = wheel.namelist()
    else:
        with tarfile.open(fileobj=io.BytesIO(local.read_bytes())) as archive:
            paths = [member.name.split("/", 1)[1] for member in archive.getmembers() if "/" in member.name and member.isfile()]
    found = set()
    for path in paths:
        parts = path.split("/")
        if parts[0] != "jax" or not path.endswith(".py") or any(part.startswith("_") and part != "__init__.py" for part in parts):
            continue
        if any(part in ("tests", "test") for part in parts) or parts[-1].startswith("test"):
            continue
        module = ".".join(parts[:-1] if parts[-1] == "__init__.py" else [*parts[:-1], parts[-1][: -len(".py")]])
        found.add(module)
    return found


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def bound_names(statements: list[ast.stmt], names: set[str]) -> bool:
    """Add the public names ``statements`` bind at run time; False where a star import makes
    them unknowable."""
    known = True
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        names.add(node.id)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name == "*":
                    known = False
                elif isinstance(statement, ast.Import):
                    names.add((alias.asname or alias.name).split(".")[0])
                else:
                    names.add(alias.asname or alias.name)
        elif isinstance(statement, ast.Delete):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    names.discard(target.id)
        elif isinstance(statement, ast.If):
            known &= bound_names(statement.orelse if is_type_checking(statement.test) else statement.body + statement.orelse, names)
        elif isinstance(statement, ast.Try):
            known &= bound_names(statement.body + [s for handler in statement.handlers for s in handler.body], names)
    return known


def deprecations(tree: ast.Module) -> dict[str, tuple[str, bool]]:
    """``_deprecations``: each name with JAX's text and whether it is still served."""
    found: dict[str, tuple[str, bool]] = {}
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_deprecations" for t in statement.targets)):
            continue
        if not isinstance(statement.value, ast.Dict):
            continue
        for key, value in zip(statement.value.keys, statement.value.values):
            if isinstance(key, ast.Constant) and isinstance(value, ast.Tuple) and len(value.elts) == 2:
                parts = [part.value for part in ast.walk(value.elts[0]) if isinstance(part, ast.Constant)]
                text = "".join(part for part in parts if isinstance(part, str))
                served = not (isinstance(value.elts[1], ast.Constant) and value.elts[1].value is None)
                found[str(key.value)] = (" ".join(text.split()), served)
    return found


class Release:
    """The public names of ``MODULES`` in one release (None for a module it has not, or whose
    names a star import hides), and the deprecation texts it holds."""

    def __init__(self, files: dict[str, str]) -> None:
        self.names: dict[str, set[str] | None] = {}
        self.texts: dict[str, str] = {}
        for module in MODULES:
            package, plain = module_path(module)
            text = files.get(package, files.get(plain))
            if text is None:
                self.names[module] = None
                continue
            try:
                tree = ast.parse(text)
            except SyntaxError:
                self.names[module] = None
                continue
            names: set[str] = set()
            known = bound_names(tree.body, names)
            table = deprecations(tree)
            names |= {name for name, (_, served) in table.items() if served}
            names -= {name for name, (_, served) in table.items() if not served}
            self.names[module] = {name for name in names if not name.startswith("_")} if known else None
            self.texts.update({f"{module}.{name}": text for name, (text, _) in table.items() if text})

    def has(self, fullname: str) -> bool | None:
        module, _, name = fullname.rpartition(".")
        names = self.names.get(module)
        return None if names is None else name in names


def removed(cache_folder: Path) -> dict[str, dict[str, str]]:
    served = releases()
    versions = list(served)

    loaded: dict[int, Release] = {}

    def read(index: int) -> Release:
        if index not in loaded:
            print(f"removed_names: reading jax {versions[index]}", file=sys.stderr)
            loaded[index] = Release(sources(served[versions[index]], cache_folder))
        return loaded[index]

    minors = sorted({next(i for i, v in enumerate(versions) if version_key(v)[:2] == version_key(w)[:2]) for w in versions})
    sampled = sorted({*minors, len(versions) - 1})
    newest = read(len(versions) - 1)
    gone: dict[str, int] = {}  # each removed name: the index of the last release that had it
    for before, after in zip(sampled, sampled[1:]):
        old, new = read(before), read(after)
        for module, names in old.names.items():
            for name in sorted(names or ()):
                fullname = f"{module}.{name}"
                if new.has(fullname) is False and newest.has(fullname) is False:
                    low, high = before, after  # low has it, high has not
                    while high - low > 1:
                        middle = (low + high) // 2
                        if read(middle).has(fullname) is False:
                            high = middle
                        else:
                            low = middle
                    gone[fullname] = low
    texts: dict[str, str] = {}
    for index in sorted(loaded):  # the newest text of each name wins
        texts.update(loaded[index].texts)
    table: dict[str, dict[str, str]] = {}
    for fullname, last in sorted(gone.items()):
        replacement = texts.get(fullname) or REPLACEMENTS.get(fullname, "")
        table[fullname] = {"removed": versions[last + 1], "last": versions[last], "replacement": replacement}
    return table


def module_text(url: str, cache_folder: Path, module: str) -> str | None:
    """The source of one module (its ``__init__.py`` or its file) in one release's wheel."""
    local = fetched(url, cache_folder)
    if not local.name.endswith(".whl"):
        return None
    with zipfile.ZipFile(local) as wheel:
        names = set(wheel.namelist())
        for path in module_path(module):
            if path in names:
                return wheel.read(path).decode("utf-8", "replace")
    return None


def removed_modules(cache_folder: Path) -> dict[str, dict[str, object]]:
    """The public modules JAX removed: the first release without each, the last with it, and
    whether the newest release's parent package binds its name (``parent_binds``)."""
    served = releases()
    versions = list(served)
    loaded: dict[int, set[str]] = {}

    def read(index: int) -> set[str]:
        if index not in loaded:
            print(f"removed_names: listing modules of jax {versions[index]}", file=sys.stderr)
            loaded[index] = module_files(served[versions[index]], cache_folder)
        return loaded[index]

    minors = sorted({next(i for i, v in enumerate(versions) if version_key(v)[:2] == version_key(w)[:2]) for w in versions})
    sampled = sorted({*minors, len(versions) - 1})
    newest_index = len(versions) - 1
    newest = read(newest_index)
    gone: dict[str, int] = {}
    for before, after in zip(sampled, sampled[1:]):
        for module in sorted(read(before) - read(after) - newest):
            if module in gone:
                continue
            low, high = before, after
            while high - low > 1:
                middle = (low + high) // 2
                if module in read(middle):
                    low = middle
                else:
                    high = middle
            gone[module] = low
    table: dict[str, dict[str, object]] = {}
    for module, last in sorted(gone.items()):
        if any(module.startswith(other + ".") for other in gone):
            continue  # a module of a package removed as a whole: the package's entry says it
        parent, _, name = module.rpartition(".")
        text = module_text(served[versions[newest_index]], cache_folder, parent) if parent in newest else None
        binds: set[str] = set()
        if text is not None:
            try:
                bound_names(ast.parse(text).body, binds)
            except SyntaxError:
                pass
        table[module] = {
            "removed": versions[last + 1],
            "last": versions[last],
            "parent_binds": name in binds,
            "replacement": MODULE_REPLACEMENTS.get(module, ""),
        }
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the table here")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "jax-stubs-releases", help="where fetched files are kept")
    args = parser.parse_args()
    table = removed(args.cache)
    modules = removed_modules(args.cache)
    text = json.dumps({"modules": list(MODULES), "removed": table, "removed_modules": modules}, indent=1, sort_keys=True)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    print(f"removed_names: {len(table)} names removed from {len(MODULES)} modules, {len(modules)} modules removed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
