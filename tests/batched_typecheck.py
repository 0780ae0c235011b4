"""The YAML type-check cases, checked by one mypy run per configuration.

pytest-mypy-plugins checks each case with a mypy run of its own, and each run loads JAX's
modules from the cache: with some 350 cases that is most of the suite's time, in every cell of
the JAX x mypy matrix too. Here the cases that bring nothing but ``main`` (no other files, no
environment variables, the cache on) are grouped by their mypy configuration. The first case of
a group to run writes every case of the group that this session runs as a module of its own
(``batched_case_<n>.py``) into one folder and runs mypy once over them, through
pytest-mypy-plugins' own executor, options and configuration file. Each case then matches its
own lines, named back to ``main``, with pytest-mypy-plugins' own matcher.

A case that does not match in its batch runs alone, as pytest-mypy-plugins runs it, and that
verdict stands, with its usual report. A group whose run says anything not tied to one case (on
stderr, about another file, mypy's once-per-run hints, the plugin's once-per-run mismatch
report, a fatal error) runs case by case.
"""

from __future__ import annotations

import functools
import re
import shutil
import tempfile
from collections.abc import Hashable
from pathlib import Path

import pytest
from pytest_mypy_plugins import utils
from pytest_mypy_plugins.item import MypyExecutor, OutputChecker, ReturnCodes, Runner, YamlTestItem
from pytest_mypy_plugins.utils import TypecheckAssertionError

MODULE = "batched_case_{index:04d}"
LINE = re.compile(r"^(batched_case_(\d{4}))\.py:(.*)$")
ONCE_PER_RUN = ("running_mypy.html", "Hint: ", "jax-stubs-mismatch")
"""What mypy or the plugin says once in a run, in whichever module comes first."""


class Batch:
    """One mypy run over the cases of one configuration: each case's output lines, or None
    where the run cannot be split by case (the cases then run alone)."""

    def __init__(self, items: list[YamlTestItem], folder: Path) -> None:
        self.folder = folder
        self.index = {id(item): index for index, item in enumerate(items)}
        self.lines: dict[int, list[str]] | None = self.run(items)

    def run(self, items: list[YamlTestItem]) -> dict[int, list[str]] | None:
        first = items[0]
        names = []
        for index, item in enumerate(items):
            names.append(f"{MODULE.format(index=index)}.py")
            (self.folder / names[-1]).write_text(item.files[0].content)
        with utils.cd(self.folder):
            runner = Runner(
                files=[],
                config=first.config,
                main_file=self.folder / names[0],
                config_file=first.prepare_config_file(self.folder),
                disable_cache=False,
                mypy_executor=executor(first, self.folder),
                output_checker=OutputChecker(False, self.folder, []),
                no_silence_site_packages=first.no_silence_site_packages,
                incremental_cache_dir=first.incremental_cache_dir,
            )
            returncode, (stdout, stderr) = runner.mypy_executor.execute([*runner._prepare_mypy_cmd_options(), *names])
        if returncode == ReturnCodes.FATAL_ERROR or stderr.strip() or any(sign in stdout for sign in ONCE_PER_RUN):
            return None
        lines: dict[int, list[str]] = {index: [] for index in range(len(items))}
        for line in stdout.splitlines():
            found = LINE.match(line)
            if found is None:
                return None
            module, index, rest = found.group(1), int(found.group(2)), found.group(3)
            lines[index].append(f"{self.folder / 'main.py'}:" + re.sub(rf"\b{module}\b", "main", rest))
        return lines

    def check(self, item: YamlTestItem) -> bool:
        """Whether ``item`` matches its lines of the batch (False when it cannot be told)."""
        if self.lines is None:
            return False
        lines = self.lines[self.index[id(item)]]
        try:
            OutputChecker(item.expect_fail, self.folder, item.expected_output).check(
                ReturnCodes.FAIL if lines else ReturnCodes.SUCCESS, "\n".join(lines), ""
            )
        except TypecheckAssertionError:
            return False
        return True


def executor(item: YamlTestItem, folder: Path) -> MypyExecutor:
    """The executor pytest-mypy-plugins would make for ``item`` in ``folder``."""
    mypy = shutil.which("mypy")
    assert mypy is not None, "mypy executable is not found"
    return MypyExecutor(
        same_process=item.same_process,
        rootdir=getattr(getattr(item.parent, "config", None), "rootdir", None),
        execution_path=folder,
        environment_variables=dict(item.environment_variables),
        mypy_executable=mypy,
        modify_pythonpath=item.modify_pythonpath,
    )


def group_of(item: YamlTestItem) -> Hashable | None:
    """The batch a case can join, by its configuration; None for a case that runs alone."""
    if len(item.files) != 1 or item.environment_variables or item.disable_cache:
        return None
    return item.additional_mypy_config


class Batches:
    """The session's batches, each made when its first case runs, and how many cases ran
    alone (for the summary)."""

    def __init__(self) -> None:
        self.made: dict[Hashable, Batch] = {}
        self.folder: Path | None = None
        self.alone: list[str] = []

    def of(self, item: YamlTestItem) -> Batch:
        group = group_of(item)
        if group not in self.made:
            if self.folder is None:
                self.folder = Path(tempfile.mkdtemp(prefix="batched-", dir=item.root_directory))
            members = [other for other in item.session.items if isinstance(other, YamlTestItem) and group_of(other) == group]
            folder = self.folder / f"group_{len(self.made)}"
            folder.mkdir()
            self.made[group] = Batch(members, folder)
        return self.made[group]

    def clean(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


BATCHES = Batches()


def run(item: YamlTestItem) -> None:
    """The case's verdict from its batch if it matches there, else from a run of its own."""
    if not BATCHES.of(item).check(item):
        BATCHES.alone.append(item.name)
        YamlTestItem.runtest(item)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, YamlTestItem) and group_of(item) is not None:
            item.runtest = functools.partial(run, item)  # type: ignore[method-assign]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if BATCHES.made:
        batched = sum(len(batch.index) for batch in BATCHES.made.values())
        terminalreporter.write_line(
            f"type-check cases: {batched} in {len(BATCHES.made)} mypy runs, {len(BATCHES.alone)} of them again alone"
            + (f" ({', '.join(BATCHES.alone[:5])}{', ...' if len(BATCHES.alone) > 5 else ''})" if BATCHES.alone else "")
        )


def pytest_sessionfinish() -> None:
    BATCHES.clean()
