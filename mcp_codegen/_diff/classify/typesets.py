"""Sets of JSON types an instance of a schema can have, and how a change between two sets acts."""

from __future__ import annotations

from collections.abc import Iterable

from mcp_codegen._diff.changes import JSON
from mcp_codegen._diff.classify.keywords import Effect, is_false
from mcp_codegen._diff.classify.refs import Doc, resolve
from mcp_codegen._shared.json_values import json_type

TypeSet = frozenset[str] | None  # None: no type constraint (every JSON type)

ALL_TYPES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def covers(types: TypeSet, name: str) -> bool:
    """Whether ``types`` admits instances of type ``name`` (a number admits an integer)."""
    if types is None:
        return True
    return name in types or (name == "integer" and "number" in types)


def intersect(first: TypeSet, second: TypeSet) -> TypeSet:
    """The types both sets admit."""
    if first is None:
        return second
    if second is None:
        return first
    kept = {name for name in first if covers(second, name)}
    kept |= {"integer" for name in second if name == "integer" and covers(first, "integer")}
    return frozenset(kept)


def union(sets: Iterable[TypeSet]) -> TypeSet:
    """The types any of the sets admits."""
    merged: set[str] = set()
    for types in sets:
        if types is None:
            return None
        merged |= types
    return frozenset(merged)


def lost(types: TypeSet, other: TypeSet) -> bool:
    """Whether some type in ``types`` is not covered by ``other``."""
    return any(not covers(other, name) for name in (ALL_TYPES if types is None else types))


def show_types(types: TypeSet) -> str:
    """A type set for a message: ``string | null``, ``any``, ``nothing``."""
    if types is None:
        return "any"
    if not types:
        return "nothing"
    order = ["object", "array", "string", "number", "integer", "boolean", "null"]
    return " | ".join(name for name in order if name in types)


def type_effect(old: TypeSet, new: TypeSet) -> Effect | None:
    """How going from ``old`` to ``new`` changes the instances; None when it does not."""
    was_lost, gained = lost(old, new), lost(new, old)
    if was_lost and gained:
        return Effect.BOTH
    if was_lost:
        return Effect.NARROWS
    if gained:
        return Effect.WIDENS
    return None


def type_set(raw: JSON, doc: Doc, depth: int = 0) -> TypeSet:
    """The JSON types an instance of ``raw`` can have; None when unconstrained."""
    node = resolve(raw, "", doc)
    schema = node.schema
    if node.unresolved is not None or depth > 32:
        return None
    if is_false(schema):
        return frozenset()
    types: TypeSet = None
    declared = schema.get("type")
    if isinstance(declared, str):
        types = frozenset({declared})
    elif isinstance(declared, list):
        types = frozenset(t for t in declared if isinstance(t, str))
    if "const" in schema:
        types = intersect(types, frozenset({json_type(schema["const"])}))
    if isinstance(schema.get("enum"), list):
        types = intersect(types, frozenset(json_type(v) for v in schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            branch_types = (type_set(b, doc, depth + 1) for b in schema[key])
            types = intersect(types, union(branch_types))
    if isinstance(schema.get("allOf"), list):
        for branch in schema["allOf"]:
            types = intersect(types, type_set(branch, doc, depth + 1))
    return types
