"""``keep_in_memory`` (what ``mcp-codegen watch`` turns on): entries read or written are answered
from memory afterwards, within a size bound, and only while it is on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_codegen._generator.cache import stored_entries
from mcp_codegen._generator.cache.stored_entries import EntryStore, keep_in_memory


@pytest.fixture
def memory() -> Iterator[None]:
    keep_in_memory()
    try:
        yield
    finally:
        keep_in_memory(False)


def _remove_files(store: EntryStore) -> None:
    for path, _ in store.entries():
        path.unlink()


def test_entries_written_or_read_are_answered_from_memory(tmp_path: Path, memory: None) -> None:
    store = EntryStore(tmp_path / "cache")
    store.put("a" * 64, {"value": 1})
    other = EntryStore(tmp_path / "cache")
    _remove_files(store)
    assert other.get("a" * 64) == {"value": 1}  # the disk copy is gone: memory answered
    assert other.get("b" * 64) is None


def test_without_keep_in_memory_every_get_reads_the_disk(tmp_path: Path) -> None:
    store = EntryStore(tmp_path / "cache")
    store.put("a" * 64, {"value": 1})
    assert store.get("a" * 64) == {"value": 1}
    _remove_files(store)
    assert store.get("a" * 64) is None


def test_memory_drops_the_least_recently_used_beyond_its_bound(
    tmp_path: Path, memory: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EntryStore(tmp_path / "cache")
    values = {key * 64: key * 1000 for key in "abc"}
    size = len(
        stored_entries.pickle.dumps(
            values["a" * 64], protocol=stored_entries.pickle.HIGHEST_PROTOCOL
        )
    )
    monkeypatch.setattr(stored_entries, "MEMORY_LIMIT_BYTES", 2 * size + size // 2)
    store.put("a" * 64, values["a" * 64])
    store.put("b" * 64, values["b" * 64])
    assert store.get("a" * 64) == values["a" * 64]  # a is now more recent than b
    store.put("c" * 64, values["c" * 64])  # over the bound: b goes
    _remove_files(store)
    assert store.get("a" * 64) == values["a" * 64]
    assert store.get("c" * 64) == values["c" * 64]
    assert store.get("b" * 64) is None
