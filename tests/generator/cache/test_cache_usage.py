"""The cache's running size total: a build within the bound adds to it instead of listing every
entry; past the bound, an hour on, or unreadable, the entries are listed and pruned."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mcp_codegen._generator.cache.stored_entries import USAGE_FILE, EntryStore


def _key(index: int) -> str:
    return f"{index:02x}" + "0" * 62


class _Listing:
    """Counts how often the store lists its entries (what the running total saves)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = EntryStore.entries

        def entries(store: EntryStore) -> list[tuple[Path, os.stat_result]]:
            self.count += 1
            return real(store)

        monkeypatch.setattr(EntryStore, "entries", entries)


def _names(store: EntryStore) -> list[str]:
    return sorted(path.name for path in (store.directory / "entries").glob("*/*"))


def _on_disk(store: EntryStore) -> int:
    return sum(path.stat().st_size for path in (store.directory / "entries").glob("*/*"))


def _usage(store: EntryStore) -> tuple[int, float]:
    size, pruned_at = (store.directory / USAGE_FILE).read_text().split()
    return int(size), float(pruned_at)


def test_builds_within_the_bound_add_to_the_total_without_listing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    listing = _Listing(monkeypatch)
    store = EntryStore(tmp_path / "cache")
    store.put(_key(0), b"x" * 1000)
    assert store.prune(limit=100_000) == 0
    assert listing.count == 1  # no total yet: listed once, and the total written
    assert _usage(store)[0] == _on_disk(store)
    for index in range(1, 4):  # later builds, each in its own process
        build = EntryStore(tmp_path / "cache")
        build.put(_key(index), b"y" * 2000)
        assert build.prune(limit=100_000) == 0
    assert listing.count == 1
    assert _usage(store)[0] == _on_disk(store)  # the total kept up with the writes


def test_passing_the_bound_lists_and_prunes_the_least_recently_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    listing = _Listing(monkeypatch)
    store = EntryStore(tmp_path / "cache")
    for index in range(3):
        store.put(_key(index), b"x" * 1000)
        os.utime(store._path(_key(index)), (1_000_000 + index, 1_000_000 + index))
    store.prune(limit=10_000)
    one_entry = _on_disk(store) // 3
    build = EntryStore(tmp_path / "cache")
    build.put(_key(3), b"x" * 1000)  # four entries: past a bound of three
    assert build.prune(limit=3 * one_entry) == 1
    assert listing.count == 2
    assert _names(store) == [_key(i) for i in (1, 2, 3)]
    assert _usage(store)[0] == _on_disk(store) == 3 * one_entry


@pytest.mark.parametrize(
    "usage",
    [
        pytest.param(lambda size: f"{size} {time.time() - 3601!r}\n", id="an hour old"),
        pytest.param(lambda size: f"{size} {time.time() + 600!r}\n", id="from the future"),
        pytest.param(lambda size: "", id="empty (a racing writer)"),
        pytest.param(lambda size: "12 apples\n", id="not numbers"),
    ],
)
def test_an_old_or_unreadable_total_lists_the_entries_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, usage: object
) -> None:
    store = EntryStore(tmp_path / "cache")
    store.put(_key(0), b"x" * 1000)
    store.prune(limit=100_000)
    (store.directory / USAGE_FILE).write_text(usage(_on_disk(store)))  # type: ignore[operator]
    stale = store._path(_key(0)).parent / ".tmp.killed-writer"
    stale.write_bytes(b"half")
    os.utime(stale, (1, 1))
    listing = _Listing(monkeypatch)
    build = EntryStore(tmp_path / "cache")
    build.put(_key(1), b"y" * 1000)
    assert build.prune(limit=100_000) == 1  # the killed writer's temporary file
    assert listing.count == 1
    size, pruned_at = _usage(store)
    assert size == _on_disk(store) and abs(pruned_at - time.time()) < 60


def test_cache_prune_always_lists(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    store = EntryStore(tmp_path / "cache")
    store.put(_key(0), b"x" * 1000)
    store.prune(limit=100_000)
    listing = _Listing(monkeypatch)
    assert store.prune(limit=100_000, full=True) == 0
    assert listing.count == 1
