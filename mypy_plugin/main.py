"""The plugin class: hooks chosen from tables keyed by method name."""

from __future__ import annotations

import sys
from typing import Any, Callable

from mypy.options import Options
from mypy.plugin import MethodContext, MethodSigContext, Plugin, ReportConfigContext
from mypy.types import FunctionLike, Type

from mypy_plugin import __version__, fullnames, versions
from mypy_plugin.to_device import check_stream, widen_stream

MINIMUM_MYPY = (1, 11)
"""The oldest mypy release the plugin is tested with."""

SIGNATURE_HOOKS: dict[str, Callable[[MethodSigContext], FunctionLike]] = {
    fullnames.TO_DEVICE: widen_stream,
}
METHOD_HOOKS: dict[str, Callable[[MethodContext], Type]] = {
    fullnames.TO_DEVICE: check_stream,
}


def method_name(fullname: str) -> str:
    """``pkg.Cls.to_device`` and mypy's ``to_device of Cls`` both give ``to_device``."""
    return fullname.partition(" of ")[0].rpartition(".")[2]


class JaxToDevicePlugin(Plugin):
    """Reports ``jax.Array.to_device(..., stream=...)`` under ``jax-to-device-stream``."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self._config_data = {
            "plugin": __version__,
            "jax": versions.installed_jax(),
            "stubs": versions.stubs_target(versions.stub_folder()),
        }

    def get_method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], FunctionLike] | None:
        return SIGNATURE_HOOKS.get(method_name(fullname))

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return METHOD_HOOKS.get(method_name(fullname))

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        return self._config_data


def parse_version(version: str) -> tuple[int, ...]:
    """``1.19.0+dev.abc`` -> ``(1, 19, 0)``; unreadable parts end the tuple."""
    parts: list[int] = []
    for part in version.split("+")[0].split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


def plugin_for_mypy(version: str) -> type[Plugin]:
    """The plugin class, or mypy's no-op base class (with a warning) on a too-old mypy."""
    if parse_version(version) < MINIMUM_MYPY:
        minimum = ".".join(map(str, MINIMUM_MYPY))
        print(
            f"mypy_plugin: mypy {version} is older than {minimum}, the oldest supported "
            f"release; the jax-to-device-stream check is off. Upgrade: pip install 'mypy>={minimum}'",
            file=sys.stderr,
        )
        return Plugin
    return JaxToDevicePlugin
