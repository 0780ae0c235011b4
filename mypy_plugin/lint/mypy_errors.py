"""mypy's own errors on JAX's API that JAX raises on every run, shown by lint under codes of the package.

Lint shows only the package's codes: mypy's own errors are the project's own type check's
business. Two of them are JAX failures whatever the project's types, and lint would hide them:

- ``jax-removed-name``: a name JAX removed (``jax.tree_map``, ``jnp.DeviceArray``,
  ``jax.ops.index_update``), which mypy reports as ``attr-defined`` or ``name-defined`` with
  nothing of what replaced it. The table of removed names (``analyses/contract.py``) gives the
  release and JAX's own text of the replacement;
- ``jax-call-signature``: a call into JAX that mypy rejects (``call-arg``) for a keyword that
  JAX's function, as the installed release defines it, does not take (``jnp.reshape(x,
  newshape=...)``: ``TypeError``), or NumPy's ``out=`` where JAX raises for any array
  (``jnp.maximum(x, y, out=x)``: ``NotImplementedError``). Where JAX's annotation is stricter
  than its run time (a keyword it takes through ``**kwargs``), the contract table says so and
  nothing is shown.

The name an error is about is read from the file's own source (its imports resolve
``jnp``), at the line and column mypy gives. Where it cannot be read, or names no JAX function
the table holds, or the line runs only where a check allows it (a ``try`` that falls back, an
``if`` on ``hasattr`` or a version), the error stays mypy's own and lint shows nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any, Final

from mypy_plugin.analyses import contract
from mypy_plugin.lib import errorcodes

REMOVED_NAME: Final = errorcodes.REMOVED_NAME.code
CALL_SIGNATURE: Final = errorcodes.CALL_SIGNATURE.code
CODES: Final = frozenset({REMOVED_NAME, CALL_SIGNATURE})

MODULE_ATTRIBUTE: Final = re.compile(r'^Module(?: "(?P<module>[\w.]+)")? has no attribute "(?P<name>\w+)"')
UNDEFINED_NAME: Final = re.compile(r'^Name "(?P<name>[\w.]+)" is not defined')
UNEXPECTED_KEYWORD: Final = re.compile(r'^Unexpected keyword argument "(?P<keyword>\w+)" for ')
IGNORED: Final = re.compile(r"#\s*type:\s*ignore\[(?P<codes>[^\]]*)\]")

REMOVED: Final = '"{name}" was removed in JAX {release}; JAX raises AttributeError'
REPLACED_BY: Final = "JAX's note: {replacement}"
SEE_THE_CHANGELOG: Final = "What replaced it is in JAX's changelog: https://docs.jax.dev/en/latest/changelog.html"
NO_KEYWORD: Final = '"{name}" takes no keyword "{keyword}" in JAX {release}; JAX raises TypeError'
NO_OUT: Final = '"{name}" cannot write into "out="; JAX raises {raises}'
ASSIGN_THE_RESULT: Final = 'JAX arrays are immutable: assign the result instead ("y = {call}(...)")'
MYPY_SAYS: Final = "mypy: {message}"


class Names:
    """What the names of one module's source stand for, by its imports (``jnp`` ->
    ``jax.numpy``, ``from jax.numpy import reshape`` -> ``jax.numpy.reshape``), and its nodes
    by position."""

    def __init__(self, text: str) -> None:
        self.tree = ast.parse(text)
        self.lines = text.splitlines()
        self.bound: dict[str, str] = {}
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

    def resolved(self, dotted: str) -> str | None:
        """``jnp.reshape`` as a full name (``jax.numpy.reshape``), or None for a name no import binds."""
        head, _, rest = dotted.partition(".")
        if head not in self.bound:
            return None
        return f"{self.bound[head]}.{rest}" if rest else self.bound[head]

    def node_at(self, line: int, column: int, kind: type[ast.AST]) -> ast.AST | None:
        for node in ast.walk(self.tree):
            if isinstance(node, kind) and getattr(node, "lineno", None) == line and getattr(node, "col_offset", None) == column:
                return node
        return None

    def guarded(self, line: int) -> bool:
        """Whether the line runs only where a check allows it: in the body of a ``try`` (code
        that falls back where a name is missing) or under an ``if`` that tests ``hasattr`` or a
        version. The failure is then handled, or the line is for another release: silent."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Try) and node.body and node.body[0].lineno <= line <= (node.body[-1].end_lineno or 0):
                return True
            if isinstance(node, ast.If) and node.lineno < line <= (node.end_lineno or 0):
                tested = ast.unparse(node.test)
                if "hasattr" in tested or "version" in tested.lower():
                    return True
        return False

    def ignored(self, line: int, code: str) -> bool:
        """Whether the line silences ``code`` with ``# type: ignore[...]``."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return any(code in [part.strip() for part in match["codes"].split(",")] for match in IGNORED.finditer(text))


def dotted(node: ast.AST) -> str | None:
    """``jax.numpy.reshape`` for the expression ``jax.numpy.reshape``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def translated(errors: list[dict[str, Any]], source: Callable[[str], str | None]) -> list[dict[str, Any]]:
    """The errors among mypy's ``errors`` that are JAX failures, as errors of the package's
    codes (mypy's JSON objects, their notes in ``hint``). ``source`` gives a file's text."""
    found = []
    read: dict[str, Names | None] = {}
    for error in errors:
        if error.get("severity") != "error" or error.get("code") not in ("attr-defined", "name-defined", "call-arg"):
            continue
        path = str(error.get("file") or "")
        if path not in read:
            read[path] = names_of(source(path))
        names = read[path]
        if names is None:
            continue
        made = removed_name(error, names) if error["code"] != "call-arg" else call_signature(error, names)
        if made is not None and not names.guarded(int(made["line"])) and not names.ignored(int(made["line"]), str(made["code"])):
            found.append(made)
    return found


