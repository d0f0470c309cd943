"""How a module a worker imported is checked on the next build (``FileHashes.classify``), by
where its file is: the generator's own code never (wherever it is installed), a distribution's
module by its version, any other file by its content.

An installed wheel puts the generator in ``site-packages``: its modules, and the probe started
as ``python -m mcp_codegen._generator.flavors.servers`` (``__main__``, aliased ``__mp_main__``
by multiprocessing), were recorded as untrusted entries there, and no build of a framework
flavor was ever a cache hit (issue 34). These tests put the generator under an install
directory, as the wheel does, from the checkout.
"""

from __future__ import annotations

import csv
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.cache import keys
from mcp_codegen._generator.config import load_config


def _hashes(root: Path) -> keys.FileHashes:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    return keys.FileHashes(load_config(root / "pyproject.toml"))


@pytest.fixture
def site_packages(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An install directory that holds the generator, as an installed wheel's does."""
    site = (tmp_path / "venv" / "site-packages").resolve()
    site.mkdir(parents=True)
    monkeypatch.setattr(keys, "_INSTALLED", (str(site), str(keys._PACKAGE.parent)))
    return site


def test_the_generator_installed_in_site_packages_is_no_dependency(
    site_packages: Path, tmp_path: Path
) -> None:
    hashes = _hashes(tmp_path / "project")
    probe = keys._PACKAGE / "_generator" / "flavors" / "servers.py"
    assert probe.is_file()
    found = hashes.classify(
        [
            ("__main__", str(probe)),
            ("__mp_main__", str(probe)),
            ("mcp_codegen.decorators", str(keys._PACKAGE / "decorators.py")),
        ]
    )
    assert found == {}
    assert hashes.current(found)


def test_a_module_no_distribution_claims_is_checked_by_content(
    site_packages: Path, tmp_path: Path
) -> None:
    """A venv made by virtualenv or uv imports ``_virtualenv`` at start-up: it is in the
    probe's modules, and no distribution names it."""
    module = site_packages / "_virtualenv_like.py"
    module.write_text("PATCHED = True\n")
    hashes = _hashes(tmp_path / "project")
    found = hashes.classify([("_virtualenv_like", str(module))])
    ((kind, recorded),) = found.items()
    assert kind == "file:../venv/site-packages/_virtualenv_like.py"
    assert recorded is not None
    assert _hashes(tmp_path / "project").current(found)
    module.write_text("PATCHED = False\n")
    assert not _hashes(tmp_path / "project").current(found)


def test_an_editable_install_is_checked_by_content_not_by_its_version(tmp_path: Path) -> None:
    """Outside the project and outside every install directory: its code changes while its
    version stays, so the version cannot stand for it."""
    library = tmp_path / "sibling" / "pytest"  # named like an installed distribution
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("LIMIT = 1\n")
    hashes = _hashes(tmp_path / "project")
    assert keys.installed_version("pytest") is not None
    found = hashes.classify([("pytest", str(library / "__init__.py"))])
    assert list(found) == ["file:../sibling/pytest/__init__.py"]
    (library / "__init__.py").write_text("LIMIT = 2\n")
    assert not _hashes(tmp_path / "project").current(found)


def test_an_installed_distribution_is_checked_by_its_version(tmp_path: Path) -> None:
    import _pytest.config

    hashes = _hashes(tmp_path / "project")
    found = hashes.classify([("_pytest.config", _pytest.config.__file__)])
    assert found == {"dist:pytest": keys.installed_version("pytest")}
    assert hashes.current(found)
    assert not hashes.current({"dist:pytest": "0.0.0"})


def test_an_entry_of_an_unknown_kind_is_not_trusted(tmp_path: Path) -> None:
    """What cache format 1 wrote for ``__main__``: any doubt is a miss."""
    assert not _hashes(tmp_path / "project").current({"module:__main__": None})


def test_the_templates_are_named_alike_in_a_wheel_and_in_a_checkout() -> None:
    named = [relative for _, relative in keys._generator_files()]
    templates = [n for n in named if n.endswith(".jinja")]
    assert templates and all(n.startswith("templates/") for n in templates), templates
    assert all(n.startswith("mcp_codegen/") for n in named if n.endswith(".py"))


def _stdlib_map() -> dict[str, list[str]]:
    from importlib import metadata

    return metadata.packages_distributions()


def _our_map() -> dict[str, list[str]]:
    keys._distributions.cache_clear()
    try:
        return {
            top: [distribution.metadata["Name"] for distribution in distributions]
            for top, distributions in keys._distributions().items()
        }
    finally:
        keys._distributions.cache_clear()


def test_the_installed_distributions_map_as_the_standard_library_maps_them() -> None:
    """Every top-level name ``importlib.metadata.packages_distributions`` knows in this
    environment maps to the same distributions, in the same order; Python 3.12 infers names
    from every listed file as ``keys`` does, 3.11 only from ``.py`` files."""
    ours, theirs = _our_map(), _stdlib_map()
    assert theirs and {top: ours.get(top) for top in theirs} == theirs
    if sys.version_info >= (3, 12):
        assert ours == theirs


_NAME = st.text("abcxyz_", min_size=1, max_size=6)
_PY_PATH = st.tuples(st.lists(st.one_of(_NAME, st.just("a,b")), max_size=3), _NAME).map(
    lambda parts: "/".join([*parts[0], parts[1] + ".py"])
)


@settings(
    max_examples=40,
    # each example writes a directory and reads it back: a shared box may be slow at that
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(listed=st.lists(st.lists(_PY_PATH, min_size=1, max_size=5), min_size=1, max_size=4))
def test_file_lists_map_as_the_standard_library_maps_them(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    listed: list[list[str]],
) -> None:
    """Distributions whose ``RECORD`` lists ``.py`` files (nested or at the top, with commas
    that CSV quotes): the same names as the standard library's. (Where Python 3.11 and 3.12
    differ, in files other than ``.py`` and in dotted directories, ``keys`` infers as 3.12
    does: the test below.)"""
    site = tmp_path_factory.mktemp("site")
    for index, paths in enumerate(listed):
        info = site / f"dist{index}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: dist{index}\nVersion: 1.0\n")
        with (info / "RECORD").open("w", newline="") as handle:
            csv.writer(handle).writerows([[path, "", ""] for path in paths])
    with monkeypatch.context() as patch:
        patch.setattr(sys, "path", [str(site)])
        ours, theirs = _our_map(), _stdlib_map()
    assert ours == theirs


def test_every_listed_file_names_an_importable_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As Python 3.12 infers: an extension module at the top and a directory of data files
    are the distribution's; a script outside, the metadata and a dotted directory are not."""
    info = tmp_path / "fast-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fast\nVersion: 1.0\n")
    extension = f"fast_core{EXTENSION_SUFFIXES[0]}"  # this interpreter's, e.g. .cpython-311-...so
    (info / "RECORD").write_text(
        f"{extension},,\n../../bin/fast,,\nfast-1.0.dist-info/RECORD,,\n"
        "fast_data/table.json,,\nfast.libs/libz.so,,\n"
    )
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert _our_map() == {"fast_core": ["fast"], "fast_data": ["fast"]}
    if sys.version_info >= (3, 12):  # the standard library's own inference since 3.12
        assert _stdlib_map() == _our_map()
