"""The plugin class: hooks chosen from tables keyed by method name, each behind the guard."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Final

import mypy
from mypy.errorcodes import ErrorCode
from mypy.options import Options
from mypy.plugin import (
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import FunctionLike, Type

from mypy_plugin import __version__, errorcodes, fullnames, item_assignment, messages, to_device
from mypy_plugin.guard import default_return_type, default_signature, guarded
from mypy_plugin.mismatch import MismatchReport
from mypy_plugin.versions import Diagnosis, SearchDirs, mypy_search_dirs

SignatureHook = Callable[[MethodSigContext], FunctionLike]
MethodHook = Callable[[MethodContext], Type]

SIGNATURE_HOOKS: Final[dict[str, SignatureHook]] = {
    to_device.METHOD: guarded(to_device.widen_stream, default_signature),
}
METHOD_HOOKS: Final[dict[str, MethodHook]] = {
    to_device.METHOD: guarded(to_device.check_stream, default_return_type),
    item_assignment.METHOD: guarded(item_assignment.check_item_assignment, default_return_type),
}


def method_name(fullname: str) -> str:
    """``pkg.Cls.to_device`` and mypy's ``to_device of Cls`` both give ``to_device``."""
    return fullname.partition(" of ")[0].rpartition(".")[2]


class JaxStubsPlugin(Plugin):
    """Reports calls that JAX always rejects at run time, each under its own error code.

    When the installed JAX is not the release the stubs describe, it also reports that once
    per run (``mismatch.py``) under ``jax-stubs-mismatch``.
    """

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        search_dirs = mypy_search_dirs(options.python_executable)
        self.diagnosis = diagnose(options, search_dirs)
        self.mismatch = mismatch_report(options, self.diagnosis, search_dirs)
        # Decided once: the hook getters below run for every call mypy checks.
        self._config_data = {"plugin": __version__, **self.diagnosis.config_data()}
        if self.mismatch is not None:
            # One hook for functions and methods alike; a method with a hook of its own runs both.
            self._mismatch_hook = guarded(self.mismatch.signature_hook, default_signature)
            self._mismatch_method_hooks = {
                name: guarded(_chain(self.mismatch.signature_hook, hook), default_signature)
                for name, hook in SIGNATURE_HOOKS.items()
            }

    def get_function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        if self.mismatch is not None and calls_into_jax(fullname):
            return self._mismatch_hook
        return None

    def get_method_signature_hook(self, fullname: str) -> SignatureHook | None:
        name = method_name(fullname)
        if self.mismatch is not None and calls_into_jax(fullname):
            return self._mismatch_method_hooks.get(name, self._mismatch_hook)
        return SIGNATURE_HOOKS.get(name)

    def get_method_hook(self, fullname: str) -> MethodHook | None:
        return METHOD_HOOKS.get(method_name(fullname))

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        if self.mismatch is not None:
            return {**self._config_data, "run": self.mismatch.config_data(ctx.path)}
        return self._config_data


def _chain(first: SignatureHook, then: SignatureHook) -> SignatureHook:
    """``first`` for its effect, then ``then`` for the signature."""

    def both(ctx: MethodSigContext) -> FunctionLike:
        first(ctx)
        return then(ctx)

    return both


def diagnose(options: Options, search_dirs: SearchDirs | None) -> Diagnosis:
    """The installed JAX and stubs where mypy reads packages (``--python-executable`` may put
    them in another environment), with any problem said once on stderr. Never raises: a
    damaged install must not end the user's type check."""
    if search_dirs is None or options.python_executable is None:
        return Diagnosis.nothing_known()
    try:
        diagnosis = Diagnosis.of_environment(search_dirs.all, options.python_executable)
    except Exception as error:  # the guard's purpose, at start-up
        print(messages.PREFIX + messages.internal_problem("start-up (reading installed versions)", error), file=sys.stderr)
        return Diagnosis.nothing_known()
    for problem in diagnosis.environment_problems():
        print(messages.PREFIX + problem, file=sys.stderr)
    return diagnosis


def mismatch_report(options: Options, diagnosis: Diagnosis, search_dirs: SearchDirs | None) -> MismatchReport | None:
    """The mismatch report of this run, or None when the versions agree or the user disabled
    its code. Also said on stderr, where a run that never reaches a call into JAX shows it."""
    if not diagnosis.mismatched or disabled(options, errorcodes.JAX_STUBS_MISMATCH):
        return None
    print(f"{messages.PREFIX}{diagnosis.mismatch_error()}. {diagnosis.mismatch_notes()[-1]}", file=sys.stderr)
    installed = search_dirs.site_packages if search_dirs is not None else []
    return MismatchReport(diagnosis, [*installed, os.path.dirname(mypy.__file__)])


def disabled(options: Options, code: ErrorCode) -> bool:
    """Whether the configuration disables ``code``. mypy resolves the names of plugin codes only
    after it has loaded the plugins, so at start-up the names are read as written."""
    return code in options.disabled_error_codes or code.code in options.disable_error_code


def calls_into_jax(fullname: str) -> bool:
    return fullname.startswith(fullnames.JAX_PACKAGE)
