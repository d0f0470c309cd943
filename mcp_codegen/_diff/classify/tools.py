"""Whole tool dicts: title, description, ``annotations`` hints, metadata, and the input and output
schemas (with the ``x-codegen`` box of a non-object return value) handed to the schema walk."""

from __future__ import annotations

import json
from collections.abc import Mapping

from mcp_codegen._diff.changes import ABSENT, JSON, Change, ChangeKind, make_change
from mcp_codegen._diff.classify.keywords import Direction, dict_of
from mcp_codegen._diff.classify.refs import Doc
from mcp_codegen._diff.classify.walk import Walk
from mcp_codegen._shared.annotations import HINT_DEFAULTS
from mcp_codegen._shared.format import PRIVATE_KEY
from mcp_codegen._shared.json_pointer import escape
from mcp_codegen._shared.json_values import same_value
from mcp_codegen._shared.protocols import NATURAL_KEY

K = ChangeKind

TOOL_FIELDS_COMPARED = frozenset(
    {"name", "title", "description", "inputSchema", "outputSchema", "annotations", PRIVATE_KEY}
)
#: What a read-only tool's hints mean, whatever they say (the spec calls them meaningful only
#: when ``readOnlyHint`` is false).
_READ_ONLY_IMPLIES = {"destructiveHint": False, "idempotentHint": True}


def _box(tool: Mapping[str, JSON]) -> str | None:
    meta = tool.get(PRIVATE_KEY)
    box = meta.get("box") if isinstance(meta, dict) else None
    field = box.get("field") if isinstance(box, dict) else None
    return field if isinstance(field, str) else None


def _natural_box(tool: Mapping[str, JSON]) -> str | None:
    """The box a 2026-07-28 client sees: none when the tool has a natural variant (format 2),
    else the top-level box, which older modules served to every revision."""
    meta = tool.get(PRIVATE_KEY)
    if isinstance(meta, dict) and isinstance(meta.get(NATURAL_KEY), dict):
        return None
    return _box(tool)


def _unboxed(schema: JSON, field: str | None) -> tuple[JSON, str]:
    """The schema of the tool's return value and its pointer under ``/outputSchema``."""
    if field is not None and isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict) and field in properties:
            return properties[field], f"/outputSchema/properties/{escape(field)}"
    return schema, "/outputSchema"


def compare_tools(old: Mapping[str, JSON], new: Mapping[str, JSON], name: str) -> list[Change]:
    """Every classified change between two versions of one tool dict."""
    changes: list[Change] = []
    for key, kind in (("title", K.TITLE_CHANGED), ("description", K.DESCRIPTION_CHANGED)):
        before, after = old.get(key, ABSENT), new.get(key, ABSENT)
        if not same_value(before, after):
            changes.append(make_change(kind, name, f"/{key}", old=before, new=after))
    changes += _compare_tool_annotations(old, new, name)
    extra = sorted((set(old) | set(new)) - TOOL_FIELDS_COMPARED)
    changes += _keyed_changes(K.TOOL_METADATA_CHANGED, name, "", old, new, extra)
    walk = Walk(
        name,
        Direction.INPUT,
        Doc(old.get("inputSchema", {}), "/inputSchema"),
        Doc(new.get("inputSchema", {}), "/inputSchema"),
    )
    walk.compare(walk.old_doc.root, walk.new_doc.root, "/inputSchema", "/inputSchema", "")
    changes += walk.changes
    changes += _compare_outputs(old, new, name)
    return changes


