"""A memory tier (``CacheTiers(keep_in_memory=True)``, what ``mcp-codegen watch`` and the daemon
keep): entries read or written are answered from memory afterwards, within a size bound, only by
the stores of the same tiers."""

from __future__ import annotations

import pickle
from pathlib import Path

from mcp_codegen._generator.cache.stored_entries import CacheTiers, EntryStore


def _remove_files(store: EntryStore) -> None:
    for path, _ in store.entries():
        path.unlink()


def test_entries_written_or_read_are_answered_from_memory(tmp_path: Path) -> None:
    tiers = CacheTiers(keep_in_memory=True)
    store = EntryStore(tmp_path / "cache", tiers=tiers)
    store.put("a" * 64, {"value": 1})
    other = EntryStore(tmp_path / "cache", tiers=tiers)  # the next build of the same session
    _remove_files(store)
    assert other.get("a" * 64) == {"value": 1}  # the disk copy is gone: memory answered
    assert other.get("b" * 64) is None


def test_an_entry_read_from_disk_is_kept_too(tmp_path: Path) -> None:
    EntryStore(tmp_path / "cache").put("a" * 64, {"value": 1})
    tiers = CacheTiers(keep_in_memory=True)
    store = EntryStore(tmp_path / "cache", tiers=tiers)
    assert store.get("a" * 64) == {"value": 1}
    _remove_files(store)
    assert EntryStore(tmp_path / "cache", tiers=tiers).get("a" * 64) == {"value": 1}


def test_without_keep_in_memory_every_get_reads_the_disk(tmp_path: Path) -> None:
    store = EntryStore(tmp_path / "cache")
    store.put("a" * 64, {"value": 1})
    assert store.get("a" * 64) == {"value": 1}
    _remove_files(store)
    assert store.get("a" * 64) is None


def test_stores_of_other_tiers_do_not_share_their_memory(tmp_path: Path) -> None:
    """Two sessions in one process: each keeps its own memory tier."""
    mine = EntryStore(tmp_path / "cache", tiers=CacheTiers(keep_in_memory=True))
    theirs = EntryStore(tmp_path / "cache", tiers=CacheTiers(keep_in_memory=True))
    mine.put("a" * 64, {"value": 1})
    _remove_files(mine)
    assert theirs.get("a" * 64) is None
    assert mine.get("a" * 64) == {"value": 1}


def test_memory_drops_the_least_recently_used_beyond_its_bound(tmp_path: Path) -> None:
    values = {key * 64: key * 1000 for key in "abc"}
    size = len(pickle.dumps(values["a" * 64], protocol=pickle.HIGHEST_PROTOCOL))
    tiers = CacheTiers(keep_in_memory=True, memory_limit=2 * size + size // 2)
    store = EntryStore(tmp_path / "cache", tiers=tiers)
    store.put("a" * 64, values["a" * 64])
    store.put("b" * 64, values["b" * 64])
    assert store.get("a" * 64) == values["a" * 64]  # a is now more recent than b
    store.put("c" * 64, values["c" * 64])  # over the bound: b goes
    _remove_files(store)
    assert store.get("a" * 64) == values["a" * 64]
    assert store.get("c" * 64) == values["c" * 64]
    assert store.get("b" * 64) is None