def names_of(text: str | None) -> Names | None:
    try:
        return Names(text) if text is not None else None
    except (SyntaxError, ValueError):
        return None


def removed_name(error: dict[str, Any], names: Names) -> dict[str, Any] | None:
    """``jax-removed-name`` for mypy's ``Module has no attribute`` or ``Name ... is not defined``
    on a name JAX removed."""
    message = str(error.get("message", ""))
    fullname = None
    if (match := MODULE_ATTRIBUTE.match(message)) is not None:
        if match["module"] is not None:  # from jax import tree_map
            fullname = f"{match['module']}.{match['name']}"
        else:  # jax.tree_map: the expression at mypy's column
            node = names.node_at(int(error["line"]), int(error["column"]), ast.Attribute)
            written = dotted(node) if node is not None else None
            fullname = names.resolved(written) if written is not None and written.endswith(f".{match['name']}") else None
    elif (match := UNDEFINED_NAME.match(message)) is not None:  # an annotation: jnp.DeviceArray
        fullname = names.resolved(match["name"])
    gone = contract.removed(fullname) if fullname is not None else None
    if gone is None:
        return None
    notes = [REPLACED_BY.format(replacement=gone.replacement) if gone.replacement else SEE_THE_CHANGELOG, MYPY_SAYS.format(message=message)]
    return made_from(error, REMOVED_NAME, REMOVED.format(name=gone.fullname, release=gone.release), notes)


def call_signature(error: dict[str, Any], names: Names) -> dict[str, Any] | None:
    """``jax-call-signature`` for mypy's ``Unexpected keyword argument`` on a call of a JAX
    function that raises for that keyword on every call."""
    message = str(error.get("message", ""))
    match = UNEXPECTED_KEYWORD.match(message)
    node = names.node_at(int(error["line"]), int(error["column"]), ast.Call) if match is not None else None
    written = dotted(node.func) if isinstance(node, ast.Call) else None
    fullname = names.resolved(written) if written is not None else None
    if match is None or written is None or fullname is None or not fullname.startswith("jax."):
        return None
    keyword = match["keyword"]
    release = contract.contract().release
    if keyword == "out" and (raises := contract.out_raises(fullname)) is not None:
        notes = [ASSIGN_THE_RESULT.format(call=written), MYPY_SAYS.format(message=message)]
        return made_from(error, CALL_SIGNATURE, NO_OUT.format(name=written, raises=raises), notes)
    if contract.rejects_keyword(fullname, keyword):
        said = NO_KEYWORD.format(name=written, keyword=keyword, release=release)
        return made_from(error, CALL_SIGNATURE, said, [MYPY_SAYS.format(message=message)])
    return None


def made_from(error: dict[str, Any], code: str, message: str, notes: list[str]) -> dict[str, Any]:
    return {**error, "code": code, "message": message, "hint": "\n".join(notes)}
