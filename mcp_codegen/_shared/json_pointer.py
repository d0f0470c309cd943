"""JSON pointers (RFC 6901) and the local ``$ref`` fragments that carry them (RFC 3986).

The only escaper and unescaper in the tree: a pointer built anywhere (findings, diff changes,
stability warnings, verify mismatches) and a ``$ref`` followed anywhere (transforms, profiles,
the diff's reference walk) agree on ``~0``, ``~1`` and percent-encoding.
"""

from __future__ import annotations

DEFS_PREFIXES = ("#/$defs/", "#/definitions/")


def escape(key: object) -> str:
    """One reference token: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    return str(key).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The key one reference token names."""
    return token.replace("~1", "/").replace("~0", "~")


def child(pointer: str, key: object) -> str:
    """The pointer of ``key`` inside the value at ``pointer``."""
    return f"{pointer}/{escape(key)}"


def tokens(pointer: str) -> list[str]:
    """The keys of a pointer, unescaped (``""`` is the whole document)."""
    return [unescape(token) for token in pointer.split("/")[1:]] if pointer else []


def fragment_tokens(ref: str) -> list[str] | None:
    """The keys a local ``$ref`` (``#/a/b%20c``) walks, percent-decoded then unescaped; ``None``
    for a reference that is not a local JSON-pointer fragment (another document, an anchor)."""
    if not ref.startswith("#"):
        return None
    fragment = ref[1:]
    if fragment and not fragment.startswith("/"):
        return None
    from urllib.parse import unquote  # ~4 ms: serving profiles imports this module

    return [unescape(unquote(token)) for token in fragment.split("/")[1:]] if fragment else []


def definition_name(ref: str, prefixes: tuple[str, ...] = DEFS_PREFIXES) -> str | None:
    """The definition a ``$ref`` of the form ``#/$defs/NAME`` names, or ``None``."""
    for prefix in prefixes:
        if ref.startswith(prefix):
            found = fragment_tokens(ref)
            return found[1] if found is not None and len(found) == 2 else None
    return None
