"""Texts of the plugin's diagnostics, kept in one place so tests and docs can quote them."""

from __future__ import annotations

from pathlib import Path

PREFIX = "mypy_plugin: "
"""What starts every line the plugin prints outside mypy's own report."""


def stubs_mismatch(jax: str, stubs: str) -> str:
    """The installed JAX is another release than the one the stubs were made from."""
    return f"jax {jax} is installed, but the installed jax-stubs describe jax {stubs}"


def stubs_mismatch_fix(jax: str, stubs: str) -> list[str]:
    """What to do about a mismatch, one line each: why it matters, then the fix."""
    return [
        "JAX's stubs change with every release: other diagnostics about JAX are unreliable until the versions agree",
        f'Install the stubs for jax {jax}: pip install "jax-stubs=={jax}.*" (or pin jax=={stubs})',
    ]


def jax_not_installed(stubs: str) -> str:
    return (
        f"jax is not installed in the environment mypy reads packages from; the jax-stubs describe jax "
        f"{stubs}: pip install jax=={stubs}"
    )


def stubs_not_installed() -> str:
    return (
        "no jax-stubs folder is installed in the environment mypy reads packages from (an editable install "
        "has none): pip install the jax-stubs wheel, not -e"
    )


def stub_files_missing(folder: Path, missing: list[str]) -> str:
    return (
        f"the stub folder {folder} lacks {', '.join(missing)}: reinstall it "
        "(pip install --force-reinstall --no-deps jax-stubs)"
    )


def unsupported_mypy(version: str, minimum: str) -> str:
    return (
        f"mypy {version} is older than {minimum}, the oldest release this plugin supports; "
        f"the jax-to-device-stream check is off: pip install 'mypy>={minimum}'"
    )


def internal_problem(where: str, error: Exception) -> str:
    return (
        f"skipped its check at {where} after an internal error "
        f"({type(error).__name__}: {error}); mypy's own result stands there. Please report this"
    )
