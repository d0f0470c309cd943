"""Dataclass methods compiled once, kept in the user's cache directory for later processes.

Runs in: parent, worker.

``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__`` and the rest as
source text and compiles it with ``exec`` when the class is made. A build's processes make
hundreds of classes as they import: libcst's node classes, pydantic's, the generator's own and
the user's. Compiling those texts was more than half of libcst's import in a scan worker
(bench/results/2026-12-06-compiled-dataclass-methods.md). A method's text depends only on the
class's shape, and the same text compiles to the same code in every process of one Python, so
``install`` gives the ``dataclasses`` module an ``exec`` of its own (a module's global comes
before the builtin) that runs the code of a text it has seen, from a table read from the user's
cache directory (``$XDG_CACHE_HOME/mcp-codegen`` or ``~/.cache/mcp-codegen``, one table per
Python, shared by every project: a new project's first build starts with it), and compiles only
the texts it has not. ``Table.save`` writes the table back when it grew.

Nothing a process computes changes: a text is compiled as ``exec`` compiles a string for a
module without ``__future__`` imports (``dont_inherit``), and marshal keeps code exactly (the
code objects are compared in tests/generator/test_compiled_methods.py). The file is checked as
a cache entry is, by a magic line and the SHA-256 of its bytes: a truncated or corrupted table
is ignored, never run. It is trusted as the user's own files are: whoever can write the user's
cache directory can already run code as that user (through ``~/.bashrc``, the user's site).
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
from typing import Any

from mcp_codegen._generator.sealed_file import (
    STALE_TEMPORARY_S,
    TEMPORARY_PREFIX,
    unsealed,
    write_sealed,
)
from mcp_codegen._shared.user_cache import user_cache_directory

#: The table's directory in the user's cache directory, one file per Python.
DIRECTORY = "dataclass-methods"
_MAGIC = b"mcp-codegen dataclass methods 1\n"
#: A table beyond this many bytes is written with only the texts its last process used.
LIMIT_BYTES = 16 * 1024 * 1024


def table_path(cache_directory: str) -> str | None:
    """Where this Python's table lives in ``cache_directory``; ``None`` for a Python whose code
    has no cache tag (its compiled code is not kept)."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    return os.path.join(cache_directory, DIRECTORY, f"{tag}-{sys.hexversion:08x}")


def _read(path: str) -> dict[str, bytes]:
    try:
        with open(path, "rb") as handle:
            payload = unsealed(handle.read(), _MAGIC)
    except OSError:
        return {}
    if payload is None:
        return {}
    try:
        table = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return {}
    return table if isinstance(table, dict) else {}


def _write(path: str, payload: bytes) -> None:
    """``payload`` sealed and written atomically, and the temporary files of killed writers
    removed; a table that cannot be written is simply not kept."""
    # Imported here: a process whose table did not grow (nearly every one) never writes.
    import time

    directory = os.path.dirname(path)
    with contextlib.suppress(OSError):
        os.makedirs(directory, exist_ok=True)
        stale_before = time.time() - STALE_TEMPORARY_S
        for name in os.listdir(directory):
            left = os.path.join(directory, name)
            # only temporary files are stat'ed (``and`` stops before the stat)
            if name.startswith(TEMPORARY_PREFIX) and os.stat(left).st_mtime < stale_before:
                os.unlink(left)
        write_sealed(path, _MAGIC, payload)


def stored_tables(cache_directory: str) -> tuple[int, int]:
    """How many tables ``cache_directory`` holds (one per Python that built there) and their
    bytes, for ``mcp-codegen cache info``."""
    directory = os.path.join(cache_directory, DIRECTORY)
    count = size = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if entry.is_file() and not entry.name.startswith(TEMPORARY_PREFIX):
                count, size = count + 1, size + entry.stat().st_size
    return count, size


class Table:
    """Compiled dataclass methods by their source text (each a marshalled code object), and
    the ``exec`` that ``dataclasses`` calls."""

    def __init__(self, path: str, codes: dict[str, bytes]) -> None:
        self.path = path
        self.codes = codes
        self.used: set[str] = set()
        self.added = 0

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **options: Any) -> None:
        """``exec``, with a source text's code taken from the table or compiled into it."""
        # As the builtin: none given, the caller's (``dataclasses`` always passes its own).
        if globals is None:
            frame = sys._getframe(1)
            globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
        if isinstance(source, str):
            text = source
            self.used.add(text)
            if (blob := self.codes.get(text)) is not None:
                source = marshal.loads(blob)
            else:
                source = compile(text, "<string>", "exec", dont_inherit=True)
                self.codes[text] = marshal.dumps(source)
                self.added += 1
        builtins.exec(source, globals, locals, **options)

    def save(self) -> None:
        """Write the table back when this process compiled texts it did not have, merged with
        what other processes wrote since."""
        if not self.added:
            return
        codes = {**_read(self.path), **self.codes}
        payload = marshal.dumps(codes)
        if len(payload) > LIMIT_BYTES:
            payload = marshal.dumps({text: codes[text] for text in self.used})
        _write(self.path, payload)
        self.added = 0


def install(cache_directory: str | None = None) -> Table | None:
    """Read this Python's table from ``cache_directory`` (default: the user's cache directory)
    and have ``dataclasses`` use it; nothing when there is no such directory (no home) or this
    Python keeps no compiled code. The table is written there once a process grew it."""
    if cache_directory is None:
        cache_directory = user_cache_directory()
    path = None if cache_directory is None else table_path(cache_directory)
    if path is None:
        return None
    table = Table(path, _read(path))
    dataclasses.exec = table.exec  # type: ignore[attr-defined]
    return table
