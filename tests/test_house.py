"""The plugin's parts import each other one way: rules use the JAX analyses and the plumbing, the
analyses use the plumbing, the plumbing uses nothing of either; no rule family uses another, and no
module reaches itself through others. Read from the source (every import, also those inside
functions), so a change that breaks the layout fails here by name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mypy_plugin

PACKAGE = Path(mypy_plugin.__file__).resolve().parent
ROOT = "mypy_plugin"
ALLOWED = {
    "lib": {"lib", ""},
    "analyses": {"analyses", "lib", ""},
    "rules": {"rules", "analyses", "lib", ""},
    "install": {"install", "lib", ""},
    "main": {"main", "rules", "install", "lib", ""},
    "typed_jit": {"typed_jit", "main", "rules", "install", ""},
    "lint": {"lint", "typed_jit", "rules", "analyses", "install", "lib", ""},
    "__main__": {"__main__", "lint", "install", "lib", ""},
    "": {"main", "install"},
}
"""What each part may import (``""``: the package's own ``__init__``, its version and name;
``main``, ``typed_jit`` and ``__main__``: the plugin class, its opt-in entry point, the command);
the plugin under ``lint``, and ``lint`` under the command alone."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """The modules of the package ``path`` imports, anywhere in it (``from mypy_plugin.lib import
    x`` imports ``mypy_plugin.lib.x`` where that is a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        named = string_import(node)
        if named is not None:
            found.add(named)
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == ROOT}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == ROOT:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in MODULES else node.module)
    return found


def string_import(node: ast.AST) -> str | None:
    """A module named in a string passed to ``importlib.import_module`` (an f-string's
    leading text: ``f"mypy_plugin.rules.{name}"`` imports a part of ``mypy_plugin.rules``)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "import_module" and node.args):
        return None
    first = node.args[0]
    if isinstance(first, ast.JoinedStr) and first.values and isinstance(first.values[0], ast.Constant):
        first = first.values[0]
    text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
    return text.rstrip(".") if text.split(".")[0] == ROOT else None


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}
GRAPH = {name: imported(path) - {name} for name, path in MODULES.items()}
"""What each module imports; a package's ``__init__`` that imports its own modules by a string
(``f"mypy_plugin.rules.{module}"``) does not import itself."""


def part(module: str) -> str:
    """``lib`` for ``mypy_plugin.lib.flow``; ``""`` for the package itself."""
    return module.split(".")[1] if module.count(".") >= 1 else ""


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_part_imports_only_what_lies_below(layer: str) -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if part(module) == layer
        for target in targets
        if part(target) not in ALLOWED[layer]
    )
    assert [module for module in MODULES if part(module) == layer], layer
    assert wrong == []


FAMILIES = sorted({module.split(".")[2] for module in MODULES if part(module) == "rules" and module.count(".") == 3})
"""The rule families, each a package of ``rules/`` with its rules and its own engine."""
SHARED_BY_RULES = {"mypy_plugin.rules", "mypy_plugin.rules.hooked"}
"""The list of rules and its hook table, which every family's rules are listed in."""


def family(module: str) -> str | None:
    """``traced`` for ``mypy_plugin.rules.traced.calls``; None outside a family."""
    parts = module.split(".")
    return parts[2] if len(parts) >= 3 and parts[1] == "rules" and parts[2] in FAMILIES else None


def test_every_rule_lives_in_a_family() -> None:
    loose = sorted(module for module in MODULES if part(module) == "rules" and family(module) is None)
    assert FAMILIES and loose == sorted(SHARED_BY_RULES)


@pytest.mark.parametrize("name", FAMILIES)
def test_a_family_imports_no_other_family(name: str) -> None:
    """A family imports ``lib/``, ``analyses/`` and itself: what two families share lives in
    ``analyses/``, so that a family can be read, changed or removed alone."""
    wrong = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if family(module) == name
        for target in GRAPH[module]
        if part(target) == "rules" and family(target) != name
    )
    assert [module for module in MODULES if family(module) == name], name
    assert wrong == []


def test_no_circle() -> None:
    """No module reaches itself through the modules it imports. The package's ``__init__`` is left
    out as a target: Python runs it before any of its modules, and what they take from it is its
    version and name (its own imports wait inside ``plugin()``, mypy's entry point)."""
    circles = []
    for start in sorted(GRAPH):
        pending, seen = list(GRAPH[start] - {ROOT}), set()
        while pending:
            current = pending.pop()
            if current == start:
                circles.append(start)
                break
            if current not in seen:
                seen.add(current)
                pending += GRAPH.get(current, set()) - {ROOT}
    assert circles == []
