"""``mcp-codegen run``'s tools/list answers, serialised once and read from then on.

Standard library only. Shaping a server's listing through the wire models and serialising it
(after executing every generated module and checking each tool) was most of what the front paid
before its first answer. The result of the first shaping is stored, content-addressed like
``__pycache__``, in the project's cache directory (``.mcp-codegen-cache/listings/``, beside the
nearest ``pyproject.toml`` at or above the generated tree; nothing inside the checked-in tree):
one file per run target and tree, holding the serialised ``result`` of ``tools/list`` for every
revision the record answers ``initialize`` for, byte for byte what the shaping gives.

The key is the SHA-256 of everything the answer derives from: this entry format, the sources of
the ``mcp_codegen`` modules that load and shape it, the target's record object, and the bytes of
``__servers__.py``, the manifest and every module the manifest lists (by relative path: no
absolute path enters it). A generated module changed in any way (regenerated, edited, stale)
gives another key, so it is never answered from stored bytes. The SDK release is part of it
too: the front serves only when the installed ``mcp_types`` is the release ``wire_shapes.py``
was extracted from, and that file's source is hashed.

A missing entry, or a directory that cannot be written, means shaping as before. An entry that
does not read back exactly as written (truncated, altered: each payload carries its SHA-256) is
a miss with one note on stderr; it is then written again.
"""

from __future__ import annotations

import os
import sys

from mcp_codegen._shared.user_cache import user_cache_directory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

MAGIC = b"mcp-codegen-listing 1\n"
#: The project's cache directory (``mcp_codegen._generator.project.CACHE_DIR``) and its part here.
CACHE_DIR = ".mcp-codegen-cache"
LISTINGS = "listings"
#: Beside the nearest of these at or above the generated tree (``project.CONFIG_NAME``).
_CONFIG_NAMES = ("pyproject.toml", "mcp-codegen.toml")
_IGNORE = b"# Created by mcp-codegen; safe to delete.\n*\n"
_NONE = b"-"  # this revision's tools/list goes to the framework (no stored answer)
#: The sources (relative to the ``mcp_codegen`` package) that the stored answer derives from.
_DERIVING = (
    "runtime/_load/registry.py",
    "runtime/_stdio/fastpath.py",
    "runtime/_stdio/front.py",
    "runtime/_stdio/listing_cache.py",
    "runtime/_stdio/shapes.py",
    "runtime/_stdio/wire_json.py",
    "runtime/_stdio/wire_shapes.py",
    "_shared/format.py",
    "_shared/reader.py",
)
_CODEGEN = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


#: Below this many bytes the builtin SHA-256 (imported in ~0.5 ms, ~4 ms per MB) is faster than
#: OpenSSL's (~3 ms to import ``_hashlib``, ~1 ms per MB); both give the same digest.
_SMALL = 1 << 19


def sha256(size: int) -> object:
    """A SHA-256 object, from the implementation that is faster for ``size`` bytes."""
    if size < _SMALL:
        return _builtin_sha256()
    try:  # hashlib's OpenSSL SHA-256 without hashlib's other imports
        # ~6 ms to import: only for listings over 512 KiB
        from _hashlib import openssl_sha256
    except ImportError:  # an interpreter built without OpenSSL
        return _builtin_sha256()
    return openssl_sha256()


def _builtin_sha256() -> object:
    """CPython's own SHA-256: ``_sha2`` since 3.12, ``_sha256`` before."""
    try:
        from _sha2 import sha256 as builtin  # type: ignore[import-not-found]
    except ImportError:  # Python 3.11
        from _sha256 import sha256 as builtin  # type: ignore[import-not-found]
    return builtin()


def cache_directory(directory: str) -> str | None:
    """Where the listings of the generated tree at ``directory`` are stored: the project's
    cache directory beside the nearest configuration at or above the tree; else (a tree
    installed with a package) the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``); ``None``
    when there is neither. The entries are content-addressed: sharing a directory is safe."""
    current = os.path.dirname(os.path.abspath(directory))
    while True:
        for name in _CONFIG_NAMES:
            if os.path.isfile(os.path.join(current, name)):
                return os.path.join(current, CACHE_DIR, LISTINGS)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    user = user_cache_directory()
    return None if user is None else os.path.join(user, LISTINGS)


