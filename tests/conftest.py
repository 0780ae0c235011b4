"""Refuse to test anything but the built wheel, installed and identical to this checkout.

Type checkers read stubs only from a real install (an editable install hides ``jax-stubs``),
so the suite runs against site-packages. A stale install would test old code: compare it.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

pytest_plugins = ["batched_typecheck"]  # the YAML cases, one mypy run per configuration

REPO = Path(__file__).resolve().parent.parent
SOURCES = {"mypy_plugin/docs/rules": REPO / "docs" / "rules", "mypy_plugin": REPO / "mypy_plugin", "jax-stubs": REPO / "jax_stubs"}
"""Where each folder of the wheel comes from in the checkout, the most specific first."""


def installed_differences() -> list[str]:
    """What differs between the installed distribution and this checkout's sources."""
    try:
        dist = metadata.distribution("jax-stubs")
    except metadata.PackageNotFoundError:
        return ["the jax-stubs distribution is not installed"]
    installed: dict[tuple[str, Path], Path] = {}
    for file in dist.files or []:
        top = next((top for top in SOURCES if file.as_posix().startswith(top + "/")), None)
        if top is not None and file.suffix != ".pyc":
            installed[(top, Path(file.as_posix()).relative_to(top))] = Path(str(dist.locate_file(file)))
    problems = []
    for top, source in SOURCES.items():
        for path in sorted(p for p in source.rglob("*") if p.is_file() and p.suffix != ".pyc"):
            copy = installed.pop((top, path.relative_to(source)), None)
            if copy is None:
                problems.append(f"{top}/{path.relative_to(source)} is not installed")
            elif copy.read_bytes() != path.read_bytes():
                problems.append(f"{top}/{path.relative_to(source)} differs from the installed copy")
    problems += [f"{top}/{rel} is installed but not in the checkout" for top, rel in installed]
    return problems


BASE_MYPY_CONFIG = REPO / "tests" / "typecheck" / "mypy.ini"
"""What every YAML case is checked with, its own ``mypy_config`` added (the plugin on)."""


def pytest_configure(config: pytest.Config) -> None:
    if not config.option.mypy_ini_file and not config.option.mypy_pyproject_toml_file:
        config.option.mypy_ini_file = str(BASE_MYPY_CONFIG)


def pytest_sessionstart(session: pytest.Session) -> None:
    problems = installed_differences()
    if problems:
        raise pytest.UsageError(
            "the installed jax-stubs wheel does not match this checkout ("
            + "; ".join(problems[:3])
            + "): run the suite with scripts/test, which builds and installs the wheel"
        )
