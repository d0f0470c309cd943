"""The server object the tool, resource and prompt modules register on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer


class EverythingServer(MCPServer):
    """``MCPServer`` whose ``tool`` also takes mcp-codegen's ``input_schema=`` option.

    The SDK infers every input schema from the signature and has no option to publish a
    hand-written one; the conformance suite wants one tool whose listing keeps 2020-12 keywords
    (``$schema``, ``$defs``, ``additionalProperties``) that inference never writes. The generator
    records ``input_schema=`` as the tool's listed schema (docs/flavors.md), and this override
    publishes the same schema when the tool is registered, with or without ``use_generated``.
    Arguments are still validated from the signature, as for every ``MCPServer`` tool.
    """

    def tool(  # type: ignore[override]
        self, name: str | None = None, *, input_schema: dict[str, Any] | None = None, **options: Any
    ) -> Callable[[Any], Any]:
        register = super().tool(name, **options)
        if input_schema is None:
            return register

        def decorator(function: Any) -> Any:
            register(function)
            registered = self._tool_manager.get_tool(name or function.__name__)
            assert registered is not None
            registered.parameters = input_schema
            return function

        return decorator


mcp = EverythingServer(
    "mcp-codegen-everything",
    instructions="Every MCP feature the conformance suite checks; tools come from generated modules.",
)
