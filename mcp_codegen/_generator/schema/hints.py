"""What a tool's annotations are, before pydantic sees them: injected parameters, MCP content
return types (no output schema), the members of a union."""

from __future__ import annotations

import inspect
import types
import typing
from typing import Annotated, Any, Union

import pydantic

#: Output types that are MCP content already: they get no output schema (seed 000's blocklist).
CONTENT_TYPE_NAMES = frozenset(
    {
        "CallToolResult",
        "ServerResult",
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
        "ContentBlock",
        "ToolResult",  # fastmcp
    }
)

#: Describe only: building pydantic's validator and serializer costs as much as the schema.
SCHEMA_ONLY = pydantic.ConfigDict(defer_build=True)


def _qualified_names(cls: type) -> set[str]:
    names = set()
    for klass in getattr(cls, "__mro__", (cls,)):
        module = getattr(klass, "__module__", "")
        names.add(f"{module}.{getattr(klass, '__qualname__', '')}")
    return names


def strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def union_members(tp: Any) -> tuple[Any, ...]:
    tp = strip_annotated(tp)
    if typing.get_origin(tp) in (Union, types.UnionType):
        return tuple(strip_annotated(a) for a in typing.get_args(tp))
    return (tp,)


def is_injected(annotation: Any, injected_types: frozenset[str]) -> bool:
    """True when the annotation (or any non-None member of its union) is an injected type."""
    members = [m for m in union_members(annotation) if m is not type(None)]
    return bool(members) and all(
        isinstance(m, type) and _qualified_names(m) & injected_types for m in members
    )


def _is_content_type(tp: Any) -> bool:
    tp = strip_annotated(tp)
    origin = typing.get_origin(tp)
    if origin in (list, tuple, typing.Sequence) or (
        isinstance(origin, type) and origin.__name__ in {"Sequence", "Iterable"}
    ):
        return any(_is_content_type(a) for a in typing.get_args(tp) if a is not Ellipsis)
    if origin in (Union, types.UnionType):
        return any(_is_content_type(a) for a in typing.get_args(tp))
    if not isinstance(tp, type):
        return False
    return any(
        klass.__name__ in CONTENT_TYPE_NAMES
        and getattr(klass, "__module__", "").split(".")[0] in {"mcp", "fastmcp", "mcp_types"}
        for klass in tp.__mro__
    )


def has_no_output_schema(annotation: Any) -> bool:
    """``-> None``, no annotation, ``Any`` and MCP content types get no output schema."""
    return (
        annotation is inspect.Signature.empty
        or annotation is None
        or annotation is type(None)
        or strip_annotated(annotation) is Any
        or _is_content_type(annotation)
    )
