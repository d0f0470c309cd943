"""Object and array members: ``properties``, ``required``, ``additionalProperties``,
``propertyNames``, ``items`` and ``prefixItems``."""

from __future__ import annotations

from mcp_codegen._diff.changes import ABSENT, ChangeKind
from mcp_codegen._diff.classify.context import WalkContext
from mcp_codegen._diff.classify.keywords import Direction, Effect, dict_of, is_closed, names_of
from mcp_codegen._diff.classify.refs import Node
from mcp_codegen._shared.json_pointer import escape

K = ChangeKind


def compare_properties(walk: WalkContext, old: Node, new: Node, label: str) -> None:
    """Properties added, removed, made required or optional; each kept one compared."""
    o, n = old.schema, new.schema
    if not any(k in s for s in (o, n) for k in ("properties", "required")):
        return
    old_props, new_props = dict_of(o.get("properties")), dict_of(n.get("properties"))
    old_required, new_required = names_of(o.get("required")), names_of(n.get("required"))
    names = dict.fromkeys([*old_props, *old_required, *new_props, *new_required])
    inputs = walk.direction is Direction.INPUT
    old_closed = is_closed(o.get("additionalProperties", True))
    for name in names:
        child = f"{label}.{name}" if label else name
        optr = f"{old.pointer}/properties/{escape(name)}"
        nptr = f"{new.pointer}/properties/{escape(name)}"
        in_old = name in old_props or name in old_required
        in_new = name in new_props or name in new_required
        if not in_new:
            kind = K.INPUT_REMOVED if inputs else K.OUTPUT_FIELD_REMOVED
            walk.emit(kind, nptr, label, name=child, old=old_props.get(name, ABSENT))
            continue
        if not in_old:
            if inputs:
                required = name in new_required
                kind = K.INPUT_REQUIRED_ADDED if required else K.INPUT_OPTIONAL_ADDED
            else:
                kind = K.OUTPUT_FIELD_ADDED_TO_CLOSED if old_closed else K.OUTPUT_FIELD_ADDED
            walk.emit(kind, nptr, label, name=child, new=new_props.get(name, ABSENT))
            continue
        was, now = name in old_required, name in new_required
        if was != now:
            if inputs:
                kind = K.INPUT_MADE_REQUIRED if now else K.INPUT_MADE_OPTIONAL
            else:
                kind = K.OUTPUT_FIELD_MADE_REQUIRED if now else K.OUTPUT_FIELD_MADE_OPTIONAL
            walk.emit(kind, f"{new.pointer}/required", label, name=child, old=was, new=now)
        walk.compare(old_props.get(name, True), new_props.get(name, True), optr, nptr, child)


def compare_open_schema(walk: WalkContext, old: Node, new: Node, keyword: str, label: str) -> None:
    """``additionalProperties`` / ``items``: absent or true = anything, false = nothing."""
    before = old.schema.get(keyword, ABSENT)
    after = new.schema.get(keyword, ABSENT)
    b = True if before is ABSENT else before
    a = True if after is ABSENT else after
    if walk.unchanged(b, a):
        return
    pointer = f"{new.pointer}/{keyword}"
    if is_closed(b) != is_closed(a):
        effect = Effect.WIDENS if is_closed(b) else Effect.NARROWS
        walk.emit_effect(effect, pointer, label, keyword, before, after)
    elif not is_closed(b):
        walk.compare(b, a, f"{old.pointer}/{keyword}", pointer, label)


def compare_property_names(walk: WalkContext, old: Node, new: Node, label: str) -> None:
    """``propertyNames``: a schema every key (a string) must match; absent allows any."""
    any_key = {"type": "string"}
    before = old.schema.get("propertyNames", any_key)
    after = new.schema.get("propertyNames", any_key)
    optr, nptr = f"{old.pointer}/propertyNames", f"{new.pointer}/propertyNames"
    walk.compare(before, after, optr, nptr, f"{label} (keys)" if label else "(keys)")


def compare_items(walk: WalkContext, old: Node, new: Node, label: str) -> None:
    """``items`` like ``additionalProperties``; ``prefixItems`` of one length position-wise."""
    if isinstance(old.schema.get("items"), list) or isinstance(new.schema.get("items"), list):
        walk.undecided(old.schema, new.schema, new.pointer, label, "items")  # draft 2019
    else:
        compare_open_schema(walk, old, new, "items", f"{label}[]")
    before = old.schema.get("prefixItems", ABSENT)
    after = new.schema.get("prefixItems", ABSENT)
    if walk.unchanged(before, after):
        return
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (ob, nb) in enumerate(zip(before, after, strict=True)):
            optr = f"{old.pointer}/prefixItems/{index}"
            nptr = f"{new.pointer}/prefixItems/{index}"
            walk.compare(ob, nb, optr, nptr, f"{label}[{index}]")
        return
    walk.undecided(old.schema, new.schema, new.pointer, label, "prefixItems")
