"""Report, once per run, that the installed JAX is not the release the stubs describe.

An unpinned install must fail CI on its first run, whatever the code looks like. Three things
make that hold:

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
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from typing import Union

from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface, FunctionSigContext, MethodSigContext
from mypy.types import FunctionLike

from mypy_plugin import checked_module, fullnames, reports
from mypy_plugin.versions import Diagnosis

SignatureContext = Union[FunctionSigContext, MethodSigContext]
TOP_OF_MODULE = Context(line=1, column=0)


class MismatchReport:
    """The mismatch error of one process: where it is carried, and when it may be made."""

    def __init__(self, diagnosis: Diagnosis, installed_folders: Sequence[str]) -> None:
        self.diagnosis = diagnosis
        self.carrier: str | None = None
        self.installed_folders = tuple(os.path.join(os.path.abspath(f), "") for f in installed_folders if f)
        self.run = uuid.uuid4().hex

    def signature_hook(self, ctx: SignatureContext) -> FunctionLike:
        """A call into JAX: report here if this is the place; the signature stays mypy's."""
        api = ctx.api
        if shows_errors_now(api):
            if self.carrier is None:
                self.carrier = api.path
            if api.path == self.carrier:
                reports.stubs_mismatch(api, first_jax_import(api), self.diagnosis)
        return ctx.default_signature

    def config_data(self, path: str) -> str | None:
        """A value that changes every run for the user's modules, so that they are checked
        again; None for installed packages, whose cache stays good."""
        absolute = os.path.abspath(path)
        return None if absolute.startswith(self.installed_folders) else self.run


def shows_errors_now(api: CheckerPluginInterface) -> bool:
    """Whether an error reported now is kept: not in a module whose errors mypy hides, and
    under no error watcher that discards what it catches (an overload item mypy only tries).
    Watchers that keep what they catch and replay it (mypy 2 checks most expressions so) are
    fine: every try of this call reports the same error, so no try is preferred for it.

    The watchers are mypy's internals, read defensively: one that cannot be read counts as
    discarding, and a mypy without the list falls back on its own notion of a silent context."""
    if api.msg.prefer_simple_messages():
        return False
    get_watchers = getattr(api.msg.errors, "get_watchers", None)
    if get_watchers is None:
        return True
    return not any(discards(watcher) for watcher in get_watchers())


def discards(watcher: object) -> bool:
    return getattr(watcher, "_filter", True) is not False and getattr(watcher, "_filtered", None) is None


def first_jax_import(api: CheckerPluginInterface) -> Context:
    """The module's first import of JAX, or its first line: the same place for every report
    from one module."""
    found = checked_module.imports(api, fullnames.JAX)
    return found[0] if found else TOP_OF_MODULE
