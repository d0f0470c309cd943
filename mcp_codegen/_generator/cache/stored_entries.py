"""A content-addressed store of cache entries under ``.mcp-codegen-cache/`` (standard library only).

An entry is a file named by its key (a SHA-256 of everything that decides it, see
``mcp_codegen._generator.cache.keys``): ``entries/<first two hex digits>/<key>``. Its bytes are a
magic line, the SHA-256 of the payload, and the payload (a pickle): a truncated or corrupted
entry fails the check and is a miss with a warning, never a crash nor a wrong build. Entries are
written atomically (a temporary file, then ``os.replace``), so concurrent builds never see half an
entry. Reading an entry touches it; ``prune`` removes the least recently used beyond the size
bound. Listing every entry to learn the cache's size took ~10-15 ms of each build that wrote
one, so ``usage`` keeps a running total: the size a full prune left plus what builds wrote
since. A build that keeps the total within the bound adds to it instead of listing; a full
prune runs when the total passes the bound, when it is an hour old (writers that raced on it,
temporary files of killed writers) or unreadable, and for ``mcp-codegen cache prune``.
Nothing in an entry or its name depends on where the project is checked out, so the directory
can be restored in another checkout or on another machine (a CI cache).

Over the disk are the tiers a build session keeps across its builds (``CacheTiers``, owned by
``mcp_codegen._generator.pipeline.BuildSession``; no module state): a long-lived session
(``mcp-codegen watch``, the daemon) keeps the entries it read or wrote decoded in memory (up to
``MEMORY_LIMIT_BYTES`` of payload), so a rebuild reads from disk only what it has not seen, and
may hold a build's writes back until it has answered. A key names its content, so a remembered
entry is never stale; values are never mutated by their users (frozen dataclasses, tuples,
copied dicts).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_codegen._generator.sealed_file import (
    STALE_TEMPORARY_S,
    TEMPORARY_PREFIX,
    unsealed,
    write_sealed,
)

_MAGIC = b"mcp-codegen-cache 1\n"
#: Default size bound; ``MCP_CODEGEN_CACHE_MB`` overrides it.
DEFAULT_LIMIT_BYTES = 256 * 1024 * 1024
_IGNORE = "# Created by mcp-codegen; safe to delete.\n*\n"
#: The running total of the cache's size: ``<bytes> <time of the last full prune>``.
USAGE_FILE = "usage"
#: How long the running total is trusted before a build lists the entries again.
FULL_PRUNE_EVERY_S = 3600
#: How much payload a session's memory tier keeps (``CacheTiers``), least recently used dropped
#: first.
MEMORY_LIMIT_BYTES = 128 * 1024 * 1024


class _Memory:
    """Decoded entries by key, with their payload sizes (LRU, within ``limit`` bytes; none when
    ``limit`` is 0)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.values: dict[str, tuple[Any, int]] = {}
        self.size = 0

    def get(self, key: str) -> tuple[bool, Any]:
        found = self.values.pop(key, None)
        if found is None:
            return False, None
        self.values[key] = found  # most recently used last
        return True, found[0]

    def put(self, key: str, value: Any, size: int) -> None:
        if self.limit <= 0:
            return
        if (old := self.values.pop(key, None)) is not None:
            self.size -= old[1]
        self.values[key] = (value, size)
        self.size += size
        while self.size > self.limit and self.values:
            _, (_, dropped) = _pop_oldest(self.values)
            self.size -= dropped


def _pop_oldest(values: dict[str, tuple[Any, int]]) -> tuple[str, tuple[Any, int]]:
    oldest = next(iter(values))
    return oldest, values.pop(oldest)


@dataclass
class _Deferred:
    """What ``CacheTiers.deferred_writes`` holds back: entries by key, and the stores to prune
    after."""

    entries: dict[str, tuple[EntryStore, Any]] = field(default_factory=dict)
    prune: dict[int, EntryStore] = field(default_factory=dict)


class CacheTiers:
    """The tiers over the disk that one build session keeps across its builds: the entries kept
    decoded in memory, and the writes held back while a ``deferred_writes`` block runs.

    Every ``EntryStore`` of the session's builds is given the session's; a store made without
    one (``mcp-codegen cache``, a test) gets a fresh one of its own. ``keep_in_memory``: for a
    session that outlives one build (watch, the daemon); a one-shot build keeps nothing.
    """

    def __init__(
        self, *, keep_in_memory: bool = False, memory_limit: int = MEMORY_LIMIT_BYTES
    ) -> None:
        self.memory = _Memory(memory_limit if keep_in_memory else 0)
        self.deferred: _Deferred | None = None

    @contextlib.contextmanager
    def deferred_writes(self) -> Iterator[None]:
        """Entries put inside are written, and the stores asked to prune pruned, when it ends,
        also when it ends by an exception: a watcher writes the generated files and says so
        before it spends time on its cache. Values are not pickled before then, which is sound
        because their users never mutate them."""
        outer, self.deferred = self.deferred, _Deferred()
        try:
            yield
        finally:
            held, self.deferred = self.deferred, outer
            for key, (store, value) in held.entries.items():
                store._write(key, value)
            for store in held.prune.values():
                store.prune()


