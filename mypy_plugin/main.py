"""The plugin class: hooks chosen from tables keyed by method name, each behind the guard."""

from __future__ import annotations

import sys
from typing import Any, Callable

from mypy.options import Options
from mypy.plugin import FunctionContext, MethodContext, MethodSigContext, Plugin, ReportConfigContext
from mypy.types import FunctionLike, Type

from mypy_plugin import __version__, fullnames, messages, reports
from mypy_plugin.guard import default_return_type, default_signature, guarded
from mypy_plugin.to_device import check_stream, widen_stream
from mypy_plugin.versions import Diagnosis, mypy_search_path

SIGNATURE_HOOKS: dict[str, Callable[[MethodSigContext], FunctionLike]] = {
    fullnames.TO_DEVICE: guarded(widen_stream, default_signature),
}
METHOD_HOOKS: dict[str, Callable[[MethodContext], Type]] = {
    fullnames.TO_DEVICE: guarded(check_stream, default_return_type),
}


def method_name(fullname: str) -> str:
    """``pkg.Cls.to_device`` and mypy's ``to_device of Cls`` both give ``to_device``."""
    return fullname.partition(" of ")[0].rpartition(".")[2]


class JaxToDevicePlugin(Plugin):
    """Reports ``jax.Array.to_device(..., stream=...)`` under ``jax-to-device-stream``.

    When the installed JAX is not the release the stubs describe, it also reports that once
    per run, at the first call into JAX, under ``jax-stubs-mismatch``.
    """

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.diagnosis = diagnose(options)
        self._config_data = {"plugin": __version__, **self.diagnosis.config_data()}
        # Decided once: the hook getters below run for every call mypy checks.
        self._mismatch = self.diagnosis.mismatched
        self._mismatch_reported = False
        self._mismatch_function_hook = guarded(self._with_mismatch_report(None), default_return_type)
        self._mismatch_method_hooks = {
            name: guarded(self._with_mismatch_report(hook), default_return_type)
            for name, hook in METHOD_HOOKS.items()
        }

    def get_method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], FunctionLike] | None:
        return SIGNATURE_HOOKS.get(method_name(fullname))

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        name = method_name(fullname)
        if self._mismatch and calls_into_jax(fullname):
            return self._mismatch_method_hooks.get(name, self._mismatch_function_hook)
        return METHOD_HOOKS.get(name)

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if self._mismatch and calls_into_jax(fullname):
            return self._mismatch_function_hook
        return None

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        return self._config_data

    def _with_mismatch_report(self, hook: Callable[[Any], Type] | None) -> Callable[[Any], Type]:
        """``hook``, preceded by the mismatch error if this run has not reported it yet."""

        def report_then_run(ctx: FunctionContext | MethodContext) -> Type:
            if self._mismatch and not self._mismatch_reported and reports_here(ctx.api):
                self._mismatch_reported = True
                assert self.diagnosis.jax is not None and self.diagnosis.stubs is not None
                reports.stubs_mismatch(ctx.api, ctx.context, self.diagnosis.jax, self.diagnosis.stubs)
            return hook(ctx) if hook is not None else ctx.default_return_type

        return report_then_run


def diagnose(options: Options) -> Diagnosis:
    """The installed JAX and stubs where mypy reads packages (``--python-executable`` may put
    them in another environment), with any problem said once on stderr. Never raises: a
    damaged install must not end the user's type check."""
    search_path = mypy_search_path(options.python_executable)
    if search_path is None:
        return Diagnosis.nothing_known()
    try:
        diagnosis = Diagnosis.of_environment(search_path)
    except Exception as error:  # the guard's purpose, at start-up
        print(messages.PREFIX + messages.internal_problem("start-up (reading installed versions)", error), file=sys.stderr)
        return Diagnosis.nothing_known()
    for problem in diagnosis.environment_problems():
        print(messages.PREFIX + problem, file=sys.stderr)
    return diagnosis


def calls_into_jax(fullname: str) -> bool:
    return fullname.startswith(fullnames.JAX_PACKAGE)


def reports_here(api: object) -> bool:
    """Whether an error reported now would be shown: not inside JAX's or another installed
    library's own code, whose errors mypy silences. Read defensively: when mypy's internals
    do not say, assume it would."""
    errors = getattr(getattr(api, "msg", None), "errors", None)
    return getattr(errors, "file", None) not in getattr(errors, "ignored_files", ())
