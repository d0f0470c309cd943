"""The generator's own code in the cache key: its content, wherever it is checked out."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mcp_codegen._generator.cache import keys


def _tree(root: Path) -> Path:
    package = root / "mcp_codegen"
    (package / "_generator" / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("VERSION = 1\n")
    (package / "_generator" / "stage.py").write_text("def run(): ...\n")
    (package / "_generator" / "__pycache__" / "stage.cpython-311.pyc").write_bytes(b"\0bytecode")
    (root / "templates").mkdir()
    (root / "templates" / "module.py.jinja").write_text("{{ tools }}\n")
    return root


def _digest(monkeypatch: pytest.MonkeyPatch, root: Path, memo: Path | None = None) -> str:
    monkeypatch.setattr(keys, "_PACKAGE", root / "mcp_codegen")
    monkeypatch.setattr(keys, "_TEMPLATES", root / "templates")
    keys._generator_digest.cache_clear()
    try:
        return keys._generator_digest(memo)
    finally:
        keys._generator_digest.cache_clear()


def test_the_digest_follows_the_code_and_templates_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = _tree(tmp_path / "one")
    first = _digest(monkeypatch, root)
    assert _digest(monkeypatch, shutil.copytree(root, tmp_path / "elsewhere")) == first
    (root / "mcp_codegen" / "_generator" / "__pycache__" / "other.pyc").write_bytes(b"\1")
    (root / "mcp_codegen" / "notes.txt").write_text("not code\n")
    assert _digest(monkeypatch, root) == first

    seen = {first}
    (root / "mcp_codegen" / "_generator" / "stage.py").write_text("def run(): return 1\n")
    seen.add(_digest(monkeypatch, root))
    (root / "templates" / "module.py.jinja").write_text("{{ tools|length }}\n")
    seen.add(_digest(monkeypatch, root))
    (root / "mcp_codegen" / "_generator" / "new.py").write_text("")
    seen.add(_digest(monkeypatch, root))
    (root / "mcp_codegen" / "_generator" / "new.py").rename(root / "mcp_codegen" / "renamed.py")
    seen.add(_digest(monkeypatch, root))
    assert len(seen) == 5  # every change gave a digest not seen before


def test_the_memo_saves_reading_an_unchanged_tree_and_notices_a_change(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root, memo = _tree(tmp_path / "tree"), tmp_path / "memo.json"
    first = _digest(monkeypatch, root, memo)
    assert memo.is_file()
    stage = root / "mcp_codegen" / "_generator" / "stage.py"
    # Same size and mtime, other content: trusted to the memo (what it is for) ...
    stat = stage.stat()
    stage.write_text("def nur(): ...\n")
    os.utime(stage, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _digest(monkeypatch, root, memo) == first
    # ... while a new mtime reads the tree again.
    os.utime(stage, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    changed = _digest(monkeypatch, root, memo)
    assert changed != first
    assert changed == _digest(monkeypatch, root)  # the memo holds what reading gives


def test_each_installed_copy_remembers_its_digest_in_the_users_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every project's first build finds the memo; two copies (a checkout, a venv's wheel)
    never overwrite each other's, and a memo is replaced whole (no temporary file left)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    one, two = _tree(tmp_path / "one"), _tree(tmp_path / "two")
    memos = {}
    for root in (one, two):
        monkeypatch.setattr(keys, "_PACKAGE", root / "mcp_codegen")
        memos[root] = keys.generator_digest_memo()
    assert memos[one] != memos[two]
    assert {memo.parent for memo in memos.values() if memo} == {
        tmp_path / "user" / "mcp-codegen" / "generator-digest"
    }
    for root, memo in memos.items():
        _digest(monkeypatch, root, memo)
    assert sorted(p.name for p in (tmp_path / "user/mcp-codegen/generator-digest").iterdir()) == (
        sorted(memo.name for memo in memos.values() if memo)
    )
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert keys.generator_digest_memo() is None
