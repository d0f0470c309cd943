"""``tools/call`` in the framework flavors: results and failures as the framework makes them.

A module generated in flavor ``"mcp"`` lists exactly what the SDK's ``MCPServer`` lists, so a
client must also get exactly ``MCPServer``'s answer to a call; likewise for ``"fastmcp"``. The
runtime does not re-implement those conversions, it runs them: for each tool it asks the
framework to describe a stand-in function with the tool's return annotation (no parameters: the
runtime validates and converts arguments itself) and lets that description convert every return
value, as the framework's own server does after calling the tool.

- ``"mcp"``: ``mcp.server.mcpserver.utilities.func_metadata.func_metadata(...).convert_result``
  (``str`` -> text, content blocks pass, anything else JSON with indent 2, one block per list
  item; structured content validated against the output model and dumped by alias; a
  ``CallToolResult`` passes). A tool's ``ToolError`` reads ``Error executing tool NAME: message``,
  any other exception only ``Error executing tool NAME`` (MCPServer keeps crash details on the
  server); an ``MCPError`` is a JSON-RPC error.
- ``"fastmcp"``: ``fastmcp.tools.FunctionTool.convert_result`` (compact JSON text, structured
  content only for objects unless there is an output schema, ``{"result": v}`` when the schema
  carries ``x-fastmcp-wrap-result``). A tool's ``FastMCPError`` reads as its message, any other
  exception ``Error calling tool 'NAME': message`` (only ``Error calling tool 'NAME'`` when
  fastmcp's ``mask_error_details`` setting is on); generators are collected into lists.

Imported on the first call of a flavored tool: this module imports the SDK; the fastmcp rules
import ``fastmcp``, which a fastmcp-flavored tool's own module imports anyway.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError

from mcp_codegen.runtime._call.failures import ProtocolFailure, ToolCallError, describe_exception

logger = logging.getLogger("mcp_codegen.runtime")

#: What each framework calls the field it boxes a non-object return value in.
FRAMEWORK_BOX_FIELD = "result"


def returning(name: str, annotation: Any) -> Callable[[], Any]:
    """A function with no parameters, named ``name``, whose return annotation is ``annotation``:
    what the framework is shown to build the tool's output conversion."""

    def stand_in() -> Any:
        raise AssertionError("never called: only its return annotation is read")

    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        return_annotation=annotation
    )
    stand_in.__annotations__ = (
        {} if annotation is inspect.Signature.empty else {"return": annotation}
    )
    return stand_in


def _rename_box(result: types.CallToolResult, box_field: str | None) -> None:
    """``box_field=`` renames the framework's ``result`` box (docs/flavors.md)."""
    structured = result.structured_content
    if (
        box_field is None
        or box_field == FRAMEWORK_BOX_FIELD
        or not isinstance(structured, dict)
        or set(structured) != {FRAMEWORK_BOX_FIELD}
    ):
        return
    result.structured_content = {box_field: structured[FRAMEWORK_BOX_FIELD]}


