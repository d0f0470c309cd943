"""Stage 2b (in the isolated worker): a resolved tool's raw schemas and descriptions.

The input schema is decided in ``mcp_codegen._generator.schema.inputs``, the output schema in
``mcp_codegen._generator.schema.outputs``; this module asks both for one tool
(``inspect_tool``) or for a module's tools at once (``describe_module``), and reads the
docstring. ``mcp_codegen._shared.schema_transforms`` cleans the raw schemas afterwards.
"""

from __future__ import annotations

import inspect

import docstring_parser

from mcp_codegen._generator.inspection.resolve import ResolvedTool
from mcp_codegen._generator.model import InspectedTool, ScannedModule
from mcp_codegen._generator.schema.inputs import (
    PERMISSIVE_INPUT,
    ModuleSchemas,
    check_defaults,
    describe_inputs,
    input_schema,
    is_injected,
    raw_input_schema,
)
from mcp_codegen._generator.schema.outputs import (
    CONTENT_TYPE_NAMES,
    describe_outputs,
    has_no_output_schema,
    output_schema,
    raw_output_schema,
)
from mcp_codegen._generator.schema.outputs import (
    OUTPUT_CACHE as _OUTPUT_CACHE,  # tests reset the cache
)
from mcp_codegen._shared.diagnostics import Diagnostic

__all__ = [
    "CONTENT_TYPE_NAMES",
    "PERMISSIVE_INPUT",
    "_OUTPUT_CACHE",
    "ModuleSchemas",
    "describe_module",
    "has_no_output_schema",
    "input_schema",
    "inspect_tool",
    "is_injected",
    "output_schema",
    "parse_docstring",
]


def parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """Tool description and parameter descriptions (Google, NumPy and Sphinx styles)."""
    if not doc:
        return None, {}
    parsed = docstring_parser.parse(doc)
    parts = [p.strip() for p in (parsed.short_description, parsed.long_description) if p]
    description = "\n\n".join(p for p in parts if p) or None
    params = {
        p.arg_name: " ".join(p.description.split())
        for p in parsed.params
        if p.description and p.description.strip()
    }
    return description, params


def describe_module(
    module: ScannedModule, tools: list[ResolvedTool], injected: frozenset[str]
) -> ModuleSchemas:
    """Describe the tools' inputs, and their not yet cached outputs, in one pass each."""
    schemas = describe_inputs(module, tools, injected)
    describe_outputs(tools)
    check_defaults(schemas)
    return schemas


def inspect_tool(
    module: ScannedModule,
    tool: ResolvedTool,
    injected: frozenset[str],
    permissive_fallback: bool,
    batch: ModuleSchemas | None = None,
) -> InspectedTool:
    """Compute raw schemas for one resolved tool; failures become diagnostics.

    ``batch`` (from ``describe_module``) holds input schemas already described with the rest of
    the module; a tool without one there is described on its own.
    """
    scanned = tool.scanned
    docstring = scanned.docstring
    if scanned.registered_at is not None:  # defined elsewhere: the registered function's own
        docstring = inspect.getdoc(tool.received if tool.received is not None else tool.function)
    description, param_docs = parse_docstring(docstring)
    warnings: list[Diagnostic] = []
    raw_input = raw_input_schema(module, tool, injected, permissive_fallback, warnings, batch)
    return InspectedTool(
        name=scanned.name,
        input_schema=raw_input,
        output_schema=raw_output_schema(module, tool),
        description=description,
        parameter_descriptions=param_docs,
        diagnostics=tuple(warnings),
    )
