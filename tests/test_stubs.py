"""The committed stubs are exactly what the generator makes, and differ from JAX in one line."""

from __future__ import annotations

import io
import re
import subprocess
import zipfile
from contextlib import redirect_stderr
from pathlib import Path

import generate_stubs as generator
import pytest
from mypy_runs import PYTHON

REPO = Path(__file__).resolve().parent.parent
STUBS = REPO / "jax_stubs"
TARGET = (STUBS / "JAX_VERSION").read_text().strip()
PYPROJECT_REQUIRES_PYTHON = re.findall(r'(?m)^requires-python = "([^"]*)"', (REPO / "pyproject.toml").read_text())[0]


@pytest.fixture(scope="session")
def jax_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the JAX release the committed stubs target, fetched once by pip."""
    return generator.download_wheel(TARGET, tmp_path_factory.mktemp("wheel"))


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_committed_stubs_are_regenerated_identically(jax_wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "jax_stubs"
    assert generator.main(["--jax", TARGET, "--wheel", str(jax_wheel), "--out", str(out)]) == 0
    assert tree(out) == tree(STUBS)


def test_only_the_stream_line_differs_from_jax(jax_wheel: Path) -> None:
    own = generator.jax_stub_files(jax_wheel)
    ours = {str(p.relative_to(STUBS)): p.read_text() for p in STUBS.rglob("*.pyi")}
    assert generator.unexpected_differences(own, ours) == []


def test_the_difference_check_catches_any_other_change(jax_wheel: Path) -> None:
    own = generator.jax_stub_files(jax_wheel)
    ours = {str(p.relative_to(STUBS)): p.read_text() for p in STUBS.rglob("*.pyi")}
    assert generator.unexpected_differences(own, {**ours, "extra.pyi": ""})
    assert generator.unexpected_differences(own, {**ours, "numpy/__init__.pyi": ours["numpy/__init__.pyi"] + "x: int\n"})
    assert generator.unexpected_differences(own, own), "the refinement itself must be there"
    refined = ours[generator.REFINED_FILE]
    assert generator.unexpected_differences(own, {**ours, generator.REFINED_FILE: refined.replace("stream: None = None", "stream: int")})


def test_stub_folder_layout() -> None:
    assert (STUBS / "py.typed").read_text() == "partial\n"
    assert not (STUBS / "__init__.pyi").exists(), "a top-level __init__.pyi breaks every checker"


@pytest.mark.parametrize(
    "signature",
    [
        "  def to_device(self, device: Device | Sharding, *,\n                stream: int | Any | None = ...) -> Array: ...\n",
        # jax 0.4.31 declared the keyword without a default
        "  def to_device(self, device: Device | Sharding, *,\n                stream: int | Any | None) -> Array: ...\n",
        "  def to_device(self, device: Device, *, stream: int | Any | None = ...) -> Array: ...\n",
    ],
)
def test_refinement_of_each_known_declaration(signature: str) -> None:
    text = "class Array:\n" + signature + "  def other(self, stream: int) -> None: ...\n"
    refined = generator.refine(text)
    assert "stream: None = None) -> Array: ..." + generator.REFINEMENT_COMMENT + "\n" in refined
    assert "def other(self, stream: int)" in refined
    assert len(refined.splitlines()) == len(text.splitlines())


def test_missing_anchor_is_a_one_line_error(tmp_path: Path) -> None:
    wheel = tmp_path / "jax-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("jax/_src/basearray.pyi", "class Array:\n  def copy(self) -> Array: ...\n")
    stderr = io.StringIO()
    with redirect_stderr(stderr):
        code = generator.main(["--jax", "0.0.0", "--wheel", str(wheel), "--out", str(tmp_path / "o")])
    assert code == 2
    message = stderr.getvalue()
    assert message.count("\n") == 1 and "anchor not found" in message and "Traceback" not in message


def test_unknown_release_is_a_one_line_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(PYTHON), str(REPO / "scripts/generate_stubs.py"), "--jax", "0.0.999", "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("generate_stubs: error: pip could not fetch the jax 0.0.999 wheel")
    assert "Traceback" not in result.stderr


def test_retargeting_rewrites_the_version_and_requires_python(tmp_path: Path, jax_wheel: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    init = tmp_path / "__init__.py"
    hooks = tmp_path / ".pre-commit-hooks.yaml"
    pyproject.write_text((REPO / "pyproject.toml").read_text())
    init.write_text((REPO / "mypy_plugin/__init__.py").read_text().replace(f'"{TARGET}.0"', f'"{TARGET}.3"'))
    hooks.write_text((REPO / ".pre-commit-hooks.yaml").read_text())
    assert f'"jax=={TARGET}"' in hooks.read_text(), "pre-commit's hook installs the JAX the stubs describe"
    generator.retarget_package("0.4.31", ">=3.10", pyproject=pyproject, init=init, hooks=hooks)
    assert 'requires-python = ">=3.10"' in pyproject.read_text()
    assert '__version__ = "0.4.31.3"' in init.read_text(), "the revision is kept"
    assert '"jax==0.4.31"' in hooks.read_text() and TARGET not in hooks.read_text()
    assert generator.jax_requires_python(jax_wheel) == PYPROJECT_REQUIRES_PYTHON


def test_installing_the_package_installs_nothing_else() -> None:
    """No dependency, in any release: installing the stubs never moves the user's JAX, and a
    pyright user gets no mypy. mypy comes with the ``compatible-mypy``, ``lint`` and ``lsp``
    extras, LibCST with the last two (``--fix``), pygls with the server."""
    from importlib import metadata

    import mypy_plugin
    from mypy_plugin.install.compat import COMPATIBLE_MYPY

    assert metadata.version("jax-stubs") == mypy_plugin.__version__ == f"{TARGET}.0"
    requires = metadata.requires("jax-stubs") or []
    assert [r for r in requires if "extra ==" not in r] == []
    for extra, others in (("compatible-mypy", []), ("lint", ["libcst"]), ("lsp", ["libcst", "pygls"])):
        found = {
            re.split(r"[<>=!~;\s]", r, maxsplit=1)[0]: r.split(";")[0].replace(" ", "")
            for r in requires
            if re.search(rf"extra == .{extra}.", r)
        }
        assert sorted(found) == sorted(["mypy", *others]), found
        mypy = found["mypy"]
        assert sorted(mypy.removeprefix("mypy").split(",")) == sorted(COMPATIBLE_MYPY.removeprefix("mypy").split(","))


def test_the_wheel_carries_the_license_the_notice_and_the_command() -> None:
    from importlib import metadata

    dist = metadata.distribution("jax-stubs")
    names = {str(f) for f in dist.files or []}
    assert any(n.endswith("licenses/LICENSE") for n in names) and any(n.endswith("licenses/NOTICE") for n in names)
    assert dist.metadata["License-Expression"] == "Apache-2.0"
    assert dist.metadata["Requires-Python"] == PYPROJECT_REQUIRES_PYTHON
    [script] = [e for e in dist.entry_points if e.group == "console_scripts"]
    assert (script.name, script.value) == ("jax-stubs", "mypy_plugin.__main__:main")


def test_releases_are_listed_whatever_python_they_need() -> None:
    """The index's listing, not ``pip index versions`` under this Python: JAX 0.11.0 and later
    need Python 3.12, and are listed under 3.11 too, each with its floor; the package's table
    holds what was listed when it was written."""
    import releases

    served = releases.served()
    assert {"0.11.0", "0.12.0.1"} <= set(served) and served["0.12.0.1"] == ">=3.12", served
    assert served["0.4.31"] == ">=3.10" and "0.4.32" not in served
    from mypy_plugin.install.releases import RELEASES

    assert RELEASES == {version: requires for version, requires in served.items() if version in RELEASES}


def test_a_release_that_needs_a_newer_python_is_fetched(tmp_path: Path) -> None:
    """JAX 0.12.0.1 needs Python 3.12; the suite's Python (3.11) fetches its wheel all the same."""
    wheel = generator.download_wheel("0.12.0.1", tmp_path)
    assert generator.jax_requires_python(wheel) == ">=3.12"
    assert generator.refine(generator.jax_stub_files(wheel)[generator.REFINED_FILE]).count("stream: None") == 1