class McpRules:
    """Flavor ``"mcp"``: results and failures as the SDK's ``MCPServer`` makes them."""

    materializes_generators = False

    def __init__(
        self,
        *,
        name: str,
        function_name: str,
        return_annotation: Any,
        output_schema: dict[str, Any] | None,
        box_field: str | None,
        serialize: Callable[[Any], Any],
    ) -> None:
        # MCPServer's modules: only for tools of flavor "mcp"
        from mcp.server.mcpserver.exceptions import InvalidSignature
        from mcp.server.mcpserver.utilities.func_metadata import func_metadata

        self.name = name
        self._box_field = box_field
        self._serialize = serialize
        stand_in = returning(function_name, return_annotation)
        # Content only: what MCPServer sends for a tool without an output schema, and the text
        # part of a result whose output schema mcp-codegen's `output_schema=` replaced.
        self._unstructured = func_metadata(stand_in, structured_output=False)
        self._structured = None
        if output_schema is not None:
            try:
                metadata = func_metadata(stand_in, structured_output=True)
            except InvalidSignature:
                metadata = None
            # The SDK's own output model applies when it boxes exactly when the generated tool
            # does; otherwise `output_schema=` replaced the SDK's schema (and its box), and the
            # value is sent unboxed, serialized by its annotation, as in flavor "clean".
            if (
                metadata is not None
                and metadata.output_schema is not None
                and metadata.wrap_output == (box_field is not None)
            ):
                self._structured = metadata
        self._override = output_schema is not None and self._structured is None

    def convert(self, value: Any) -> types.CallToolResult:
        """The result ``MCPServer`` sends for ``value``."""
        metadata = self._structured or self._unstructured
        built = not isinstance(value, types.CallToolResult)  # the tool's own result passes
        try:
            result = metadata.convert_result(value)
            if self._override and built:
                data = self._serialize(value)
                if not isinstance(data, dict):
                    raise TypeError(
                        f"returned {type(value).__name__}, but its outputSchema describes an object"
                    )
                result.structured_content = data
        except Exception as exc:
            # MCPServer reports a failed conversion (a value its output model refuses) as a
            # crash: the details stay in the server's log.
            logger.warning("converting what tool %r returned failed: %s", self.name, exc)
            raise ToolCallError(f"Error executing tool {self.name}") from exc
        if built and isinstance(result, types.CallToolResult):
            _rename_box(result, self._box_field)
        return result  # type: ignore[return-value]

    def failure(self, error: BaseException, describe: Callable[[BaseException], str]) -> str:
        """The ``isError`` text ``MCPServer`` sends when the tool raised ``error``."""
        # MCPServer's modules: only for tools of flavor "mcp"
        from mcp.server.mcpserver.exceptions import ResourceError, ToolError

        if isinstance(error, MCPError):
            raise ProtocolFailure(error)
        if isinstance(error, ToolError | ResourceError):
            return f"Error executing tool {self.name}: {describe(error)}"
        return f"Error executing tool {self.name}"

    def scope(self, request: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        """Nothing to set up around a call."""
        return contextlib.nullcontext()


class FastmcpRules:
    """Flavor ``"fastmcp"``: results and failures as ``fastmcp.FastMCP`` makes them."""

    materializes_generators = True

    def __init__(
        self,
        *,
        name: str,
        function_name: str,
        return_annotation: Any,
        output_schema: dict[str, Any] | None,
        box_field: str | None,
        result_meta: dict[str, Any] | None,
        server: Callable[[], Any],
    ) -> None:
        try:
            # fastmcp is optional
            from fastmcp.tools.function_tool import FunctionTool
        except ImportError as exc:
            raise ToolCallError(
                f"Tool {name!r} was generated in flavor 'fastmcp'; serving its calls needs the "
                f"fastmcp package (`pip install fastmcp`): {exc}"
            ) from exc
        # fastmcp is optional
        import fastmcp

        self.name = name
        self._box_field = box_field
        self._result_meta = result_meta
        self._server = server
        self._tool = FunctionTool.from_function(
            returning(function_name, return_annotation),
            name=name,
            output_schema=copy.deepcopy(output_schema),
        )
        self._mask_details = bool(fastmcp.settings.mask_error_details)

    def convert(self, value: Any) -> types.CallToolResult:
        """The result ``fastmcp.FastMCP`` sends for ``value``."""
        # fastmcp is optional
        from fastmcp.tools.base import ToolResult

        passthrough = isinstance(value, types.CallToolResult | ToolResult)
        try:
            converted = self._tool.convert_result(value)
            wire = converted.to_mcp_result()
        except Exception as exc:
            raise ToolCallError(self.failure(exc, describe_exception)) from exc
        if isinstance(wire, tuple):
            content, structured = wire
            result = types.CallToolResult(content=content, structured_content=structured)
        elif isinstance(wire, list):
            result = types.CallToolResult(content=wire)
        else:
            result = wire
        if not passthrough:
            _rename_box(result, self._box_field)
            if self._result_meta is not None:
                result.meta = copy.deepcopy(self._result_meta)
        return result

    def failure(self, error: BaseException, describe: Callable[[BaseException], str]) -> str:
        """The ``isError`` text ``fastmcp.FastMCP`` sends when the tool raised ``error``."""
        # fastmcp is optional
        from fastmcp.exceptions import FastMCPError
        from fastmcp.utilities.exceptions import get_http_status_code, is_timeout_error
        from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY

        if isinstance(error, FastMCPError):
            return describe(error)
        if isinstance(error, MCPError) and error.error.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
            raise ProtocolFailure(error)
        if get_http_status_code(error) == 429:
            return "Rate limited by upstream API, please retry later"
        if is_timeout_error(error):
            return "Upstream request timed out, please retry"
        if self._mask_details:
            return f"Error calling tool {self.name!r}"
        return f"Error calling tool {self.name!r}: {describe(error)}"

    def scope(self, request: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        """fastmcp's request and ``Context`` for the call, as its server sets them up."""
        return fastmcp_context(request, self._server)


@contextlib.asynccontextmanager
async def fastmcp_context(request: Any, server: Callable[[], Any]) -> AsyncIterator[Any]:
    """A ``fastmcp.Context`` bound to this request, current while the tool runs (so that both a
    ``ctx: Context`` parameter and ``fastmcp.server.dependencies.get_context()`` work)."""
    # fastmcp is optional
    from fastmcp.server.context import Context
    from fastmcp.server.dependencies import bind_request_context

    with bind_request_context(request) if request is not None else contextlib.nullcontext():
        async with Context(fastmcp=server()) as context:
            yield context
