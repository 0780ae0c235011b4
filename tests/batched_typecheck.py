"""The YAML type-check cases, checked by one mypy run per configuration.

pytest-mypy-plugins checks each case with a mypy run of its own, and each run loads JAX's
modules from the cache: with some 350 cases that is most of the suite's time, in every cell of
the JAX x mypy matrix too. Here the cases that bring nothing but ``main`` (no other files, no
environment variables, the cache on) are grouped by the part of their mypy configuration that
holds for a whole run; what mypy also takes per module (``PER_MODULE``: ``check_untyped_defs``,
``disable_error_code``, ...) becomes the case's own ``[mypy-batched_case_<n>]`` section, as a
user's configuration sets it for some modules, so that a new value of it costs no run of its own
(each run loads JAX's modules again). The first case of a group to run writes every case of the
group that this session runs as a module of its own (``batched_case_<n>.py``) into one folder
and runs mypy once over them, through pytest-mypy-plugins' own executor and options, with the
suite's configuration file and the cases' sections. Each case then matches its own lines, named
back to ``main``, with pytest-mypy-plugins' own matcher.

Each run also checks a module of misuses that only the plugin reports (``SENTINEL``), under two
codes, so that a configuration that disables one still shows the other: where the plugin should
be loaded and none is reported, every case of the group fails, as its outcome proves nothing.

A case that does not match in its batch runs alone, as pytest-mypy-plugins runs it, and that
verdict stands, with its usual report. A group whose run says anything not tied to one case (on
stderr, about another file, mypy's once-per-run hints, the plugin's once-per-run mismatch
report, a fatal error) runs case by case.
"""

from __future__ import annotations

import configparser
import functools
import re
import shutil
import tempfile
from collections.abc import Hashable
from pathlib import Path

import pytest
from pytest_mypy_plugins import configs, utils
from pytest_mypy_plugins.item import MypyExecutor, OutputChecker, ReturnCodes, Runner, YamlTestItem
from pytest_mypy_plugins.utils import TypecheckAssertionError

MODULE = "batched_case_{index:04d}"
LINE = re.compile(r"^(batched_case_(\d{4}))\.py:(.*)$")
ONCE_PER_RUN = ("running_mypy.html", "Hint: ", "jax-stubs-mismatch")
"""What mypy or the plugin says once in a run, in whichever module comes first."""
SENTINEL_MODULE = "batched_sentinel"
SENTINEL = """\
import jax
import jax.numpy as jnp

x = jnp.zeros(3)
x.to_device(jax.devices()[0], stream=1)
x[0] = 1.0
"""
SENTINEL_CODES = ("[jax-to-device-stream]", "[jax-immutable-array]")
"""What the plugin reports in ``SENTINEL`` (the stubs alone report neither code)."""
PER_MODULE = frozenset({"check_untyped_defs", "warn_unused_ignores", "disable_error_code", "enable_error_code"})
"""Options of a case's configuration that mypy takes in a per-module section (its "Per-module
and global options"), which the batch gives the case's module alone."""


class Batch:
    """One mypy run over the cases of one configuration: each case's output lines, or None
    where the run cannot be split by case (the cases then run alone)."""

    def __init__(self, items: list[YamlTestItem], folder: Path) -> None:
        self.folder = folder
        self.index = {id(item): index for index, item in enumerate(items)}
        self.plugin_expected = False
        """Whether the group's configuration (the suite's and the cases') names the plugin."""
        self.plugin_loaded = False
        """Whether the run reported what only the plugin reports in ``SENTINEL``."""
        self.lines: dict[int, list[str]] | None = self.run(items)

    def run(self, items: list[YamlTestItem]) -> dict[int, list[str]] | None:
        first = items[0]
        names = []
        for index, item in enumerate(items):
            names.append(f"{MODULE.format(index=index)}.py")
            (self.folder / names[-1]).write_text(item.files[0].content)
        (self.folder / f"{SENTINEL_MODULE}.py").write_text(SENTINEL)
        names.append(f"{SENTINEL_MODULE}.py")
        config_file = configs.join_ini_configs(first.base_ini_fpath, run_wide(first.additional_mypy_config), self.folder)
        if config_file is not None:
            with open(config_file, "a") as written:
                for index, item in enumerate(items):
                    section = per_module(item.additional_mypy_config)
                    if section:
                        written.write(f"[mypy-{MODULE.format(index=index)}]\n" + "".join(f"{k} = {v}\n" for k, v in section))
        self.plugin_expected = config_file is not None and "mypy_plugin" in configured_plugins(Path(config_file))
        with utils.cd(self.folder):
            runner = Runner(
                files=[],
                config=first.config,
                main_file=self.folder / names[0],
                config_file=config_file,
                disable_cache=False,
                mypy_executor=executor(first, self.folder),
                output_checker=OutputChecker(False, self.folder, []),
                no_silence_site_packages=first.no_silence_site_packages,
                incremental_cache_dir=first.incremental_cache_dir,
            )
            returncode, (stdout, stderr) = runner.mypy_executor.execute([*runner._prepare_mypy_cmd_options(), *names])
        sentinel = [line for line in stdout.splitlines() if line.startswith(f"{SENTINEL_MODULE}.py:")]
        self.plugin_loaded = any(line.endswith(SENTINEL_CODES) for line in sentinel)
        if returncode == ReturnCodes.FATAL_ERROR or stderr.strip() or any(sign in stdout for sign in ONCE_PER_RUN):
            return None
        lines: dict[int, list[str]] = {index: [] for index in range(len(items))}
        for line in stdout.splitlines():
            if line in sentinel:
                continue
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


