"""The cache directory: corrupt entries are misses with a warning, the size bound prunes the
least recently used entries, and ``mcp-codegen cache clean`` removes it."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from mcp_codegen._generator.cache.stored_entries import EntryStore
from tests.helpers.project import Project, codegen_env

TOOLS = """
from mcp_codegen.decorators import tool


@tool
def {name}(value: int) -> int:
    return value
"""


def _entries(project: Project) -> list[Path]:
    return sorted((project.root / ".mcp-codegen-cache" / "entries").glob("*/*"))


def _two_modules(project: Project, env: dict[str, str] | None = None) -> None:
    project.write("pkg/alpha.py", TOOLS.format(name="alpha"))
    project.write("pkg/beta.py", TOOLS.format(name="beta"))
    done = project.run("generate", env=env)
    assert done.returncode == 0, done.stderr


@pytest.mark.process
def test_truncated_and_corrupted_entries_are_misses_with_a_warning(project: Project) -> None:
    _two_modules(project)
    expected = project.snapshot()
    entries = _entries(project)
    # per module: its inspection and its rendering; the whole build; the manifest
    assert len(entries) == 6
    for index, entry in enumerate(entries):
        data = entry.read_bytes()
        if index % 3 == 0:
            entry.write_bytes(data[:40])  # truncated
        elif index % 3 == 1:
            flipped = bytearray(data)
            flipped[-5] ^= 0xFF  # one flipped byte
            entry.write_bytes(bytes(flipped))
        else:
            entry.write_bytes(b"")
    project.write("pkg/alpha.py", TOOLS.format(name="alpha") + "\n# edited\n")
    done = project.run("check")
    assert done.returncode == 1, done.stdout + done.stderr  # the edit changed the source hash
    assert "warning: cache entry" in done.stderr
    assert "Traceback" not in done.stderr
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    generated = project.snapshot()
    assert {k: v for k, v in generated.items() if "alpha" not in k} == {
        k: v for k, v in expected.items() if "alpha" not in k
    }
    assert project.run("check", "--no-cache").returncode == 0


@pytest.mark.process
def test_an_entry_with_a_valid_checksum_but_wrong_content_is_a_miss(project: Project) -> None:
    import hashlib

    from mcp_codegen._generator.cache import stored_entries as module

    _two_modules(project)
    expected = project.snapshot()
    for path in _entries(project):
        payload = pickle.dumps({"dependencies": {}, "scanned": "nonsense", "tools": 3})
        path.write_bytes(module._MAGIC + hashlib.sha256(payload).digest() + payload)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert "was ignored" in done.stderr
    assert project.snapshot() == expected


def test_prune_keeps_the_most_recently_used_within_the_bound(tmp_path: Path) -> None:
    store = EntryStore(tmp_path / "cache")
    for index in range(6):
        store.put(f"{index:02d}" + "0" * 62, b"x" * 1000)
        path = store._path(f"{index:02d}" + "0" * 62)
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    assert store.get("00" + "0" * 62) == b"x" * 1000  # used now: the newest
    assert store.prune(limit=3500) == 3
    left = sorted(p.name[:2] for p, _ in store.entries())
    assert left == ["00", "04", "05"]
    assert store.warnings == []


@pytest.mark.process
def test_cache_clean_removes_the_cache_and_the_next_build_is_whole(
    project: Project, tmp_path: Path
) -> None:
    env = codegen_env(XDG_CACHE_HOME=str(tmp_path / "user-cache"))
    user_tables = tmp_path / "user-cache" / "mcp-codegen" / "dataclass-methods"
    info = project.run("cache", "info", env=env)
    assert "mcp-codegen/dataclass-methods/ holds" in info.stdout  # before any build
    assert "every project: 0 tables, 0.0 MB" in info.stdout, info.stdout
    _two_modules(project, env=env)
    info = project.run("cache", "info", env=env)
    assert info.returncode == 0 and "6 entries" in info.stdout
    assert "(bound 256 MB, set by MCP_CODEGEN_CACHE_MB)" in info.stdout
    [table] = user_tables.iterdir()  # the first build's processes compiled into the user's table
    size = table.stat().st_size / 1024 / 1024
    shown = f"1 table, {size:.1f} MB (one per Python, at most 16 MB each)"
    assert f"{user_tables}/ holds compiled dataclass methods for every project: {shown}" in (
        info.stdout
    ), info.stdout
    done = project.run("cache", "clean", env=env)
    assert done.returncode == 0, done.stderr
    assert not (project.root / ".mcp-codegen-cache").exists()
    assert [table] == list(user_tables.iterdir())  # the user's, not the project's: kept
    assert project.run("check", env=env).returncode == 0
    assert len(_entries(project)) == 6


@pytest.mark.process
def test_the_size_bound_applies_to_builds(project: Project) -> None:
    _two_modules(project)
    project.write("pkg/alpha.py", TOOLS.format(name="alpha") + "\n# edited\n")
    env_limit = {"MCP_CODEGEN_CACHE_MB": "0.000001"}
    from tests.helpers.project import codegen_env

    done = project.run("generate", env=codegen_env(**env_limit))
    assert done.returncode == 0, done.stderr
    assert _entries(project) == []
    assert project.run("check").returncode == 0
