"""``scripts/probe_api.py`` measures what the hand-written size table of ``analyses/sites.py``
says: for each ``jax.numpy`` and ``jax.nn`` function of ``SIZE_PARAMETERS`` that the probe's
samples run, the probe finds the table's parameter raising the table's exception under
``jax.jit``, and a parameter the table leaves out runs traced or is not a size."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import pytest

from mypy_plugin.analyses import sites
from mypy_plugin.lib import fullnames

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import probe_api  # noqa: E402

PROBED = sorted(name for name in sites.SIZE_PARAMETERS if name.startswith((fullnames.JNP, "jax.nn.")))


def function_of(fullname: str) -> Callable[..., Any]:
    module, _, name = fullname.rpartition(".")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


@pytest.mark.parametrize("fullname", PROBED)
def test_the_probe_finds_what_the_size_table_holds(fullname: str) -> None:
    measured = probe_api.probe_function(function_of(fullname), jax)
    if "parameters" not in measured:
        pytest.skip(f"the probe cannot run {fullname}: {measured['unprobed']}")
    exception, places = sites.SIZE_PARAMETERS[fullname]
    named = [name for _, name in places if name in measured["parameters"]]
    assert named, f"the probe gave none of {places} a sample: {measured}"
    for name in named:
        assert measured["parameters"][name] == exception, (name, measured)


def test_the_probe_records_a_traced_axis_and_length() -> None:
    """Two parameters the size table does not hold, each raising traced on every release tested."""
    fft = probe_api.probe_function(function_of("jax.numpy.fft.fft"), jax)["parameters"]
    assert fft["a"] == probe_api.RUNS
    assert fft["n"] != probe_api.RUNS and fft["axis"] != probe_api.RUNS
