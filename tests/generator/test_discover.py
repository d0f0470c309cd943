"""The search for ``.py`` files (``discover.python_files``): what it finds, and the directories it
never enters (a virtual environment in the project, ``.venv`` or ``.nox``, holds tens of
thousands of files)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.discover import SKIPPED_DIRS, python_files
from mcp_codegen._generator.scan.factory_entry import project_files

#: Directory names: plain ones, skipped ones and a hidden one.
NAMES = st.sampled_from(
    ["pkg", "sub", "lib", ".venv", "venv", "__pycache__", ".hidden", "node_modules"]
)
FILES = st.sampled_from(["a.py", "b.py", ".dot.py", "notes.txt", "c.pyi"])
TREES = st.lists(st.tuples(st.lists(NAMES, max_size=3), FILES), max_size=12)


def _filtered_rglob(root: Path, skipped: frozenset[str]) -> set[Path]:
    """What the search is defined to find: every ``*.py`` that ``Path.rglob`` lists whose
    directories below ``root`` are neither skipped nor hidden."""
    return {
        path
        for path in root.rglob("*.py")
        if not any(p in skipped or p.startswith(".") for p in path.relative_to(root).parts[:-1])
    }


def _write(root: Path, tree: list[tuple[list[str], str]]) -> None:
    for directories, name in tree:
        folder = root.joinpath(*directories)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tree=TREES)
def test_it_finds_what_a_filtered_rglob_finds(
    tmp_path: Path, tree: list[tuple[list[str], str]]
) -> None:
    root = tmp_path / "project"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    _write(root, tree)
    assert set(python_files(root)) == _filtered_rglob(root, SKIPPED_DIRS)
    skipped = SKIPPED_DIRS | {"lib"}
    assert set(python_files(root, skipped)) == _filtered_rglob(root, skipped)


def test_it_never_enters_an_environment_a_cache_or_a_hidden_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(
        tmp_path,
        [
            (["pkg"], "tools.py"),
            (["pkg", "__pycache__"], "tools.py"),
            ([".venv", "lib", "site-packages", "mcp"], "server.py"),
            ([".nox", "tests", "lib"], "x.py"),
            (["venv", "lib"], "y.py"),
            (["node_modules", "dep"], "z.py"),
            ([".git", "hooks"], "h.py"),
            (["pkg", "site-packages"], "vendored.py"),
        ],
    )
    (tmp_path / "linked").symlink_to(tmp_path / "pkg", target_is_directory=True)
    entered: list[str] = []
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        entered.append(os.path.relpath(path, tmp_path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = python_files(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in found) == [
        "pkg/site-packages/vendored.py",
        "pkg/tools.py",
    ]
    assert sorted(entered) == [".", "pkg", "pkg/site-packages"]
    entered.clear()
    # The search for a factory's call sites also leaves installed packages out.
    assert [p.relative_to(tmp_path).as_posix() for p in project_files(tmp_path)] == ["pkg/tools.py"]
    assert sorted(entered) == [".", "pkg"]
