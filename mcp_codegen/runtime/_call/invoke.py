"""Execute ``tools/call`` against generated schemas: orchestration only.

Imported on the first ``tools/call`` only: it pulls in jsonschema (argument and strict output
validation) and builds pydantic converters per tool, lazily, on that tool's first call. The steps
live beside it: ``_prepare`` (find the function, read its signature), ``_arguments`` (validate
and convert), ``_injection`` (contexts, dependencies), ``_calls`` (threads, timeouts),
``_results`` (flavor ``"clean"`` results) and ``_flavors`` (the frameworks' results).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Mapping
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context

from mcp_codegen._shared.protocols import FIRST_NATURAL, variant_for
from mcp_codegen.runtime._call.arguments import convert_arguments
from mcp_codegen.runtime._call.clean_results import (
    CleanRules,
    check_output,
    error_result,
    serializable_on_the_wire,
    serialize,
)
from mcp_codegen.runtime._call.failures import (
    MAX_TOOL_MESSAGE,
    ProtocolFailure,
    ToolCallError,
    describe,
)
from mcp_codegen.runtime._call.injection import Contexts, Dependencies, Injector
from mcp_codegen.runtime._call.plan import Parameter, PreparedTool, ResultRules
from mcp_codegen.runtime._call.prepare import Preparer
from mcp_codegen.runtime._call.runs import run_tool
from mcp_codegen.runtime._load.registry import ToolRegistry

__all__ = ["Dependencies", "ToolCaller"]

logger = logging.getLogger("mcp_codegen.runtime")


class ToolCaller:
    """Runs tools by name: validate, convert, call, normalize. One per server."""

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        strict_output: bool = False,
        call_timeout: float | None = None,
        dependencies: Dependencies | None = None,
    ) -> None:
        self._registry = registry
        self._strict_output = strict_output
        self._call_timeout = call_timeout
        self._injector = Injector(dependencies)
        self._preparer = Preparer(registry, self._injector)
        self._prepared: dict[str, PreparedTool] = {}
        self._fastmcp_server: Any = None

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        request: ServerRequestContext[Any] | None = None,
        params: types.CallToolRequestParams | None = None,
    ) -> types.CallToolResult:
        """Call tool ``name``; every failure becomes an ``isError`` result. ``KeyError`` if unknown.

        ``request`` and ``params`` back the ``Context`` given to tools that take one; the
        protocol version ``request`` negotiated picks the output variant (none: the newest).
        Only a cancellation of the calling task propagates.
        """
        prepared = self._prepared.get(name)
        # Looked up outside the ``try``: an unknown name is a KeyError, not an isError result.
        binding = self._registry.binding(name) if prepared is None else prepared.binding
        try:
            if prepared is None:
                prepared = self._prepare(binding.name)
            rules = prepared.rules
            protocol_version = getattr(request, "protocol_version", None)
            if prepared.natural_rules is not None and variant_for(protocol_version) == "natural":
                rules = prepared.natural_rules
            assert rules is not None
            async with self._scope(prepared, rules, request) as scoped:
                contexts = Contexts(
                    lambda: Context(request_context=request, input_params=params), scoped
                )

                def supply(parameter: Parameter) -> Any:
                    if parameter.context is not None:
                        return contexts.get(parameter.context)
                    return self._injector.inject(prepared, parameter)

                given = self._registry.restore_arguments(name, dict(arguments or {}))
                args, kwargs = convert_arguments(prepared, given, supply)
                value = await run_tool(prepared, args, kwargs, self._call_timeout)
            result = rules.convert(value)
            if not isinstance(rules, CleanRules) and isinstance(result, types.CallToolResult):
                # The framework's own result; still, it must reach the client intact.
                if not result.is_error:
                    check_output(
                        prepared, result.structured_content, strict_output=self._strict_output
                    )
                serializable_on_the_wire(name, result)
            return result
        except ToolCallError as exc:
            return error_result(str(exc))
        except ProtocolFailure as failure:
            raise failure.error from None
        except Exception as exc:  # a dependency factory or a converter failing in its own way
            logger.error("calling tool %r failed", name, exc_info=True)
            return error_result(
                f"Tool {name!r} could not be called: {describe(exc, MAX_TOOL_MESSAGE)}"
            )

    def _prepare(self, name: str) -> PreparedTool:
        prepared, written_return = self._preparer.prepare(self._registry.binding(name))
        function = prepared.function
        prepared.rules = self._rules(prepared, function, written_return)
        if prepared.binding.natural and isinstance(prepared.rules, CleanRules):
            # From 2026-07-28 the value itself is the structured content, checked against the
            # natural schema; the parameters and converters are the same.
            natural = dataclasses.replace(
                prepared,
                box_field=None,
                output_schema=self._registry.get_tool(name, FIRST_NATURAL).get("outputSchema"),
                _output_validator=None,
            )
            prepared.natural_rules = CleanRules(natural, strict_output=self._strict_output)
        self._prepared[name] = prepared
        return prepared

    def _rules(
        self, prepared: PreparedTool, function: Callable[..., Any], written_return: Any
    ) -> ResultRules:
        binding = prepared.binding
        if binding.flavor == "clean":
            return CleanRules(prepared, strict_output=self._strict_output)
        # the framework rules import MCPServer's modules or fastmcp: only for flavored tools
        from mcp_codegen.runtime._call.framework_results import FastmcpRules, McpRules

        # The return annotation as the framework reads it: as written, evaluated only when it
        # is a string (get_type_hints would turn `-> None` into NoneType, which fastmcp, unlike
        # the SDK, describes with an output schema).
        shown = {
            "name": binding.name,
            "function_name": getattr(function, "__name__", binding.name),
            "return_annotation": prepared.return_annotation
            if isinstance(written_return, str)
            else written_return,
            "output_schema": prepared.output_schema,
            "box_field": binding.box_field,
        }
        try:
            if binding.flavor == "mcp":
                return McpRules(**shown, serialize=lambda value: serialize(prepared, value))
            made = self._preparer.factory_server(binding)
            return FastmcpRules(
                **shown,
                result_meta=binding.result_meta,
                # A factory's fastmcp server is what its tools' Context refers to, as there.
                server=self._fastmcp_instance if made is None else lambda: made,
            )
        except ToolCallError:
            raise
        except Exception as exc:  # the framework refusing a stand-in it accepted at build time
            raise ToolCallError(
                f"Tool {binding.name!r}: the {binding.flavor} framework cannot describe its "
                f"return annotation: {type(exc).__name__}: {describe(exc, MAX_TOOL_MESSAGE)}"
            ) from exc

    def _fastmcp_instance(self) -> Any:
        """The ``fastmcp.FastMCP`` a ``fastmcp.Context`` refers to (one per caller)."""
        if self._fastmcp_server is None:
            # fastmcp is optional
            import fastmcp

            self._fastmcp_server = fastmcp.FastMCP("mcp-codegen")
        return self._fastmcp_server

    def _scope(
        self, prepared: PreparedTool, rules: ResultRules, request: Any
    ) -> contextlib.AbstractAsyncContextManager[Any]:
        # A fastmcp Context outside flavor "fastmcp" (whose rules set up the same scope).
        if prepared.binding.flavor != "fastmcp" and any(
            parameter.context == "fastmcp" for parameter in prepared.parameters
        ):
            # the framework rules import MCPServer's modules or fastmcp: only for flavored tools
            from mcp_codegen.runtime._call.framework_results import fastmcp_context

            return fastmcp_context(request, self._fastmcp_instance)
        return rules.scope(request)
