"""How pydantic describes types here: schema-only adapters, one type alone or many in one pass
(``described_together``, so shared types are built once)."""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import TypeAdapter

from mcp_codegen._generator.model import JSON
from mcp_codegen._shared.schema_transforms import referenced_definitions

#: Describe only: building pydantic's validator and serializer costs as much as the schema.
SCHEMA_ONLY = pydantic.ConfigDict(defer_build=True)


def schema_only_adapter(annotation: Any) -> TypeAdapter[Any]:
    """A TypeAdapter that builds the core schema only (no validator or serializer)."""
    try:
        return TypeAdapter(annotation, config=SCHEMA_ONLY)
    except pydantic.PydanticUserError:  # models and dataclasses bring their own config
        return TypeAdapter(annotation)


def _reachable(root: JSON, defs: dict[str, JSON], memo: dict[str, set[str]]) -> set[str]:
    """Names of the definitions ``root`` refers to, directly or through other definitions."""
    found: set[str] = set()
    pending = list(referenced_definitions(root, set()) & defs.keys())
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found.add(name)
        if name not in memo:
            memo[name] = referenced_definitions(defs[name], set()) & defs.keys()
        pending.extend(memo[name])
    return found


def described_together(types_: list[Any], mode: str) -> list[JSON] | None:
    """Each type's raw JSON Schema (with the ``$defs`` it reaches) from one pydantic pass.

    ``None`` when the pass fails or pydantic had to qualify a definition name because two types
    share a short name: described one by one, each would get the short name.
    """
    try:
        combined = TypeAdapter(tuple[tuple(types_)], config=SCHEMA_ONLY).json_schema(mode=mode)  # type: ignore[misc]
    except Exception:
        return None
    defs: dict[str, JSON] = combined.get("$defs", {})
    items = combined.get("prefixItems")
    if (
        any("__" in name for name in defs)
        or not isinstance(items, list)
        or len(items) != len(types_)
    ):
        return None
    memo: dict[str, set[str]] = {}
    schemas = []
    for item in items:
        reached = _reachable(item, defs, memo)
        schema = dict(item)
        if reached:
            schema["$defs"] = {name: defs[name] for name in sorted(reached)}
        schemas.append(schema)
    return schemas