def entry_path(directory: str, target: str, modules: Iterable[str], servers_file: str) -> str:
    """Where the stored listing of ``target`` for the tree at ``directory`` is (or would be):
    ``<cache>/<target digest>-<tree digest>.bin``, or ``""`` when there is no cache directory.

    ``modules``: the manifest's ``MODULES`` (relative paths); ``servers_file``: the records'
    file name. Reads every generated file (~1 ms per MB)."""
    parts = [MAGIC]
    for relative in _DERIVING:
        _read(parts, f"mcp_codegen/{relative}", os.path.join(_CODEGEN, *relative.split("/")))
    parts.append(b"target\0" + target.encode() + b"\0")
    for relative in (servers_file, "__init__.py", *modules):
        _read(parts, relative, os.path.join(directory, *relative.split("/")))
    digest = sha256(sum(len(part) for part in parts))
    for part in parts:
        digest.update(part)  # type: ignore[attr-defined]
    cache = cache_directory(directory)
    if cache is None:
        return ""
    named = sha256(0)
    named.update(target.encode())  # type: ignore[attr-defined]
    prefix = named.hexdigest()[:16]  # type: ignore[attr-defined]
    return os.path.join(cache, f"{prefix}-{digest.hexdigest()}.bin")  # type: ignore[attr-defined]


def _read(parts: list[bytes], name: str, path: str) -> None:
    with open(path, "rb") as handle:
        data = handle.read()
    parts.append(f"{name}\0{len(data)}\0".encode())
    parts.append(data)


def read(path: str, revisions: Iterable[str]) -> dict[str, str | None] | None:
    """The stored listings by revision (``None``: the framework answers that revision), or
    ``None`` when there is no usable entry (missing; unreadable or altered: one note)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    try:
        return _parse(data, frozenset(revisions))
    except (ValueError, IndexError, UnicodeDecodeError) as exc:
        print(
            f"mcp-codegen run: note: ignoring the stored listing {path}: {exc}; the listing is "
            "shaped from the generated modules and stored again",
            file=sys.stderr,
            flush=True,
        )
        return None


def _parse(data: bytes, revisions: frozenset[str]) -> dict[str, str | None]:
    if not data.startswith(MAGIC):
        raise ValueError("not an entry of this format")
    index, lengths, digests, body = data[len(MAGIC) :].split(b"\n", 3)
    sizes = [int(size) for size in lengths.split()]
    sums = digests.split()
    if len(sums) != len(sizes) or sum(sizes) != len(body):
        raise ValueError("truncated or extended")
    payloads: list[str] = []
    start = 0
    for size, expected in zip(sizes, sums, strict=True):
        payload = body[start : start + size]
        start += size
        digest = sha256(len(body))
        digest.update(payload)  # type: ignore[attr-defined]
        if digest.hexdigest().encode() != expected:  # type: ignore[attr-defined]
            raise ValueError("a stored listing does not match its digest")
        payloads.append(payload.decode("utf-8"))
    listings: dict[str, str | None] = {}
    for item in index.split():
        revision, _, position = item.decode().partition("=")
        listings[revision] = None if position == "-" else payloads[int(position)]
    if set(listings) != revisions:
        raise ValueError("its revisions are not the record's")
    return listings


def write(path: str, listings: dict[str, str | None]) -> None:
    """Store ``listings`` at ``path`` (atomically; silently not when the directory is not
    writable), and drop the target's entries for earlier trees. Equal payloads are stored
    once; the bytes depend on the listings alone."""
    payloads: list[bytes] = []
    index: list[bytes] = []
    for revision in sorted(listings):
        text = listings[revision]
        if text is None:
            index.append(revision.encode() + b"=" + _NONE)
            continue
        payload = text.encode("utf-8")
        if payload not in payloads:
            payloads.append(payload)
        index.append(f"{revision}={payloads.index(payload)}".encode())
    sums = []
    total = sum(len(payload) for payload in payloads)
    for payload in payloads:
        digest = sha256(total)
        digest.update(payload)  # type: ignore[attr-defined]
        sums.append(digest.hexdigest().encode())  # type: ignore[attr-defined]
    data = b"".join(
        (
            MAGIC,
            b" ".join(index),
            b"\n",
            b" ".join(str(len(payload)).encode() for payload in payloads),
            b"\n",
            b" ".join(sums),
            b"\n",
            *payloads,
        )
    )
    partial = f"{path}.{os.getpid()}.tmp"
    cache = os.path.dirname(path)
    try:
        os.makedirs(cache, exist_ok=True)
        ignore = os.path.join(os.path.dirname(cache), ".gitignore")
        if not os.path.exists(ignore):
            with open(ignore, "wb") as handle:
                handle.write(_IGNORE)
        with open(partial, "wb") as handle:
            handle.write(data)
        os.replace(partial, path)
        _drop_earlier(path)
    except OSError:
        try:  # noqa: SIM105 (contextlib: an import before the answer)
            os.unlink(partial)
        except OSError:
            pass


def _drop_earlier(path: str) -> None:
    """Remove the same target's entries keyed on earlier trees (an entry per tree change
    would pile up: the tree's own ``generate`` no longer sees them)."""
    cache, name = os.path.split(path)
    prefix = name.partition("-")[0] + "-"
    for other in os.listdir(cache):
        if other.startswith(prefix) and other.endswith(".bin") and other != name:
            try:  # noqa: SIM105 (contextlib: an import before the answer)
                os.unlink(os.path.join(cache, other))
            except OSError:
                pass
