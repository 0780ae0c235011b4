"""What the module being checked imports, read from its syntax tree.

The plugin interface does not hand hooks the module's tree; ``mypy_internals.module_tree``
reads it. Without it, callers get no imports and fall back on what holds for any module.
"""

from __future__ import annotations

from mypy.nodes import ImportBase
from mypy.plugin import CheckerPluginInterface

from mypy_plugin.lib import mypy_internals


def imports(api: CheckerPluginInterface, package: str) -> list[ImportBase]:
    """The module's imports of ``package`` or its submodules, in source order (also those
    inside functions); empty when the tree cannot be read."""
    tree = mypy_internals.module_tree(api)
    if tree is None:
        return []
    found = [node for node in tree.imports if isinstance(node, ImportBase) and imports_package(node, package)]
    return sorted(found, key=lambda node: (node.line, node.column))


def imports_package(node: ImportBase, package: str) -> bool:
    """``import jax.numpy``, ``from jax import numpy`` and ``from jax.numpy import zeros`` all
    import ``jax.numpy`` (``from X import Y`` may import the module ``X.Y``)."""
    module = getattr(node, "id", "")
    names = [name for name, _ in getattr(node, "ids", [])]
    names += [module] + [f"{module}.{name}" for name, _ in getattr(node, "names", [])]
    return any(name == package or name.startswith(package + ".") for name in names if name)
