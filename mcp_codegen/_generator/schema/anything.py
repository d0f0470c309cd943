"""Warnings for the parameters a framework flavor lists with a schema that accepts any value.

Flavors ``"mcp"`` and ``"fastmcp"`` keep what the framework serves, so such a schema is written
as it is; the warning says where the tool tells clients nothing about what it takes: a parameter
without annotation (``MCPServer`` lists ``{"type": "string"}`` but validates nothing), a
variadic ``*args`` / ``**kwargs`` (listed as one property of that name), or a type pydantic
describes as ``{}`` (``Any``, ``object``).
"""

from __future__ import annotations

import json

from mcp_codegen._generator.model import JSON, ScannedModule, ScannedTool
from mcp_codegen._shared.diagnostics import Diagnostic

#: Keywords that describe a value without constraining it.
ANNOTATION_KEYWORDS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"}
)


def accepts_anything(schema: JSON) -> bool:
    """Whether ``schema`` constrains nothing (``true``, or annotation keywords only)."""
    return schema is True or (
        isinstance(schema, dict) and not set(schema) - ANNOTATION_KEYWORDS - {"$comment"}
    )


def accept_anything_warnings(
    module: ScannedModule, tool: ScannedTool, entry: dict[str, JSON], framework: str
) -> list[Diagnostic]:
    """One warning per parameter of ``tool`` that ``entry`` (what ``framework`` lists) leaves
    open to any value, at that parameter."""
    schema = entry.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return []
    found = []
    for parameter in tool.parameters:
        listed = properties.get(parameter.name)
        if listed is None:  # injected, or not listed at all
            continue
        shown = _shown(listed)
        if parameter.kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            star = "*" if parameter.kind == "VAR_POSITIONAL" else "**"
            message = (
                f"parameter {star}{parameter.name} of tool {tool.name!r}: {framework} lists it as "
                f"one property {parameter.name!r} ({shown}) that accepts any value, and hands "
                f"what a client sends there to the function as the keyword argument "
                f"{parameter.name}=...; name the parameters the tool takes, each with a type"
            )
        elif parameter.annotation_source is None:
            message = (
                f"parameter {parameter.name!r} of tool {tool.name!r} has no annotation: "
                f"{framework} lists it as {shown} and accepts any value; annotate it with the "
                "type it takes"
            )
        elif accepts_anything(listed):
            message = (
                f"parameter {parameter.name!r} of tool {tool.name!r} ({parameter.annotation_source})"
                f" gets a schema that accepts any value ({shown}); use a type that says what it "
                "takes"
            )
        else:
            continue
        where = parameter.position
        found.append(
            Diagnostic(module.relative_path, where.line, where.column, message, severity="warning")
        )
    return found


def _shown(schema: JSON) -> str:
    """``schema`` as one line of JSON, without its title (the framework's, not the user's)."""
    if isinstance(schema, dict):
        schema = {key: value for key, value in schema.items() if key != "title"}
    return json.dumps(schema, ensure_ascii=False, sort_keys=True)
