"""Texts about the installation that the plugin and the check command print, kept in one place
so tests and docs can quote them. Every command in them runs as printed for a user who has only
the installed wheel."""

from __future__ import annotations

import shlex
from pathlib import Path

WHY_VERSIONS_MATTER = "JAX's stubs change with every release: other diagnostics about JAX are unreliable until the versions agree"


def shell_word(text: str) -> str:
    """``text`` as one word of a POSIX shell command (a path with spaces stays one argument)."""
    return shlex.quote(text)


def stubs_mismatch(jax: str, stubs: str) -> str:
    """The installed JAX is another release than the one the stubs were made from."""
    return f"jax {jax} is installed, but the installed jax-stubs describe jax {stubs}"


def install_matching_stubs(jax: str, command: str) -> str:
    return f"Install the stubs for jax {jax}: {command}"


def jax_too_old(jax: str, oldest: str) -> str:
    return (
        f"jax {jax} predates Array.to_device (jax {oldest}), the first release these stubs describe: "
        f"upgrade jax to {oldest} or later, or uninstall jax-stubs"
    )


def no_stubs_yet(jax: str, newest: str, stubs: str, command: str) -> str:
    return (
        f"no jax-stubs release describes jax {jax} yet (the newest describes jax {newest}): keep the stubs for jax {stubs}, "
        f"which hold where JAX has not changed since, or install the newest JAX that has stubs: {command}"
    )


def no_stubs_for(jax: str, stubs: str, command: str) -> str:
    return (
        f"jax {jax} is not among the releases this package knows (withdrawn from the index, or published after it), "
        f"so no jax-stubs describe it: keep the stubs for jax {stubs}, or install the nearest release that has stubs: {command}"
    )


def jax_not_a_release(jax: str) -> str:
    return (
        f"jax {jax} is not a release, and stubs are made for releases only: use the stubs of the "
        'release it comes closest to and accept the risk (disable_error_code = ["jax-stubs-mismatch"]), '
        "or install a JAX release"
    )


def jax_not_installed(stubs: str, command: str) -> str:
    return f"jax is not installed in the environment mypy reads packages from; the jax-stubs describe jax {stubs}: {command}"


def stubs_not_installed(command: str) -> str:
    return (
        "the jax-stubs stub folder is not installed in the environment mypy reads packages from, so "
        f"checkers read JAX's own stubs there: {command}"
    )


def stub_files_missing(folder: Path, missing: list[str], command: str) -> str:
    return f"the stub folder {folder} lacks {', '.join(missing)}: reinstall it: {command}"


def stub_folder_shared(owners: dict[str, list[str]], files: list[str], uninstall: str, reinstall: str) -> str:
    sharing = ", ".join(f"{owner} ({', '.join(listed)})" for owner, listed in owners.items())
    return (
        f"another package installed files into the jax-stubs folder, which every checker reads as these stubs: {sharing}; "
        f"checkers read whichever file was installed last, and uninstalling either package deletes the other's. "
        f"This package's stubs serve mypy, pyright, basedpyright, pyrefly and ty: {uninstall}, then {reinstall}"
    )


WHY_FOREIGN_STUBS_MATTER = (
    "Every checker reads whichever file was installed last: diagnostics about JAX are unreliable until the folder holds these stubs alone"
)


def stub_folder_shared_error(owners: list[str]) -> str:
    return f"another package installed files into the jax-stubs folder: {', '.join(owners)}"


def stub_files_changed_error(files: list[str]) -> str:
    return f"files of the jax-stubs folder differ from those this package installed: {', '.join(files)}"


def uninstall_sharer(owner: str, command: str) -> str:
    return f"Uninstall {owner}: {command}"


def delete_unowned(paths: list[str]) -> str:
    return f"Delete what no package installed there (a reinstall leaves it): {' '.join(shell_word(path) for path in paths)}"


def reinstall_stubs(command: str) -> str:
    return f"Reinstall these stubs: {command}"


def stub_files_changed(files: list[str], reinstall: str) -> str:
    return f"files of the jax-stubs folder differ from those this package installed ({', '.join(files)}): reinstall it: {reinstall}"


def unsupported_mypy(version: str, minimum: str, command: str) -> str:
    return (
        f"mypy {version} is older than {minimum}, the oldest release this plugin supports; "
        f"its checks are off (the stubs still work): {command}"
    )


def shadowed_plugin(found: Path, how: str) -> str:
    return (
        f'{found} is not this package\'s mypy_plugin, yet {how} imports it for plugins = ["mypy_plugin"]: '
        "the JAX checks are off there. Rename it, or run mypy from another folder"
    )


def plugin_source_of_this_release(found: Path, how: str, release: str) -> str:
    return (
        f"{found} is this package's own source (jax-stubs {release}), which {how} imports for "
        'plugins = ["mypy_plugin"] instead of the installed copy: the same checks run, from that folder'
    )
