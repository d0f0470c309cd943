"""Serialization-mode output schemas, cached per return annotation for the life of the worker."""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import TypeAdapter

from mcp_codegen._generator.inspection.resolve import ResolvedTool
from mcp_codegen._generator.model import JSON
from mcp_codegen._generator.schema.hints import SCHEMA_ONLY, has_no_output_schema

OUTPUT_CACHE: dict[Any, JSON] = {}


def _schema_only_adapter(annotation: Any) -> TypeAdapter[Any]:
    """A TypeAdapter that builds the core schema only (no validator or serializer)."""
    try:
        return TypeAdapter(annotation, config=SCHEMA_ONLY)
    except pydantic.PydanticUserError:  # models and dataclasses bring their own config
        return TypeAdapter(annotation)


def output_schema(tool: ResolvedTool) -> JSON:
    """Serialization-mode schema of the return type; ``None`` when the tool has none.

    Tools of one module often share a return type (``str``, one result model), so schemas are
    cached per annotation object for the life of the worker. Raw schemas are never mutated
    (the transforms build new ones), so tools that share an annotation share its schema.
    """
    annotation = tool.return_annotation
    if has_no_output_schema(annotation):
        return None
    try:
        cached = OUTPUT_CACHE.get(annotation)
    except TypeError:  # unhashable annotation metadata
        return _schema_only_adapter(annotation).json_schema(mode="serialization")
    if cached is None:
        cached = OUTPUT_CACHE[annotation] = _schema_only_adapter(annotation).json_schema(
            mode="serialization"
        )
    return cached
