"""The build loop both framework flavors share: register, serve, record (worker process only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_codegen._generator.flavors.common import (
    FlavoredTool,
    accepted_options,
    apply_codegen_options,
    at_tool,
    framework_arguments,
    presented_function,
    unsupported_options,
)
from mcp_codegen._generator.inspection.resolve import ResolvedTool
from mcp_codegen._generator.inspection.unsupported import (
    resolved_annotations,
    schema_errors,
    unsupported_parameter,
)
from mcp_codegen._generator.model import JSON, ScannedModule
from mcp_codegen._generator.schema.anything import accept_anything_warnings
from mcp_codegen._generator.schema.inputs import hidden_parameters
from mcp_codegen._registration.served import list_served_tools
from mcp_codegen._shared.diagnostics import Diagnostic

#: (server, tool name, served dict) -> (box field or None, extra ``x-codegen`` keys)
ResultShape = Callable[[Any, str, dict[str, JSON]], tuple[str | None, dict[str, JSON]]]


def build_with(
    server: Any,
    framework: str,
    shape: ResultShape,
    module: ScannedModule,
    resolved: list[ResolvedTool],
    injected: frozenset[str],
) -> tuple[dict[str, dict[str, JSON]], list[Diagnostic]]:
    """Register every tool of ``module`` on ``server`` as its decorator would, then record what
    the server serves for each."""
    accepted = accepted_options(server.tool)
    diagnostics: list[Diagnostic] = []
    registered: list[ResolvedTool] = []
    for tool in resolved:
        scanned = tool.scanned
        problems = unsupported_options(module, scanned, accepted, framework)
        if problems:
            diagnostics.extend(problems)
            continue
        hidden = hidden_parameters(tool, injected, accepted)
        function = presented_function(tool, hidden)
        try:
            server.tool(**framework_arguments(scanned.options, accepted))(function)
        except Exception as exc:  # the framework's own refusal, reported at the tool
            diagnostics.append(
                _at_parameter(module, tool, exc, framework)
                or at_tool(
                    module,
                    scanned,
                    f"{framework} refuses tool {scanned.name!r}: {type(exc).__name__}: {exc}; "
                    "fix the function, or use the flavor of the framework this source is "
                    "written for",
                )
            )
            continue
        registered.append(tool)
    if not registered:
        return {}, diagnostics
    served = {entry["name"]: entry for entry in list_served_tools(server)}
    built: dict[str, dict[str, JSON]] = {}
    for tool in registered:
        name = tool.scanned.name
        entry = served.get(name)
        if entry is None:
            diagnostics.append(
                at_tool(
                    module,
                    tool.scanned,
                    f"{framework} accepted tool {name!r} but does not list it under that name "
                    f"(it lists {', '.join(sorted(served)) or 'nothing'}); report this as a bug",
                )
            )
            continue
        diagnostics.extend(accept_anything_warnings(module, tool.scanned, entry, framework))
        box_field, private = shape(server, name, entry)
        flavored = FlavoredTool(entry, box_field, private)
        built[name] = apply_codegen_options(tool.scanned, flavored, accepted).as_message()
    return built, diagnostics


def _at_parameter(
    module: ScannedModule, tool: ResolvedTool, exc: Exception, framework: str
) -> Diagnostic | None:
    """The framework could not describe a parameter: the error at that parameter."""
    if not isinstance(exc, schema_errors()) or isinstance(exc, TypeError):
        return None
    return unsupported_parameter(
        tool.scanned,
        resolved_annotations(tool.function),
        module.relative_path,
        f"{framework} infers its schema, so give the parameter a type pydantic can describe "
        "(a JSON value: str, int, a list, a BaseModel, ...)",
    )
