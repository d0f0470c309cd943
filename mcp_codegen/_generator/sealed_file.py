"""Files sealed by a magic line and the SHA-256 of their payload, written atomically.

Runs in: parent, worker.

The build cache's entries (``mcp_codegen._generator.cache.stored_entries``) and the compiled
dataclass methods (``mcp_codegen._generator.compiled_methods``) are kept this way. A reader that
finds another magic line, or a digest that does not match, treats the file as damaged: a
truncated or corrupted file is never used. A writer writes a temporary file beside the target and renames
it over the target, so a concurrent reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os

#: The prefix of the temporary files a writer renames into place.
TEMPORARY_PREFIX = ".tmp."
#: A temporary file this old was left by a writer that was killed.
STALE_TEMPORARY_S = 3600
_DIGEST_BYTES = 32


def unsealed(data: bytes, magic: bytes) -> memoryview | None:
    """The payload of ``data`` sealed with ``magic``; ``None`` when ``data`` is truncated,
    corrupted or another kind of file. The payload is a view, not a copy (an entry is MBs)."""
    head = len(magic)
    payload = memoryview(data)[head + _DIGEST_BYTES :]
    if (
        data[:head] != magic
        or hashlib.sha256(payload).digest() != data[head : head + _DIGEST_BYTES]
    ):
        return None
    return payload


def write_sealed(path: str | os.PathLike[str], magic: bytes, payload: bytes) -> int:
    """Write ``payload`` sealed with ``magic`` to ``path`` atomically, in its existing directory;
    returns the bytes written. On an ``OSError`` nothing is left behind and the error is raised."""
    # Imported here: most processes that read sealed files never write one.
    import tempfile

    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=TEMPORARY_PREFIX)
    try:
        with os.fdopen(fd, "wb") as handle:  # three writes: the payload is not copied
            handle.write(magic)
            handle.write(hashlib.sha256(payload).digest())
            handle.write(payload)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return len(magic) + _DIGEST_BYTES + len(payload)
