"""Profile ``openai-strict``: OpenAI Structured Outputs / strict function calling.

The supported subset and the limits are OpenAI's documented ones ("Structured Outputs: supported
schemas", https://platform.openai.com/docs/guides/structured-outputs#supported-schemas, as
summarised in February 2026 by https://jsonschemaprofiles.unitvectorylabs.com/schemas/openai):
every object closed and every property required (optional ones as a union with null), no
``allOf`` / ``not`` / ``if``, string ``pattern`` and ``format`` (nine formats), numeric bounds and
``multipleOf``, array ``minItems`` / ``maxItems``; at most 5,000 object properties, 10 levels of
object nesting, 1,000 enum values, 120,000 characters of property names, definition names, enum
and const values, and 15,000 characters for one string enum of more than 250 values.
"""

from __future__ import annotations

from mcp_codegen._profiles._base import (
    Profile,
    Report,
    accepts_null,
    argument_path,
    drop_kind,
    escape,
    is_object,
    rewrite,
    strip_keywords,
    without,
)
from mcp_codegen._profiles._rewrites import (
    merge_all_of,
    one_of_to_any_of,
    root_combinators,
    unravel_ref_siblings,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mcp_codegen._profiles._base import Schema

NAME = "openai-strict"

SUPPORTED = frozenset(
    {
        "type",
        "title",
        "description",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "$ref",
        "$defs",
        "pattern",
        "format",
        "multipleOf",
        "minimum",
        "exclusiveMinimum",
        "maximum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    }
)
FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
MAX_PROPERTIES = 5_000
MAX_NESTING = 10
MAX_ENUM_VALUES = 1_000
MAX_STRING_TOTAL = 120_000
LARGE_ENUM = 250
MAX_LARGE_ENUM_CHARS = 15_000


def _why(keyword: str, value: Any) -> tuple[str, str]:
    return drop_kind(keyword), f"`{keyword}` dropped: OpenAI strict mode does not support it"


strip_unsupported = strip_keywords(SUPPORTED, _why)


def strip_formats(schema: Schema, at: str, report: Report) -> Schema:
    """Only the nine formats OpenAI strict mode knows."""

    def visit(node: Schema, where: str) -> Schema:
        value = node.get("format")
        if value is None or value in FORMATS:
            return node
        report.note(
            f"{where}/format",
            "loosened",
            f"format {value!r} dropped: OpenAI strict mode supports only "
            f"{', '.join(sorted(FORMATS))}",
        )
        return without(node, "format")

    return rewrite(schema, at, visit)


def close_objects(schema: Schema, at: str, report: Report) -> Schema:
    """``additionalProperties: false`` on every object."""

    def visit(node: Schema, where: str) -> Schema:
        if not is_object(node) or node.get("additionalProperties") is False:
            return node
        extra = node.get("additionalProperties")
        if extra is not None and extra is not True and extra != {}:
            report.note(
                f"{where}/additionalProperties",
                "error",
                "an object with schema-checked extra keys (a map) cannot be expressed in OpenAI "
                "strict mode: it would accept only the declared properties",
            )
        elif extra is not None or (not node.get("properties") and where != at):
            # (A root without properties is a tool without arguments: closing it is exact.)
            report.note(
                f"{where}/additionalProperties",
                "error",
                "an open object cannot be expressed in OpenAI strict mode: closing it leaves the "
                "model only the declared properties",
            )
        result = {**node, "additionalProperties": False}
        if "type" not in result:
            result = {"type": "object", **result}
        return result

    return rewrite(schema, at, visit)


def _nullable(node: Schema) -> Schema:
    kind = node.get("type")
    if isinstance(kind, str) and not ({"anyOf", "$ref", "const"} & node.keys()):
        result = {**node, "type": [kind, "null"]}
        if isinstance(node.get("enum"), list):
            result["enum"] = [*node["enum"], None]
        return result
    if isinstance(kind, list) and "enum" not in node and "const" not in node:
        return {**node, "type": [*kind, "null"]}
    if isinstance(node.get("anyOf"), list) and len(node) == 1:
        return {"anyOf": [*node["anyOf"], {"type": "null"}]}
    annotations = {k: v for k, v in node.items() if k in ("title", "description")}
    body = without(node, "title", "description")
    return {**annotations, "anyOf": [body, {"type": "null"}]}


def require_all(schema: Schema, at: str, report: Report) -> Schema:
    """Every property required; an optional one becomes nullable, and the runtime reads its
    ``null`` as "absent"."""

    def visit(node: Schema, where: str) -> Schema:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return node
        required = set(node.get("required") or ())
        changed = {}
        for name, sub in properties.items():
            if name in required or not isinstance(sub, dict):
                continue
            pointer = f"{where}/properties/{escape(name)}"
            path = argument_path(pointer, at)
            if not accepts_null(sub):
                changed[name] = _nullable(sub)
            if path is None:
                report.note(
                    pointer,
                    "loosened",
                    "optional property made required and nullable inside a definition: the "
                    "runtime cannot tell its null from a real one, so the server rejects null",
                )
            else:
                report.null_means_absent.append(path)
                report.note(
                    pointer,
                    "changed",
                    "optional property made required and nullable; the runtime reads null as "
                    "absent",
                )
        return {**node, "properties": {**properties, **changed}, "required": list(properties)}

    return rewrite(schema, at, visit)


def _walk_objects(node: Any, depth: int, found: dict[str, int], enums: list[list[Any]]) -> None:
    if not isinstance(node, dict):
        return
    if isinstance(node.get("enum"), list):
        enums.append(node["enum"])
    if "const" in node:
        found["strings"] += len(str(node["const"]))
    properties = node.get("properties")
    level = depth + 1 if isinstance(properties, dict) else depth
    found["depth"] = max(found["depth"], level)
    if isinstance(properties, dict):
        found["properties"] += len(properties)
        found["strings"] += sum(len(name) for name in properties)
        for sub in properties.values():
            _walk_objects(sub, level, found, enums)
    for name, sub in (node.get("$defs") or {}).items():
        found["strings"] += len(name)
        _walk_objects(sub, 0, found, enums)
    for key in ("items", "additionalProperties"):
        _walk_objects(node.get(key), level, found, enums)
    for sub in node.get("anyOf") or ():
        _walk_objects(sub, depth, found, enums)


def size_limits(tool: dict[str, Any], report: Report) -> None:
    """OpenAI's documented size limits for one strict schema."""
    found = {"properties": 0, "depth": 0, "strings": 0}
    enums: list[list[Any]] = []
    _walk_objects(tool.get("inputSchema"), 0, found, enums)
    values = sum(len(enum) for enum in enums)
    found["strings"] += sum(len(v) for enum in enums for v in enum if isinstance(v, str))
    where = "/inputSchema"
    for measured, limit, what in (
        (found["properties"], MAX_PROPERTIES, "object properties"),
        (found["depth"], MAX_NESTING, "levels of object nesting"),
        (values, MAX_ENUM_VALUES, "enum values"),
        (found["strings"], MAX_STRING_TOTAL, "characters of names, enum and const values"),
    ):
        if measured > limit:
            report.note(where, "error", f"{measured} {what}: OpenAI's limit is {limit}")
    for enum in enums:
        strings = [v for v in enum if isinstance(v, str)]
        chars = sum(len(v) for v in strings)
        if len(strings) > LARGE_ENUM and chars > MAX_LARGE_ENUM_CHARS:
            report.note(
                where,
                "error",
                f"a string enum of {len(strings)} values has {chars} characters: OpenAI allows "
                f"{MAX_LARGE_ENUM_CHARS} when an enum has more than {LARGE_ENUM} values",
            )


PROFILE = Profile(
    NAME,
    "OpenAI strict function calling / Structured Outputs",
    (
        root_combinators,
        unravel_ref_siblings,
        merge_all_of,
        one_of_to_any_of,
        strip_unsupported,
        strip_formats,
        close_objects,
        require_all,
    ),
    (size_limits,),
)
