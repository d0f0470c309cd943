"""Stage 2b (in the isolated worker): JSON Schemas from resolved types with pydantic ``TypeAdapter``.

Inputs go through a ``TypedDict`` of the parameters (seed 000); outputs use serialization mode. The
schemas returned here are raw pydantic output plus defaults; ``transforms`` cleans them afterwards.
The parts live in ``schema_types`` (annotations), ``schema_inputs`` (the TypedDict),
``schema_defaults`` (defaults as JSON), ``schema_outputs`` and ``schema_batch`` (one pass per module).
"""

from __future__ import annotations

import inspect

import docstring_parser
import pydantic
from pydantic import TypeAdapter

from mcp_codegen._generator.inspection.resolve import ResolvedTool, ResolveFailure
from mcp_codegen._generator.inspection.unsupported import unsupported_parameter
from mcp_codegen._generator.model import JSON, InspectedTool, ScannedModule
from mcp_codegen._generator.schema.batch import ModuleSchemas, describe_module
from mcp_codegen._generator.schema.defaults import input_defaults
from mcp_codegen._generator.schema.hints import (
    CONTENT_TYPE_NAMES,
    has_no_output_schema,
    is_injected,
)
from mcp_codegen._generator.schema.inputs import plan_input
from mcp_codegen._generator.schema.outputs import (
    OUTPUT_CACHE as _OUTPUT_CACHE,  # tests reset the cache
)
from mcp_codegen._generator.schema.outputs import output_schema
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

PERMISSIVE_INPUT: dict[str, JSON] = {"type": "object", "additionalProperties": True}


def _describe_failure(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.split("For further information")[0].strip()


def _at_parameter(tool: ResolvedTool, injected: frozenset[str], path: str) -> Diagnostic | None:
    """The parameter pydantic could not describe, as an error at that parameter."""
    return unsupported_parameter(
        tool.scanned,
        plan_input(tool, injected, path).annotations,
        path,
        "give it a type pydantic can describe (a JSON value: str, int, a list, a BaseModel, ...) "
        "or pass input_schema= in the decorator",
    )


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


def input_schema(
    tool: ResolvedTool,
    injected: frozenset[str],
    warnings: list[Diagnostic],
    path: str,
    batch: ModuleSchemas | None = None,
) -> tuple[JSON, dict[str, JSON]]:
    """Raw input schema and the JSON defaults of optional parameters."""
    prepared = batch.inputs.get(id(tool)) if batch is not None else None
    plan = prepared[0] if prepared is not None else plan_input(tool, injected, path)
    warnings.extend(plan.warnings)
    checked = batch.defaults.get(id(tool)) if batch is not None and prepared is not None else None
    defaults = input_defaults(plan, path, checked)
    if prepared is not None:
        return prepared[1], defaults
    return TypeAdapter(plan.arguments).json_schema(mode="validation"), defaults


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
    path = module.relative_path
    warnings: list[Diagnostic] = []
    docstring = scanned.docstring
    if scanned.registered_at is not None:  # defined elsewhere: the registered function's own
        docstring = inspect.getdoc(tool.received if tool.received is not None else tool.function)
    description, param_docs = parse_docstring(docstring)
    raw_input: JSON = None
    raw_output: JSON = None
    if "input_schema" not in scanned.options:
        try:
            schema, defaults = input_schema(tool, injected, warnings, path, batch)
            for name, value in defaults.items():
                schema["properties"][name]["default"] = value
            raw_input = schema
        except ResolveFailure as failure:
            variadic = any(p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD") for p in tool.parameters)
            if not (permissive_fallback and variadic):
                raise
            warnings.append(
                Diagnostic(
                    path,
                    scanned.position.line,
                    scanned.position.column,
                    f"{failure.diagnostics[0].message}; using the permissive fallback "
                    "schema (any object)",
                    severity="warning",
                )
            )
            raw_input = dict(PERMISSIVE_INPUT)
        except (
            pydantic.PydanticSchemaGenerationError,
            pydantic.PydanticUserError,
            pydantic.errors.PydanticInvalidForJsonSchema,
            TypeError,
        ) as exc:
            if not permissive_fallback:
                raise ResolveFailure(
                    [
                        _at_parameter(tool, injected, path)
                        or Diagnostic(
                            path,
                            scanned.position.line,
                            scanned.position.column,
                            f"pydantic cannot describe the parameters of {scanned.name!r}: "
                            f"{_describe_failure(exc)}; use a type pydantic supports or pass "
                            "input_schema=",
                        )
                    ]
                ) from None
            warnings.append(
                Diagnostic(
                    path,
                    scanned.position.line,
                    scanned.position.column,
                    f"pydantic cannot describe the parameters ({_describe_failure(exc)}); "
                    "using the permissive fallback schema",
                    severity="warning",
                )
            )
            raw_input = dict(PERMISSIVE_INPUT)
    if "output_schema" not in scanned.options:
        try:
            raw_output = output_schema(tool)
        except (
            pydantic.PydanticSchemaGenerationError,
            pydantic.PydanticUserError,
            pydantic.errors.PydanticInvalidForJsonSchema,
            TypeError,
        ) as exc:
            raise ResolveFailure(
                [
                    Diagnostic(
                        path,
                        scanned.position.line,
                        scanned.position.column,
                        f"pydantic cannot describe the return type of {scanned.name!r} "
                        f"({scanned.return_annotation_source}): {_describe_failure(exc)}; "
                        "use a type pydantic supports or pass output_schema=",
                    )
                ]
            ) from None
    return InspectedTool(
        name=scanned.name,
        input_schema=raw_input,
        output_schema=raw_output,
        description=description,
        parameter_descriptions=param_docs,
        diagnostics=tuple(warnings),
    )
