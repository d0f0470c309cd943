"""Profile ``gemini``: the OpenAPI 3.0 schema subset of Gemini function declarations.

Gemini's ``Schema`` (https://ai.google.dev/api/caching#Schema, and the Vertex AI reference
https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Schema) is "a select
subset of an OpenAPI 3.0 schema object": no ``$ref``, ``const``, type arrays, ``oneOf`` /
``allOf`` / ``not`` or ``additionalProperties`` on the function-declaration path
(gemini-cli#13326); ``nullable`` instead of a null type; string-valued ``enum``; formats
``float`` / ``double`` for numbers, ``int32`` / ``int64`` for integers and ``enum`` /
``date-time`` for strings.
"""

from __future__ import annotations

from mcp_codegen._profiles._base import (
    Profile,
    Report,
    children,
    drop_kind,
    rewrite,
    strip_keywords,
    without,
)
from mcp_codegen._profiles._rewrites import merge_all_of, one_of_to_any_of
from mcp_codegen._shared.json_pointer import definition_name
from mcp_codegen._shared.schema_transforms import recursive_definitions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mcp_codegen._profiles._base import Schema

NAME = "gemini"

SUPPORTED = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)
FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "number": frozenset({"float", "double"}),
    "integer": frozenset({"int32", "int64"}),
}


def inline_all_refs(schema: Schema, at: str, report: Report) -> Schema:
    """Every ``$ref`` replaced by its definition; a recursive one cannot be expressed."""
    defs: dict[str, Schema] = dict(schema.get("$defs") or {})
    recursive = recursive_definitions(defs)

    def expand(node: Schema, where: str) -> Schema:
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = definition_name(ref, ("#/$defs/",)) or ref
            if name in recursive or name not in defs:
                why = "is recursive" if name in recursive else "cannot be resolved"
                report.note(
                    f"{where}/$ref",
                    "error",
                    f"`$ref` {ref!r} {why}: Gemini has no `$ref`, so the value is left "
                    "unconstrained",
                )
                return without(node, "$ref")
            return expand({**defs[name], **without(node, "$ref")}, where)
        return children(node, where, expand)

    result = expand(without(schema, "$defs"), at)
    if defs:
        report.note(f"{at}/$defs", "changed", "`$defs` inlined: Gemini has no `$ref`")
    return result


def const_to_enum(schema: Schema, at: str, report: Report) -> Schema:
    """``const`` becomes a one-value ``enum``."""

    def visit(node: Schema, where: str) -> Schema:
        if "const" not in node:
            return node
        value = node["const"]
        report.note(f"{where}/const", "changed", "`const` became a one-value `enum`")
        return {**without(node, "const"), "enum": [value]}

    return rewrite(schema, at, visit)


def _strip_null(branches: list[Any]) -> tuple[list[Any], bool]:
    kept = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
    return kept, len(kept) != len(branches)


def nullable_types(schema: Schema, at: str, report: Report) -> Schema:
    """Type arrays and ``null`` alternatives become ``nullable: true``."""

    def visit(node: Schema, where: str) -> Schema:
        kind = node.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            result = without(node, "type")
            if "null" in kind:
                result["nullable"] = True
            if len(kinds) == 1:
                result["type"] = kinds[0]
            elif kinds:
                result["anyOf"] = [{"type": k} for k in kinds]
            report.note(f"{where}/type", "changed", "type array became `type` / `nullable`")
            return result
        branches = node.get("anyOf")
        if isinstance(branches, list):
            kept, had_null = _strip_null(branches)
            if had_null:
                report.note(f"{where}/anyOf", "changed", "`null` alternative became `nullable`")
                result = {**without(node, "anyOf"), "nullable": True}
                if len(kept) == 1 and isinstance(kept[0], dict):
                    single = kept[0]
                    if not (single.keys() & result.keys() - {"nullable"}):
                        return {**single, **result}
                return {**result, "anyOf": kept} if kept else result
        enum = node.get("enum")
        if isinstance(enum, list) and None in enum:
            rest = [v for v in enum if v is not None]
            result = {**without(node, "enum"), "nullable": True}
            if rest:
                report.note(f"{where}/enum", "changed", "`null` in `enum` became `nullable`")
                return {**result, "enum": rest}
            report.note(  # at the node: the enum may have been a `const` in the original
                where,
                "loosened",
                "an `enum` of only null cannot be expressed (Gemini has no null type on this "
                "path): the value is left unconstrained",
            )
            return result
        return node

    return rewrite(schema, at, visit)


def string_enums(schema: Schema, at: str, report: Report) -> Schema:
    """Gemini enums hold strings: a non-string ``enum`` is dropped."""

    def visit(node: Schema, where: str) -> Schema:
        enum = node.get("enum")
        if not isinstance(enum, list) or all(isinstance(v, str) for v in enum):
            return node
        report.note(  # at the node: the enum may have been a `const` in the original
            where,
            "loosened",
            "`enum` dropped: Gemini enums hold only strings, and these values are not all strings",
        )
        return without(node, "enum")

    return rewrite(schema, at, visit)


def drop_additional_properties(schema: Schema, at: str, report: Report) -> Schema:
    """No ``additionalProperties`` (Gemini's function declarations reject it)."""

    def visit(node: Schema, where: str) -> Schema:
        if "additionalProperties" not in node:
            return node
        extra = node["additionalProperties"]
        if extra is not True and extra != {}:
            report.note(
                f"{where}/additionalProperties",
                "loosened",
                "`additionalProperties` dropped: Gemini does not support it, so the client no "
                "longer checks extra keys",
            )
        return without(node, "additionalProperties")

    return rewrite(schema, at, visit)


def strip_formats(schema: Schema, at: str, report: Report) -> Schema:
    """Only the formats Gemini documents for the node's type."""

    def visit(node: Schema, where: str) -> Schema:
        value = node.get("format")
        if value is None or value in FORMATS.get(node.get("type"), ()):  # type: ignore[arg-type]
            return node
        report.note(
            f"{where}/format",
            "loosened",
            f"format {value!r} dropped: Gemini does not support it for type {node.get('type')!r}",
        )
        return without(node, "format")

    return rewrite(schema, at, visit)


def _why(keyword: str, value: Any) -> tuple[str, str]:
    return drop_kind(keyword), f"`{keyword}` dropped: Gemini does not support it"


strip_unsupported = strip_keywords(SUPPORTED, _why)

PROFILE = Profile(
    NAME,
    "Gemini function declarations (OpenAPI 3.0 subset)",
    (
        inline_all_refs,
        merge_all_of,
        one_of_to_any_of,
        const_to_enum,
        nullable_types,
        string_enums,
        drop_additional_properties,
        strip_unsupported,
        strip_formats,
    ),
)