def _compare_outputs(old: Mapping[str, JSON], new: Mapping[str, JSON], name: str) -> list[Change]:
    before, after = old.get("outputSchema"), new.get("outputSchema")
    if before is None and after is None:
        return []
    if before is None:
        return [make_change(K.OUTPUT_SCHEMA_ADDED, name, "/outputSchema", new=after)]
    if after is None:
        return [make_change(K.OUTPUT_SCHEMA_REMOVED, name, "/outputSchema", old=before)]
    changes: list[Change] = []
    old_box, new_box = _box(old), _box(new)
    # The top level is what clients before 2026-07-28 get. Newer clients get the natural
    # variant: the same value schema, so only its box can differ in its own way.
    old_natural, new_natural = _natural_box(old), _natural_box(new)
    if old_natural != new_natural and (old_natural, new_natural) != (old_box, new_box):
        changes.append(
            make_change(
                K.NATURAL_BOX_CHANGED,
                name,
                f"/x-codegen/{NATURAL_KEY}",
                old={"field": old_natural} if old_natural else None,
                new={"field": new_natural} if new_natural else None,
            )
        )
    walk = Walk(name, Direction.OUTPUT, Doc(before, "/outputSchema"), Doc(after, "/outputSchema"))
    if old_box == new_box:
        walk.compare(before, after, "/outputSchema", "/outputSchema", "")
    else:
        changes.append(
            make_change(
                K.BOX_FIELD_CHANGED,
                name,
                "/x-codegen/box",
                old={"field": old_box} if old_box else None,
                new={"field": new_box} if new_box else None,
            )
        )
        old_value, optr = _unboxed(before, old_box)
        new_value, nptr = _unboxed(after, new_box)
        walk.compare(old_value, new_value, optr, nptr, "")
    return changes + walk.changes


def _compare_tool_annotations(
    old: Mapping[str, JSON], new: Mapping[str, JSON], name: str
) -> list[Change]:
    before = dict_of(old.get("annotations"))
    after = dict_of(new.get("annotations"))
    changes: list[Change] = []

    def effective(hints: Mapping[str, JSON], key: str) -> JSON:
        value = hints.get(key, HINT_DEFAULTS[key])
        if key in _READ_ONLY_IMPLIES and hints.get("readOnlyHint", False) is True:
            # meaningful only when readOnlyHint is false: a read-only tool neither destroys
            # nor has additional effects when repeated
            return _READ_ONLY_IMPLIES[key]
        return value

    def shown(hints: Mapping[str, JSON], key: str) -> str:
        if key in hints:
            return json.dumps(hints[key])
        if key in _READ_ONLY_IMPLIES and hints.get("readOnlyHint", False) is True:
            return "unset (read-only)"
        return f"unset (= {json.dumps(HINT_DEFAULTS[key])})"

    flagged: set[str] = set()
    for key, kind, turned_on in (
        ("readOnlyHint", K.READ_ONLY_HINT_DISABLED, False),
        ("destructiveHint", K.DESTRUCTIVE_HINT_ENABLED, True),
        ("idempotentHint", K.IDEMPOTENT_HINT_DISABLED, False),
        ("openWorldHint", K.OPEN_WORLD_HINT_ENABLED, True),
    ):
        if effective(before, key) is not turned_on and effective(after, key) is turned_on:
            flagged.add(key)
            changes.append(
                make_change(
                    kind,
                    name,
                    f"/annotations/{key}",
                    old=before.get(key, ABSENT),
                    new=after.get(key, ABSENT),
                    old_text=shown(before, key),
                    new_text=shown(after, key),
                )
            )
    rest = [key for key in sorted(set(before) | set(after)) if key not in flagged]
    changes += _keyed_changes(K.ANNOTATION_CHANGED, name, "/annotations", before, after, rest)
    return changes


def _keyed_changes(
    kind: ChangeKind,
    name: str,
    prefix: str,
    before: Mapping[str, JSON],
    after: Mapping[str, JSON],
    keys: list[str],
) -> list[Change]:
    """A ``kind`` change at ``prefix/key`` for each of ``keys`` whose value differs."""
    changes = []
    for key in keys:
        was, now = before.get(key, ABSENT), after.get(key, ABSENT)
        if not same_value(was, now):
            changes.append(
                make_change(kind, name, f"{prefix}/{escape(key)}", old=was, new=now, keyword=key)
            )
    return changes
