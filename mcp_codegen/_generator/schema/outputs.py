"""A tool's output schema, decided here and nowhere else: which return types get none (``None``,
``Any``, MCP content), the serialization-mode schema cached per return annotation, described
alone or with the rest of the module, an ``output_schema=`` override (never boxed), and the
boxing of a non-object result as ``{"result": ...}`` for the revisions before 2026-07-28, with
the natural schema beside it; in the framework flavors, ``output_schema=`` and ``box_field=``.

Runs in: worker, parent. The worker describes; the parent finishes raw schemas
(``output_variants``) and never imports pydantic, so the functions that describe import it.
"""

from __future__ import annotations

import copy
import inspect
import types
import typing
from typing import Any, Union

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.inspection.resolve import ResolvedTool, ResolveFailure
from mcp_codegen._generator.inspection.unsupported import pydantic_message, schema_errors
from mcp_codegen._generator.model import JSON, InspectedTool, ScannedModule, ScannedTool
from mcp_codegen._generator.schema.hints import strip_annotated
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.protocols import NATURAL_KEY, variants_of
from mcp_codegen._shared.schema_transforms import Memo, box_output, clean

#: The decorator option that replaces the inferred output schema.
OVERRIDE = "output_schema"

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

#: Return annotation -> its raw schema, for the life of the worker (tests clear it).
OUTPUT_CACHE: dict[Any, JSON] = {}


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


def output_schema(tool: ResolvedTool) -> JSON:
    """Serialization-mode schema of the return type; ``None`` when the tool has none.

    Tools of one module often share a return type (``str``, one result model), so schemas are
    cached per annotation object for the life of the worker. Raw schemas are never mutated
    (the transforms build new ones), so tools that share an annotation share its schema.
    """
    # pydantic (~60 ms to import): the parent imports this module and never describes
    from mcp_codegen._generator.schema.batch import schema_only_adapter

    annotation = tool.return_annotation
    if has_no_output_schema(annotation):
        return None
    try:
        cached = OUTPUT_CACHE.get(annotation)
    except TypeError:  # unhashable annotation metadata
        return schema_only_adapter(annotation).json_schema(mode="serialization")
    if cached is None:
        cached = OUTPUT_CACHE[annotation] = schema_only_adapter(annotation).json_schema(
            mode="serialization"
        )
    return cached


def describe_outputs(tools: list[ResolvedTool]) -> None:
    """Describe the return types of the module's tools not yet in ``OUTPUT_CACHE`` in one pass."""
    # pydantic (~60 ms to import): the parent imports this module and never describes
    from mcp_codegen._generator.schema.batch import described_together

    pending = []
    for tool in tools:
        annotation = tool.return_annotation
        if OVERRIDE in tool.scanned.options or has_no_output_schema(annotation):
            continue
        try:
            if annotation not in OUTPUT_CACHE and annotation not in pending:
                pending.append(annotation)
        except TypeError:  # unhashable: described one by one
            continue
    if len(pending) > 1:
        described = described_together(pending, "serialization")
        for annotation, schema in zip(pending, described or (), strict=False):
            OUTPUT_CACHE[annotation] = schema


def raw_output_schema(module: ScannedModule, tool: ResolvedTool) -> JSON:
    """The tool's raw output schema (``None`` with an override or none); a return type pydantic
    cannot describe is an error at the tool."""
    scanned = tool.scanned
    if OVERRIDE in scanned.options:
        return None
    try:
        return output_schema(tool)
    except schema_errors() as exc:
        message = (
            f"pydantic cannot describe the return type of {scanned.name!r} "
            f"({scanned.return_annotation_source}): {pydantic_message(exc)}; "
            "use a type pydantic supports or pass output_schema="
        )
        where = scanned.position
        problem = Diagnostic(module.relative_path, where.line, where.column, message)
        raise ResolveFailure([problem]) from None


def natural_output_schema(
    tool: ScannedTool, inspected: InspectedTool, memo: Memo | None = None
) -> JSON:
    """The output schema of the return value itself, as served from 2026-07-28 (any root)."""
    if OVERRIDE in tool.options:
        return copy.deepcopy(tool.options[OVERRIDE])
    if inspected.output_schema is None:
        return None
    return clean(inspected.output_schema, memo)


def output_variants(
    tool: ScannedTool, inspected: InspectedTool, config: Config, memo: Memo | None = None
) -> tuple[JSON, str | None, dict[str, JSON]]:
    """The top-level output schema, its box field (``None``: not boxed) and the ``x-codegen``
    keys of the other variant.

    The top level is what the configured revisions before 2026-07-28 get: a non-object root is
    boxed there. The natural schema goes into ``x-codegen.natural`` when 2026-07-28 is
    configured too and the two differ. With 2026-07-28 alone, the natural schema is the top level.
    """
    natural = natural_output_schema(tool, inspected, memo)
    variants = variants_of(config.protocols)
    if natural is None or OVERRIDE in tool.options or variants == ("natural",):
        return natural, None, {}
    field = tool.options.get("box_field", config.box_field)
    boxed, is_boxed = box_output(natural, field, config.box_marker)
    if not is_boxed:
        return natural, None, {}
    if "natural" in variants:
        return boxed, field, {NATURAL_KEY: {"outputSchema": natural}}
    return boxed, field, {}


def flavored_output_schema(
    wire: dict[str, JSON],
    box_field: str | None,
    private: dict[str, JSON],
    options: dict[str, JSON],
    accepted: frozenset[str],
) -> str | None:
    """In a framework flavor, apply ``output_schema=`` (when the framework has no such option:
    it replaces the inferred schema, which is then not boxed) and ``box_field=`` (renames the
    box property) to ``wire`` and ``private``; returns the box field."""
    if OVERRIDE in options and OVERRIDE not in accepted:
        wire["outputSchema"] = options[OVERRIDE]
        box_field = None
        private.pop("result_meta", None)
    renamed = options.get("box_field")
    if isinstance(renamed, str) and box_field is not None and renamed != box_field:
        schema = dict(wire["outputSchema"])
        schema["properties"] = {
            (renamed if key == box_field else key): value
            for key, value in schema["properties"].items()
        }
        schema["required"] = [renamed if key == box_field else key for key in schema["required"]]
        wire["outputSchema"] = schema
        box_field = renamed
    return box_field
