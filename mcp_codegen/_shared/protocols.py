"""MCP protocol revisions and the output variant each one gets (standard library only).

Up to 2025-11-25 an ``outputSchema`` must have ``"type": "object"`` at its root and
``structuredContent`` must be a JSON object, so a tool whose return value is not an object is
served *boxed*: ``{"type": "object", "properties": {FIELD: <schema>}, "required": [FIELD]}`` and
``structuredContent = {FIELD: value}``. From 2026-07-28 (SEP-2106) an output schema may be any
JSON Schema 2020-12 and ``structuredContent`` any JSON value: the tool is served *natural*.

The generator records both variants (docs/module-format.md, format 2); the runtime picks one per
request from the negotiated protocol version; ``diff`` and ``export`` read them the same way.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the registry imports this module: no typing import at run time
    from collections.abc import Iterable, Mapping
    from typing import Any, Literal

    Variant = Literal["natural", "boxed"]

#: The revisions the ``protocol`` config key accepts, oldest first (the default: all of them).
REVISIONS: tuple[str, ...] = ("2025-06-18", "2025-11-25", "2026-07-28")
#: Every released revision, oldest first: ordering questions are answered from this list,
#: never by comparing strings (the SDK's ``mcp_types.version`` does the same).
KNOWN_REVISIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", *REVISIONS)
#: The first revision whose output schemas and structured content are natural.
FIRST_NATURAL = "2026-07-28"
#: The last revision that gets the boxed variant.
LAST_BOXED = "2025-11-25"
#: What a format-1 module (written before ``protocol`` existed) was built for.
FORMAT1_PROTOCOLS: tuple[str, ...] = ("2025-06-18", "2025-11-25")
#: The ``x-codegen`` key holding what the natural variant serves differently (format 2).
NATURAL_KEY = "natural"


def variant_for(protocol_version: str | None) -> Variant:
    """The output variant a client that negotiated ``protocol_version`` must get.

    ``None`` means the newest revision. A version this list does not know gets the boxed
    variant: an object root is valid JSON Schema in every revision, a bare value is not.
    """
    if protocol_version is None:
        return "natural"
    if protocol_version not in KNOWN_REVISIONS:
        return "boxed"
    natural = KNOWN_REVISIONS.index(FIRST_NATURAL)
    return "natural" if KNOWN_REVISIONS.index(protocol_version) >= natural else "boxed"


def sort_revisions(revisions: Iterable[str]) -> tuple[str, ...]:
    """Known revisions, without repeats, oldest first."""
    chosen = set(revisions)
    return tuple(revision for revision in KNOWN_REVISIONS if revision in chosen)


def variants_of(protocols: Iterable[str]) -> tuple[Variant, ...]:
    """The variants a module built for ``protocols`` holds, the top-level one first.

    The top level is the boxed variant whenever an older revision is served: it is the one every
    revision accepts, so a reader that knows nothing of variants still serves valid tools.
    """
    found = {variant_for(revision) for revision in protocols}
    return tuple(variant for variant in ("boxed", "natural") if variant in found)


def tool_variant(
    tool: Mapping[str, Any], private: Mapping[str, Any], variant: Variant
) -> tuple[dict[str, Any], str | None]:
    """``tool`` (the wire keys of a generated tool) as served in ``variant``, and its box field.

    ``private`` is the tool's ``x-codegen`` dict. Only a tool with ``x-codegen.natural`` differs
    between variants; every other tool is served as written, in every revision.
    """
    box = private.get("box")
    field = box["field"] if isinstance(box, dict) else None
    natural = private.get(NATURAL_KEY)
    if variant == "boxed" or not isinstance(natural, dict):
        return dict(tool), field
    # Same key order as the tool dict: the natural outputSchema takes the boxed one's place.
    served = {
        key: natural["outputSchema"] if key == "outputSchema" else value
        for key, value in tool.items()
    }
    return served, None


def missing_variant(protocols: Iterable[str], protocol_version: str | None) -> str | None:
    """Why a module built for ``protocols`` cannot serve ``protocol_version``; ``None`` if it can.

    Only one case fails: a module built for 2026-07-28 alone holds natural schemas, which an
    older revision does not accept. Every other combination has the variant, or a boxed top
    level that every revision accepts.
    """
    if variant_for(protocol_version) == "boxed" and variants_of(protocols) == ("natural",):
        return (
            f"the generated schemas were built for protocol {', '.join(protocols)} only, and "
            f"{protocol_version} needs object output schemas; add an older revision to the "
            "`protocol` config key and regenerate"
        )
    return None


def protocols_problem(protocols: object) -> str | None:
    """What is wrong with a generated ``PROTOCOLS`` value; ``None`` when nothing is."""
    if (
        isinstance(protocols, tuple | list)
        and protocols
        and all(isinstance(revision, str) for revision in protocols)
        and tuple(protocols) == sort_revisions(protocols)
        and len(set(protocols)) == len(protocols)
    ):
        return None
    return (
        "PROTOCOLS must be a tuple of protocol revisions, oldest first, from "
        f"{', '.join(KNOWN_REVISIONS)}"
    )


def natural_problem(tool: Mapping[str, Any], private: Mapping[str, Any]) -> str | None:
    """What is wrong with a tool's ``x-codegen.natural``; ``None`` when absent or well formed."""
    natural = private.get(NATURAL_KEY)
    if natural is None or (
        isinstance(natural, dict)
        and isinstance(natural.get("outputSchema"), dict)
        and private.get("box") is not None
        and isinstance(tool.get("outputSchema"), dict)
    ):
        return None
    return (
        "has a malformed x-codegen.natural: a boxed tool's {'outputSchema': {...}} for "
        "protocol 2026-07-28"
    )