def configured_plugins(config_file: Path) -> str:
    """The ``plugins`` option of a mypy configuration file's ``[mypy]`` section."""
    parser = configparser.ConfigParser()
    parser.read(config_file)
    return parser.get("mypy", "plugins", fallback="")


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


def options_of(config: str) -> list[tuple[str, str]] | None:
    """A case's ``mypy_config`` as its options, in order; None where it is more than options of
    ``[mypy]`` (a section of its own)."""
    parser = configparser.ConfigParser()
    try:
        parser.read_string(config if "[mypy]" in config else f"[mypy]\n{config}")
    except configparser.Error:
        return None
    if parser.sections() != ["mypy"]:
        return None
    return list(parser.items("mypy"))


def per_module(config: str) -> list[tuple[str, str]]:
    """The options of ``config`` that go into the case's own section."""
    options = options_of(config)
    return [] if options is None else [(key, value) for key, value in options if key in PER_MODULE]


def run_wide(config: str) -> str:
    """``config`` without what goes into the case's own section: what holds for the whole run."""
    options = options_of(config)
    return config if options is None else "".join(f"{key} = {value}\n" for key, value in options if key not in PER_MODULE)


def group_of(item: YamlTestItem) -> Hashable | None:
    """The batch a case can join, by what of its configuration holds for the whole run (the
    suite's ``mypy.ini`` and the case's options that are not ``PER_MODULE``); None for a case
    that runs alone."""
    if len(item.files) != 1 or item.environment_variables or item.disable_cache or item.base_pyproject_toml_fpath:
        return None
    return run_wide(item.additional_mypy_config)


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
    """The case's verdict from its batch if it matches there, else from a run of its own; every
    case fails where the plugin should be loaded and was not (what it expects could then come
    from mypy and the stubs alone, or its silence from a plugin that never ran)."""
    batch = BATCHES.of(item)
    if batch.plugin_expected and not batch.plugin_loaded:
        pytest.fail(f"the plugin was not loaded in the mypy run of this case's configuration (nothing under {' or '.join(SENTINEL_CODES)} "
                    f"in {SENTINEL_MODULE}.py), so the case's outcome proves nothing", pytrace=False)  # fmt: skip
    if not batch.check(item):
        BATCHES.alone.append(item.name)
        YamlTestItem.runtest(item)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, YamlTestItem) and group_of(item) is not None:
            item.runtest = functools.partial(run, item)  # type: ignore[method-assign]


COLLECTED_FILES: set[Path] = set()
"""The YAML files of cases this session collected."""


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A YAML file collected (pytest also asks about the files beside the ones it was given)."""
    path = Path(report.fspath)
    if report.passed and path.suffix == ".yml" and "::" not in report.nodeid:
        COLLECTED_FILES.add(path)


def not_collected() -> dict[tuple[str, str], int]:
    """The cases pytest-mypy-plugins leaves out without a word (their ``skip`` is true here: a
    library or a JAX release this environment lacks), by file and reason."""
    if not COLLECTED_FILES:
        return {}
    from cases import load_cases

    found: dict[tuple[str, str], int] = {}
    for path in sorted(COLLECTED_FILES):
        for case in load_cases(paths=[path]):
            if case.skipped:
                key = (f"tests/typecheck/{path.name}", case.skip_reason)
                found[key] = found.get(key, 0) + 1
    return found


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for (file, reason), count in not_collected().items():
        terminalreporter.write_line(f"SKIPPED [{count}] {file}: {reason}")
    if BATCHES.made:
        batched = sum(len(batch.index) for batch in BATCHES.made.values())
        terminalreporter.write_line(
            f"type-check cases: {batched} in {len(BATCHES.made)} mypy runs, {len(BATCHES.alone)} of them again alone"
            + (f" ({', '.join(BATCHES.alone[:5])}{', ...' if len(BATCHES.alone) > 5 else ''})" if BATCHES.alone else "")
        )


def pytest_sessionfinish() -> None:
    BATCHES.clean()
