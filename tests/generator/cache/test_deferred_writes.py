"""``CacheTiers.deferred_writes``: what a watcher's rebuild puts in the cache reaches the disk after
its line, and reads in between see it; the size bound is applied after the writes. Only the stores
of the same tiers (one build session's) hold their writes back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_codegen._generator.cache.stored_entries import CacheTiers, EntryStore

KEY_A = "a" * 64
KEY_B = "b" * 64


def _on_disk(store: EntryStore) -> list[str]:
    return sorted(path.name for path, _ in store.entries())


def test_entries_reach_the_disk_when_the_block_ends(tmp_path: Path) -> None:
    tiers = CacheTiers()
    store = EntryStore(tmp_path / "cache", tiers=tiers)
    with tiers.deferred_writes():
        store.put(KEY_A, {"value": 1})
        assert _on_disk(store) == []
        assert store.get(KEY_A) == {"value": 1}  # a read in between sees it
        assert store.written == 1
    assert _on_disk(store) == [KEY_A]
    assert EntryStore(tmp_path / "cache").get(KEY_A) == {"value": 1}  # read back from disk


def test_outside_the_block_writes_are_immediate(tmp_path: Path) -> None:
    store = EntryStore(tmp_path / "cache")
    store.put(KEY_A, (1, 2))
    assert _on_disk(store) == [KEY_A]


def test_a_block_of_other_tiers_holds_nothing_back(tmp_path: Path) -> None:
    """Another session's deferred writes do not hold back this one's."""
    other = CacheTiers()
    store = EntryStore(tmp_path / "cache", tiers=CacheTiers())
    with other.deferred_writes():
        store.put(KEY_A, (1, 2))
        assert _on_disk(store) == [KEY_A]


def test_pruning_asked_for_inside_runs_after_the_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiers = CacheTiers()
    store = EntryStore(tmp_path / "cache", tiers=tiers)
    store.put(KEY_A, "x" * 1000)
    old = store._path(KEY_A)
    os.utime(old, (1, 1))  # the least recently used
    monkeypatch.setenv("MCP_CODEGEN_CACHE_MB", str(1500 / 1024 / 1024))  # room for one entry
    with tiers.deferred_writes():
        store.put(KEY_B, "y" * 1000)
        assert store.prune() == 0  # held back: nothing removed yet
        assert _on_disk(store) == [KEY_A]
    assert _on_disk(store) == [KEY_B]  # written, then the oldest pruned


def test_an_error_inside_still_writes_what_was_put(tmp_path: Path) -> None:
    tiers = CacheTiers()
    store = EntryStore(tmp_path / "cache", tiers=tiers)
    try:
        with tiers.deferred_writes():
            store.put(KEY_A, 1)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert _on_disk(store) == [KEY_A]
