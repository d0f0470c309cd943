"""The ``type``, ``enum`` and ``const`` keywords: which values and JSON types a schema admits."""

from __future__ import annotations

from mcp_codegen._diff.changes import ABSENT, JSON, ChangeKind
from mcp_codegen._diff.classify.context import WalkContext
from mcp_codegen._diff.classify.keywords import Direction, Effect, Schema, show_json
from mcp_codegen._diff.classify.refs import Node
from mcp_codegen._diff.classify.typesets import covers, show_types, type_effect, type_set
from mcp_codegen._shared.json_values import json_type, value_key

K = ChangeKind


def allowed_values(schema: Schema) -> dict[str, JSON] | None:
    """The values allowed by ``const`` / ``enum`` and ``type``, by JSON identity, or None."""
    allowed: dict[str, JSON] | None = None
    if "const" in schema:
        allowed = {value_key(schema["const"]): schema["const"]}
    if isinstance(schema.get("enum"), list):
        listed = {value_key(v): v for v in schema["enum"]}
        allowed = listed if allowed is None else {k: v for k, v in allowed.items() if k in listed}
    declared = schema.get("type")
    if allowed is not None and isinstance(declared, str | list):
        types = frozenset([declared] if isinstance(declared, str) else declared)
        allowed = {k: v for k, v in allowed.items() if covers(types, json_type(v))}
    return allowed


def _raw_values(schema: Schema) -> JSON:
    if "enum" in schema:
        return schema["enum"]
    if "const" in schema:
        return schema["const"]
    return ABSENT


def compare_types(walk: WalkContext, old: Node, new: Node, label: str) -> None:
    """A change of the JSON types the schema admits (``type``, and what enums imply)."""
    if allowed_values(old.schema) is not None and allowed_values(new.schema) is not None:
        return  # both sides enumerate their values: compare_values is exact
    before = type_set(old.schema, walk.old_doc)
    after = type_set(new.schema, walk.new_doc)
    effect = type_effect(before, after)
    if effect is None:
        return
    if walk.direction is Direction.INPUT:
        kind = {
            Effect.NARROWS: K.INPUT_TYPE_NARROWED,
            Effect.WIDENS: K.INPUT_TYPE_WIDENED,
            Effect.BOTH: K.INPUT_TYPE_CHANGED,
        }[effect]
    else:
        kind = K.OUTPUT_TYPE_NARROWED if effect is Effect.NARROWS else K.OUTPUT_TYPE_CHANGED
    walk.emit(
        kind,
        f"{new.pointer}/type",
        label,
        old=show_types(before),
        new=show_types(after),
        old_text=show_types(before),
        new_text=show_types(after),
    )


def compare_values(walk: WalkContext, o: Schema, n: Schema, pointer: str, label: str) -> None:
    """Enum values added or removed, or an enumeration added or dropped."""
    before, after = allowed_values(o), allowed_values(n)
    if before is None and after is None:
        return
    keyword = "enum" if "enum" in n or "enum" in o else "const"
    where = f"{pointer}/{keyword}"
    if before is None or after is None:
        effect = Effect.NARROWS if before is None else Effect.WIDENS
        walk.emit_effect(effect, where, label, keyword, _raw_values(o), _raw_values(n))
        return
    inputs = walk.direction is Direction.INPUT
    for value in (v for k, v in before.items() if k not in after):
        kind = K.INPUT_ENUM_VALUE_REMOVED if inputs else K.OUTPUT_ENUM_VALUE_REMOVED
        walk.emit(kind, where, label, old=value, value=show_json(value))
    for value in (v for k, v in after.items() if k not in before):
        kind = K.INPUT_ENUM_VALUE_ADDED if inputs else K.OUTPUT_ENUM_VALUE_ADDED
        walk.emit(kind, where, label, new=value, value=show_json(value))
