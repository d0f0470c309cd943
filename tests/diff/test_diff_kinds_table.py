"""The change table: (old tool, new tool, expected kinds), each row run forwards and backwards.

Expected kinds follow the rules, not the implementation: inputs are contravariant (a change is
compatible when every old call still validates), outputs covariant (compatible when every new
result validates against the old schema).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from mcp_codegen._diff.changes import ChangeKind
from mcp_codegen._diff.classify import diff_sides
from mcp_codegen._diff.classify.sides import MODULE_KINDS
from mcp_codegen._diff.clients import CLIENT_KINDS
from tests.diff.diff_support import INT, NUM, STR, boxed, obj, side, tool


@dataclass(frozen=True)
class Row:
    id: str
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    forward: frozenset[str]
    backward: frozenset[str] | None  # kinds when old and new swap; None: not meaningful


def row(
    id: str,
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    forward: set[str],
    backward: set[str] | None = None,
) -> Row:
    return Row(id, old, new, frozenset(forward), None if backward is None else frozenset(backward))


def inp(schema: dict[str, Any], required: bool = False) -> dict[str, Any]:
    """A tool whose one input ``p`` has ``schema``."""
    return tool(inputs={"p": schema}, required=("p",) if required else ())


def out(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    """A tool whose output object has one field ``f`` with ``schema``."""
    return tool(output=obj({"f": schema}, ("f",) if required else ()))


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


book = obj({"title": STR, "year": INT}, ("title",))
book_with_isbn = obj({"title": STR, "year": INT, "isbn": STR}, ("title",))
node_def = {
    "type": "object",
    "properties": {"value": INT, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    "required": ["value"],
}


def recursive(node: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "required": ["tree"],
        "$defs": {"Node": node},
    }


node_with_label = {**node_def, "properties": {**node_def["properties"], "label": STR}}

ROWS: list[Row] = [
    # --- tools
    row("unchanged", tool(), tool(), set(), set()),
    row("tool removed", tool("a", {"q": STR}), None, {"tool_removed"}, {"tool_added"}),
    row(
        "renamed, same function",
        tool("search", {"q": STR}, function="pkg:search"),
        tool("find", {"q": STR}, function="pkg:search"),
        {"tool_renamed"},
        {"tool_renamed"},
    ),
    row(
        "renamed, same schemas",
        tool("search", {"q": STR}, output=obj({"hits": INT})),
        tool("find", {"q": STR}, output=obj({"hits": INT})),
        {"tool_renamed"},
        {"tool_renamed"},
    ),
    row(
        "renamed and an optional input added",
        tool("search", {"q": STR}, function="pkg:search"),
        tool("find", {"q": STR, "limit": INT}, function="pkg:search"),
        {"tool_renamed", "input_optional_added"},
        {"tool_renamed", "input_removed"},
    ),
    row(
        "unrelated tools swapped are not a rename",
        tool("ping"),
        tool("delete_everything", {"confirm": {"type": "boolean"}}, ("confirm",)),
        {"tool_removed", "tool_added"},
        {"tool_removed", "tool_added"},
    ),
    # --- inputs: presence and requiredness
    row(
        "required input added",
        tool(inputs={"q": STR}, required=("q",)),
        tool(inputs={"q": STR, "n": INT}, required=("q", "n")),
        {"input_required_added"},
        {"input_removed"},
    ),
    row(
        "optional input added",
        tool(inputs={"q": STR}),
        tool(inputs={"q": STR, "n": INT}),
        {"input_optional_added"},
        {"input_removed"},
    ),
    row(
        "input became required",
        tool(inputs={"q": STR}),
        tool(inputs={"q": STR}, required=("q",)),
        {"input_made_required"},
        {"input_made_optional"},
    ),
    row(
        "nested required input added",
        inp(obj({"a": STR}, ("a",))),
        inp(obj({"a": STR, "b": STR}, ("a", "b"))),
        {"input_required_added"},
        {"input_removed"},
    ),
    row(
        "optional input added to a closed input",
        tool(input_schema=obj({"q": STR}, additionalProperties=False)),
        tool(input_schema=obj({"q": STR, "n": INT}, additionalProperties=False)),
        {"input_optional_added"},
        {"input_removed"},
    ),
    # --- inputs: types
    row(
        "integer input widened to number",
        inp(INT),
        inp(NUM),
        {"input_type_widened"},
        {"input_type_narrowed"},
    ),
    row(
        "string input changed to integer",
        inp(STR),
        inp(INT),
        {"input_type_changed"},
        {"input_type_changed"},
    ),
    row(
        "input made nullable",
        inp(STR),
        inp(nullable(STR)),
        {"input_type_widened"},
        {"input_type_narrowed"},
    ),
    row(
        "input type list narrowed",
        inp({"type": ["string", "integer"]}),
        inp(STR),
        {"input_type_narrowed"},
        {"input_type_widened"},
    ),
    row(
        "untyped input gets a type",
        inp({}),
        inp(STR),
        {"input_type_narrowed"},
        {"input_type_widened"},
    ),
    row(
        "array items narrowed",
        inp({"type": "array", "items": NUM}),
        inp({"type": "array", "items": INT}),
        {"input_type_narrowed"},
        {"input_type_widened"},
    ),
    row(
        "dict values widened",
        inp({"type": "object", "additionalProperties": INT}),
        inp({"type": "object", "additionalProperties": NUM}),
        {"input_type_widened"},
        {"input_type_narrowed"},
    ),
    row(
        "nullable union keeps constraint changes inside the branch",
        inp(nullable({"type": "string", "maxLength": 5})),
        inp(nullable({"type": "string", "maxLength": 3})),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "union narrowed to one branch with a tighter constraint",
        inp(nullable({"type": "string", "maxLength": 5})),
        inp({"type": "string", "maxLength": 3}),
        {"input_type_narrowed", "input_constraint_tightened"},
        {"input_type_widened", "input_constraint_loosened"},
    ),
    row(
        "union branch of the same type added",
        inp({"anyOf": [obj({"a": STR}, ("a",))]}),
        inp({"anyOf": [obj({"a": STR}, ("a",)), obj({"b": STR}, ("b",))]}),
        {"input_type_widened"},
        {"union_changed"},
    ),
    row(
        "oneOf branch of an overlapping type added",
        inp({"oneOf": [obj({"a": STR}), {"type": "null"}]}),
        inp({"oneOf": [obj({"a": STR}), obj({"b": STR}), {"type": "null"}]}),
        {"union_changed"},
        {"union_changed"},
    ),
    row(
        "input branch of an overlapping oneOf widened",
        inp({"oneOf": [obj({"a": STR}), obj({"b": STR}, ("b",))]}),
        inp({"oneOf": [obj({"a": STR, "c": INT}), obj({"b": STR}, ("b",))]}),
        {"input_optional_added", "union_changed"},
        {"input_removed", "union_changed"},
    ),
    row(
        "input branch of a oneOf told apart by type widened",
        inp({"oneOf": [{**INT, "maximum": 5}, STR]}),
        inp({"oneOf": [{**INT, "maximum": 9}, STR]}),
        {"input_constraint_loosened"},
        {"input_constraint_tightened"},
    ),
    # --- inputs: enum and const
    row(
        "enum value removed from an input",
        inp({"type": "string", "enum": ["a", "b"]}),
        inp({"type": "string", "enum": ["a"]}),
        {"input_enum_value_removed"},
        {"input_enum_value_added"},
    ),
    row(
        "enum value replaced",
        inp({"enum": ["a", "b"]}),
        inp({"enum": ["a", "c"]}),
        {"input_enum_value_removed", "input_enum_value_added"},
        {"input_enum_value_removed", "input_enum_value_added"},
    ),
    row(
        "const widened to an enum",
        inp({"type": "string", "const": "x"}),
        inp({"type": "string", "enum": ["x", "y"]}),
        {"input_enum_value_added"},
        {"input_enum_value_removed"},
    ),
    row(
        "enum of mixed types loses its integer",
        inp({"enum": ["a", 1]}),
        inp({"enum": ["a"]}),
        {"input_enum_value_removed"},
        {"input_enum_value_added"},
    ),
    row(
        "1 and 1.0 are the same value", inp({"enum": [1, 2]}), inp({"enum": [1.0, 2]}), set(), set()
    ),
    row(
        "true is not 1",
        inp({"enum": [1]}),
        inp({"enum": [True]}),
        {"input_enum_value_removed", "input_enum_value_added"},
        {"input_enum_value_removed", "input_enum_value_added"},
    ),
    row(
        "enum restriction added to a string",
        inp(STR),
        inp({"type": "string", "enum": ["a"]}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "enum of integers replaced by the integer type",
        inp({"enum": [1, 2]}),
        inp(INT),
        {"input_constraint_loosened"},
        {"input_constraint_tightened"},
    ),
    # --- inputs: constraints
    row(
        "maxLength lowered",
        inp({**STR, "maxLength": 10}),
        inp({**STR, "maxLength": 5}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "minLength added",
        inp(STR),
        inp({**STR, "minLength": 1}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "minimum raised",
        inp({**INT, "minimum": 0}),
        inp({**INT, "minimum": 1}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "maximum added",
        inp(NUM),
        inp({**NUM, "maximum": 100}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "exclusive minimum relaxed to inclusive on numbers",
        inp({**NUM, "exclusiveMinimum": 0}),
        inp({**NUM, "minimum": 0}),
        {"input_constraint_loosened"},
        {"input_constraint_tightened"},
    ),
    row(
        "exclusive and inclusive bounds agree on integers",
        inp({**INT, "exclusiveMinimum": 0}),
        inp({**INT, "minimum": 1}),
        set(),
        set(),
    ),
    row(
        "minItems added",
        inp({"type": "array", "items": STR}),
        inp({"type": "array", "items": STR, "minItems": 1}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "maxItems raised",
        inp({"type": "array", "maxItems": 5}),
        inp({"type": "array", "maxItems": 10}),
        {"input_constraint_loosened"},
        {"input_constraint_tightened"},
    ),
    row(
        "pattern added",
        inp(STR),
        inp({**STR, "pattern": "^[a-z]+$"}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "pattern replaced",
        inp({**STR, "pattern": "^[a-z]+$"}),
        inp({**STR, "pattern": "^[a-z0-9]+$"}),
        {"pattern_changed"},
        {"pattern_changed"},
    ),
    row(
        "format added",
        inp(STR),
        inp({**STR, "format": "email"}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "format replaced",
        inp({**STR, "format": "date"}),
        inp({**STR, "format": "date-time"}),
        {"format_changed"},
        {"format_changed"},
    ),
    row(
        "multipleOf refined",
        inp({**INT, "multipleOf": 2}),
        inp({**INT, "multipleOf": 4}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "multipleOf changed to a coprime step",
        inp({**INT, "multipleOf": 2}),
        inp({**INT, "multipleOf": 3}),
        {"input_constraint_tightened"},
        {"input_constraint_tightened"},
    ),
    row(
        "uniqueItems required",
        inp({"type": "array"}),
        inp({"type": "array", "uniqueItems": True}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "input closed to additional properties",
        tool(input_schema=obj({"q": STR})),
        tool(input_schema=obj({"q": STR}, additionalProperties=False)),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    # --- defaults and documentation
    row(
        "default changed",
        inp({**INT, "default": 10}),
        inp({**INT, "default": 20}),
        {"default_changed"},
        {"default_changed"},
    ),
    row(
        "optional made nullable with a null default",
        inp(STR),
        inp({**nullable(STR), "default": None}),
        {"input_type_widened", "default_changed"},
        {"input_type_narrowed", "default_changed"},
    ),
    row(
        "input description changed",
        inp({**STR, "description": "a"}),
        inp({**STR, "description": "b"}),
        {"description_changed"},
        {"description_changed"},
    ),
    row(
        "input title changed",
        inp({**STR, "title": "P"}),
        inp({**STR, "title": "Query"}),
        {"title_changed"},
        {"title_changed"},
    ),
    row(
        "examples changed",
        inp({**STR, "examples": ["x"]}),
        inp({**STR, "examples": ["y"]}),
        {"schema_annotation_changed"},
        {"schema_annotation_changed"},
    ),
    row(
        "input deprecated",
        inp(STR),
        inp({**STR, "deprecated": True}),
        {"schema_annotation_changed"},
        {"schema_annotation_changed"},
    ),
    row("vendor extension keys are ignored", inp(STR), inp({**STR, "x-order": 3}), set(), set()),
    row(
        "tool title changed",
        tool(title="Search"),
        tool(title="Find"),
        {"title_changed"},
        {"title_changed"},
    ),
    row(
        "tool description changed",
        tool(description="a"),
        tool(description="b"),
        {"description_changed"},
        {"description_changed"},
    ),
    row(
        "icons added",
        tool(),
        tool(icons=[{"src": "https://x/icon.png"}]),
        {"tool_metadata_changed"},
        {"tool_metadata_changed"},
    ),
    # --- annotations
    row(
        "read-only tool becomes writable (and so destructive by default)",
        tool(annotations={"readOnlyHint": True}),
        tool(annotations={"readOnlyHint": False}),
        {"read_only_hint_disabled", "destructive_hint_enabled", "idempotent_hint_disabled"},
        {"annotation_changed"},
    ),
    row(
        "read-only tool becomes writable but not destructive",
        tool(annotations={"readOnlyHint": True}),
        tool(annotations={"readOnlyHint": False, "destructiveHint": False}),
        {"read_only_hint_disabled", "annotation_changed", "idempotent_hint_disabled"},
        {"annotation_changed"},
    ),
    row(
        "destructiveHint turned true",
        tool(annotations={"destructiveHint": False}),
        tool(annotations={"destructiveHint": True}),
        {"destructive_hint_enabled"},
        {"annotation_changed"},
    ),
    row(
        "destructiveHint dropped falls back to the default true",
        tool(annotations={"destructiveHint": False}),
        tool(),
        {"destructive_hint_enabled"},
        {"annotation_changed"},
    ),
    row(
        "idempotentHint changed",
        tool(annotations={"idempotentHint": False}),
        tool(annotations={"idempotentHint": True}),
        {"annotation_changed"},
        {"idempotent_hint_disabled"},
    ),
    row(
        "openWorldHint dropped falls back to the default true",
        tool(annotations={"openWorldHint": False}),
        tool(),
        {"open_world_hint_enabled"},
        {"annotation_changed"},
    ),
    # --- outputs
    row(
        "output schema added",
        tool(),
        tool(output=obj({"n": INT})),
        {"output_schema_added"},
        {"output_schema_removed"},
    ),
    row(
        "output field removed",
        tool(output=obj({"a": STR, "b": INT}, ("a", "b"))),
        tool(output=obj({"a": STR}, ("a",))),
        {"output_field_removed"},
        {"output_field_added"},
    ),
    row(
        "output field made optional",
        out(STR, required=True),
        out(STR, required=False),
        {"output_field_made_optional"},
        {"output_field_made_required"},
    ),
    row(
        "output field added to a closed object",
        tool(output=obj({"a": STR}, ("a",), additionalProperties=False)),
        tool(output=obj({"a": STR, "b": STR}, ("a", "b"), additionalProperties=False)),
        {"output_field_added_to_closed"},
        {"output_field_removed"},
    ),
    row(
        "output integer widened to number",
        out(INT),
        out(NUM),
        {"output_type_changed"},
        {"output_type_narrowed"},
    ),
    row(
        "output made nullable",
        out(STR),
        out(nullable(STR)),
        {"output_type_changed"},
        {"output_type_narrowed"},
    ),
    row(
        "output type replaced", out(STR), out(INT), {"output_type_changed"}, {"output_type_changed"}
    ),
    row(
        "output enum value added",
        out({"enum": ["ok", "failed"]}),
        out({"enum": ["ok", "failed", "partial"]}),
        {"output_enum_value_added"},
        {"output_enum_value_removed"},
    ),
    row(
        "output maxLength raised",
        out({**STR, "maxLength": 5}),
        out({**STR, "maxLength": 50}),
        {"output_constraint_loosened"},
        {"output_constraint_tightened"},
    ),
    row(
        "output minimum removed",
        out({**INT, "minimum": 0}),
        out(INT),
        {"output_constraint_loosened"},
        {"output_constraint_tightened"},
    ),
    row(
        "output opened to additional properties",
        tool(output=obj({"a": STR}, additionalProperties=False)),
        tool(output=obj({"a": STR})),
        {"output_constraint_loosened"},
        {"output_constraint_tightened"},
    ),
    row(
        "output pattern replaced",
        out({**STR, "pattern": "^a"}),
        out({**STR, "pattern": "^b"}),
        {"pattern_changed"},
        {"pattern_changed"},
    ),
    row(
        "output union branch of the same type removed",
        tool(output=obj({"f": {"anyOf": [obj({"a": STR}, ("a",)), obj({"b": STR}, ("b",))]}})),
        tool(output=obj({"f": {"anyOf": [obj({"a": STR}, ("a",))]}})),
        {"output_type_narrowed"},
        {"union_changed"},
    ),
    # --- the box
    row(
        "box field renamed",
        tool(output=boxed(INT, "result"), box="result"),
        tool(output=boxed(INT, "value"), box="value"),
        {"box_field_changed"},
        {"box_field_changed"},
    ),
    row(
        "boxing turned on for the same value",
        tool(output=obj({"a": STR}, ("a",))),
        tool(output=boxed(obj({"a": STR}, ("a",))), box="result"),
        {"box_field_changed"},
        {"box_field_changed"},
    ),
    row(
        "box renamed and the value widened",
        tool(output=boxed(INT), box="result"),
        tool(output=boxed(NUM, "value"), box="value"),
        {"box_field_changed", "output_type_changed"},
        {"box_field_changed", "output_type_narrowed"},
    ),
    # --- protocol variants (format 2): the value itself for 2026-07-28 clients
    row(
        "a format-1 boxed tool gains its natural variant",
        tool(output=boxed(INT), box="result"),
        tool(output=boxed(INT), box="result", natural=INT),
        {"natural_box_changed"},
        {"natural_box_changed"},
    ),
    row(
        "box renamed: natural clients see no box either way",
        tool(output=boxed(INT), box="result", natural=INT),
        tool(output=boxed(INT, "value"), box="value", natural=INT),
        {"box_field_changed"},
        {"box_field_changed"},
    ),
    row(
        "natural value type changed: reported once, at the boxed pointer",
        tool(output=boxed(INT), box="result", natural=INT),
        tool(output=boxed(STR), box="result", natural=STR),
        {"output_type_changed"},
        {"output_type_changed"},
    ),
    row(
        "boxed value type narrowed",
        tool(output=boxed(nullable(INT)), box="result"),
        tool(output=boxed(INT), box="result"),
        {"output_type_narrowed"},
        {"output_type_changed"},
    ),
    # --- $defs, $ref and recursion
    row(
        "field added inside a $def used by an input",
        tool(input_schema={**obj({"b": {"$ref": "#/$defs/Book"}}), "$defs": {"Book": book}}),
        tool(
            input_schema={
                **obj({"b": {"$ref": "#/$defs/Book"}}),
                "$defs": {"Book": book_with_isbn},
            }
        ),
        {"input_optional_added"},
        {"input_removed"},
    ),
    row(
        "a $def used twice reports its change once per kind",
        tool(
            input_schema={
                **obj({"a": {"$ref": "#/$defs/Book"}, "b": {"$ref": "#/$defs/Book"}}),
                "$defs": {"Book": book},
            }
        ),
        tool(
            input_schema={
                **obj({"a": {"$ref": "#/$defs/Book"}, "b": {"$ref": "#/$defs/Book"}}),
                "$defs": {"Book": {**book, "required": ["title", "year"]}},
            }
        ),
        {"input_made_required"},
        {"input_made_optional"},
    ),
    row(
        "a description inside a $def used twice is reported once",
        tool(
            input_schema={
                **obj({"a": {"$ref": "#/$defs/B"}, "b": {"$ref": "#/$defs/B"}}),
                "$defs": {"B": {**book, "description": "A book."}},
            }
        ),
        tool(
            input_schema={
                **obj({"a": {"$ref": "#/$defs/B"}, "b": {"$ref": "#/$defs/B"}}),
                "$defs": {"B": {**book, "description": "One book."}},
            }
        ),
        {"description_changed"},
        {"description_changed"},
    ),
    row(
        "$ref retargeted to an equal definition",
        tool(input_schema={**obj({"b": {"$ref": "#/$defs/Book"}}), "$defs": {"Book": book}}),
        tool(input_schema={**obj({"b": {"$ref": "#/$defs/Volume"}}), "$defs": {"Volume": book}}),
        {"ref_retargeted"},
        {"ref_retargeted"},
    ),
    row(
        "inline schema moved into $defs",
        tool(input_schema=obj({"b": book})),
        tool(input_schema={**obj({"b": {"$ref": "#/$defs/Book"}}), "$defs": {"Book": book}}),
        set(),
        set(),
    ),
    row(
        "recursive input type gains an optional field",
        tool(input_schema=recursive(node_def)),
        tool(input_schema=recursive(node_with_label)),
        {"input_optional_added"},
        {"input_removed"},
    ),
    row(
        "recursive output type loses a field",
        tool(output=recursive(node_with_label)),
        tool(output=recursive(node_def)),
        {"output_field_removed"},
        {"output_field_added"},
    ),
    row(
        "recursive output made non-recursive",
        tool(output=recursive(node_def)),
        tool(output=obj({"tree": obj({"value": INT}, ("value",))}, ("tree",))),
        {"output_field_removed"},
        {"output_field_added"},
    ),
    row(
        "$ref to a missing definition",
        tool(input_schema={**obj({"b": {"$ref": "#/$defs/Book"}}), "$defs": {"Book": book}}),
        tool(input_schema={**obj({"b": {"$ref": "#/$defs/Missing"}}), "$defs": {"Book": book}}),
        {"ref_unresolved"},
        {"ref_unresolved"},
    ),
    row(
        "dict keys restricted to an enum, input",
        inp({"type": "object", "additionalProperties": INT}),
        inp({"type": "object", "additionalProperties": INT, "propertyNames": {"enum": ["a"]}}),
        {"input_constraint_tightened"},
        {"input_constraint_loosened"},
    ),
    row(
        "dict key enum grows, output",
        out({"type": "object", "propertyNames": {"enum": ["a"]}}),
        out({"type": "object", "propertyNames": {"enum": ["a", "b"]}}),
        {"output_enum_value_added"},
        {"output_enum_value_removed"},
    ),
    row(
        "patternProperties added",
        inp({"type": "object"}),
        inp({"type": "object", "patternProperties": {"^x": INT}}),
        {"keyword_undecided"},
        {"keyword_undecided"},
    ),
    row(
        "not added",
        inp(STR),
        inp({**STR, "not": {"const": ""}}),
        {"keyword_undecided"},
        {"keyword_undecided"},
    ),
    row(
        "if/then added",
        inp(obj({"a": STR})),
        inp({**obj({"a": STR}), "if": obj({"a": {"const": "x"}}), "then": {"required": ["a"]}}),
        {"keyword_undecided"},
        {"keyword_undecided"},
    ),
]


def _run(old: dict[str, Any] | None, new: dict[str, Any] | None) -> set[str]:
    base = side(*([old] if old else []))
    head = side(*([new] if new else []))
    return {change.kind.slug for change in diff_sides(base, head)}


def test_table_has_at_least_60_rows() -> None:
    assert len(ROWS) >= 60
    assert len({r.id for r in ROWS}) == len(ROWS), "row ids must be unique"


def test_table_covers_every_kind() -> None:
    covered = set().union(*(r.forward | (r.backward or frozenset()) for r in ROWS))
    # Client-aware kinds need client settings, module kinds module PROTOCOLS: tests/diff/rules
    # runs their examples.
    rest = [kind for kind in ChangeKind if kind not in CLIENT_KINDS | MODULE_KINDS]
    missing = {kind.slug for kind in rest} - covered
    assert not missing, f"kinds without a table row: {sorted(missing)}"


def test_table_covers_both_directions() -> None:
    assert sum(r.backward is not None for r in ROWS) >= 60
    kinds = {ChangeKind.from_slug(k) for r in ROWS for k in r.forward}
    assert any(k.slug.startswith("input_") for k in kinds)
    assert any(k.slug.startswith("output_") for k in kinds)


@pytest.mark.parametrize("case", ROWS, ids=[r.id for r in ROWS])
def test_forward(case: Row) -> None:
    assert _run(case.old, case.new) == case.forward


@pytest.mark.parametrize(
    "case",
    [r for r in ROWS if r.backward is not None],
    ids=[r.id for r in ROWS if r.backward is not None],
)
def test_backward(case: Row) -> None:
    assert _run(case.new, case.old) == case.backward


@pytest.mark.parametrize("case", [r for r in ROWS if "used twice" in r.id], ids=lambda r: r.id)
def test_definition_used_twice_reports_each_change_once(case: Row) -> None:
    changes = diff_sides(side(case.old), side(case.new))  # type: ignore[arg-type]
    assert len(changes) == len(case.forward) == 1
    assert changes[0].pointer.startswith("/inputSchema/$defs/")
