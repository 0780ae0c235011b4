"""``jax-stubs-mismatch``: the installed JAX is not the release the stubs describe, or another
package's files are in the stub folder (checkers read them, not these stubs), reported once per
run.

An unpinned install, or a package that installs into the same folder (``pyrefly-jax-stubs``),
must fail CI on its first run, whatever the code looks like. Three things make that hold:

- **Only where mypy keeps it.** mypy tries some calls and throws the errors of the tries away
  (each item of an overload such as ``jax.jit``); an error added there is lost, and it would
  change mypy's choice of item. So the report waits for a call into JAX checked under no
  watcher that discards errors. It is made from the *signature* hooks, which mypy runs once per
  call expression, before it tries any overload item.
- **Once.** The first module where that happens carries the report, at its first
  ``import jax`` (else line 1); every later call into JAX in that module reports it at the same
  place, which mypy shows once (it drops an identical error on the same line). So the report
  survives mypy's daemon re-checking any part of that module.
- **Every run.** While the versions differ, ``report_config_data`` gives the user's own modules
  (not installed packages) a value that changes with every run, so mypy re-checks them instead
  of replaying an old report from its cache beside a new one elsewhere.

The code is registered on every run (mypy rejects a disabled code it does not know); the
report itself is made only when the versions differ.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface, FunctionSigContext, MethodSigContext
from mypy.types import FunctionLike

from mypy_plugin.lib import checked_module, errorcodes, fullnames, mypy_internals, reporting

CODE: Final = errorcodes.STUBS_MISMATCH

SignatureContext = FunctionSigContext | MethodSigContext
TOP_OF_MODULE: Final = Context(line=1, column=0)


class MismatchReport:
    """The install's error of one process (``Diagnosis.run_failure``: its text and notes):
    where it is carried, and when it may be made."""

    def __init__(self, error: str, notes: list[str], installed_folders: Sequence[str]) -> None:
        import uuid

        self.error, self.notes = error, notes
        self.carrier: str | None = None
        self.installed_folders = tuple(os.path.join(os.path.abspath(f), "") for f in installed_folders if f)
        self.run = uuid.uuid4().hex

    def signature_hook(self, ctx: SignatureContext) -> FunctionLike:
        """A call into JAX: report here if this is the place; the signature stays mypy's."""
        api = ctx.api
        if mypy_internals.errors_are_kept(api):
            if self.carrier is None:
                self.carrier = api.path
            if api.path == self.carrier:
                report(api, first_jax_import(api), self.error, self.notes)
        return ctx.default_signature

    def config_data(self, path: str) -> str | None:
        """A value that changes every run for the user's modules, so that they are checked
        again; None for installed packages, whose cache stays good."""
        absolute = os.path.abspath(path)
        return None if absolute.startswith(self.installed_folders) else self.run


def calls_into_jax(fullname: str) -> bool:
    """Whether a call of ``fullname`` (a function or ``Class.method``) is a call into JAX."""
    return fullname.startswith(fullnames.JAX_PACKAGE)


def first_jax_import(api: CheckerPluginInterface) -> Context:
    """The module's first import of JAX, or its first line: the same place for every report
    from one module."""
    found = checked_module.imports(api, fullnames.JAX)
    return found[0] if found else TOP_OF_MODULE


def report(api: CheckerPluginInterface, context: Context, error: str, notes: list[str]) -> None:
    """The installed JAX is not the release the installed stubs describe, or checkers read
    another package's stubs."""
    reporting.error_with_notes(api, context, CODE, error, notes)