def limit_bytes() -> int:
    try:
        return int(float(os.environ["MCP_CODEGEN_CACHE_MB"]) * 1024 * 1024)
    except (KeyError, ValueError):
        return DEFAULT_LIMIT_BYTES


@dataclass
class EntryStore:
    directory: Path
    #: What went wrong reading entries (each one was treated as a miss).
    warnings: list[str] = field(default_factory=list)
    written: int = 0
    #: Bytes of entries this process wrote that ``usage`` does not count yet.
    unaccounted: int = 0
    #: The memory tier and deferred writes of the build session this store belongs to.
    tiers: CacheTiers = field(default_factory=CacheTiers)

    def _path(self, key: str) -> Path:
        return self.directory / "entries" / key[:2] / key

    def get(self, key: str) -> Any | None:
        deferred = self.tiers.deferred
        if deferred is not None and key in deferred.entries:
            return deferred.entries[key][1]
        path = self._path(key)
        known, value = self.tiers.memory.get(key)
        if known:
            with contextlib.suppress(OSError):
                os.utime(path)  # recently used: pruned last
            return value
        try:
            data = path.read_bytes()
        except OSError:
            return None
        payload = unsealed(data, _MAGIC)
        if payload is None:
            self._corrupt(path, "it is truncated or corrupted")
            return None
        try:
            value = pickle.loads(payload)
        except Exception as exc:  # an entry of another version of the generator's classes
            self._corrupt(path, f"it cannot be read ({type(exc).__name__})")
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: pruned last
        self.tiers.memory.put(key, value, len(payload))
        return value

    def _corrupt(self, path: Path, why: str) -> None:
        self.warnings.append(
            f"cache entry {path.relative_to(self.directory.parent).as_posix()} was ignored: "
            f"{why}; it will be rebuilt (`mcp-codegen cache clean` removes the cache)"
        )
        with contextlib.suppress(OSError):
            path.unlink()

    def put(self, key: str, value: Any) -> None:
        """Write atomically; a cache that cannot be written is simply not used."""
        if (deferred := self.tiers.deferred) is not None:
            deferred.entries[key] = (self, value)
            self.written += 1
        elif self._write(key, value):
            self.written += 1

    def _write(self, key: str, value: Any) -> bool:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self.tiers.memory.put(key, value, len(payload))
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text(_IGNORE)
            self.unaccounted += write_sealed(path, _MAGIC, payload)
        except OSError:
            return False
        return True

    def entries(self) -> list[tuple[Path, os.stat_result]]:
        found = []
        for path in (self.directory / "entries").glob("*/*"):
            try:
                found.append((path, path.stat()))
            except OSError:
                continue
        return found

    def prune(self, limit: int | None = None, *, full: bool = False) -> int:
        """Remove the least recently used entries until the rest fit ``limit`` bytes; unless
        ``full``, only when the running total (``usage``) says they may not."""
        if (deferred := self.tiers.deferred) is not None:
            deferred.prune[id(self)] = self
            return 0
        limit = limit_bytes() if limit is None else limit
        if not full and self._counted_within(limit):
            return 0
        found = self.entries()
        total = sum(stat.st_size for _, stat in found)
        removed = 0
        stale_temporaries = time.time() - STALE_TEMPORARY_S
        for path, stat in sorted(found, key=lambda item: item[1].st_mtime):
            if path.name.startswith(TEMPORARY_PREFIX) and stat.st_mtime < stale_temporaries:
                pass  # a writer that died: always removed
            elif total <= limit:
                continue
            try:
                path.unlink()
            except OSError:
                continue
            total -= stat.st_size
            removed += 1
        self.unaccounted = 0
        self._write_usage(total, time.time())
        return removed

    def _counted_within(self, limit: int) -> bool:
        """Whether the running total, with what this process wrote, is within ``limit`` and
        recent; if so it is brought up to date."""
        try:
            size_text, pruned_text = (self.directory / USAGE_FILE).read_text().split()
            size, pruned_at = int(size_text), float(pruned_text)
        except (OSError, ValueError):
            return False
        total = size + self.unaccounted
        if total > limit or not 0 <= time.time() - pruned_at < FULL_PRUNE_EVERY_S:
            return False
        self.unaccounted = 0
        self._write_usage(total, pruned_at)
        return True

    def _write_usage(self, size: int, pruned_at: float) -> None:
        # Not atomic, on purpose: a build that reads it half-written only prunes in full, and a
        # killed writer leaves no temporary file behind.
        with contextlib.suppress(OSError):
            (self.directory / USAGE_FILE).write_text(f"{size} {pruned_at!r}\n")

    def clean(self) -> int:
        """Remove the whole cache directory; returns how many entries it held."""
        count = len(self.entries())
        shutil.rmtree(self.directory, ignore_errors=True)
        return count
