"""Texts of the plugin's diagnostics, kept in one place so tests and docs can quote them."""

from __future__ import annotations

from pathlib import Path

PREFIX = "mypy_plugin: "
"""What starts every line the plugin prints outside mypy's own report."""


def to_device_stream(receiver: str, stream_type: str) -> str:
    """The targeted error for ``<receiver>.to_device(..., stream=<stream_type>)``."""
    return (
        f'"{receiver}.to_device" does not accept a stream (got {stream_type}): '
        "JAX raises NotImplementedError for any stream that is not None. "
        'Call "to_device(device)" without "stream=" and order the work with the other '
        'library by explicit synchronisation: "jax.block_until_ready(...)" on the JAX side, '
        'the other library\'s own on its side (e.g. "torch.cuda.synchronize()", '
        'a CuPy stream\'s "synchronize()")'
    )


def stubs_mismatch(jax: str, stubs: str) -> str:
    """The installed JAX is another release than the one the stubs were made from."""
    return (
        f"jax {jax} is installed, but the installed jax-stubs describe jax {stubs}, and JAX's "
        f"stubs change with every release. Install the stubs for {jax} "
        f'(pip install "jax-stubs=={jax}.*", or from a checkout: '
        f"python scripts/generate_stubs.py --jax {jax} && pip install .) or jax=={stubs}"
    )


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
