"""Flavor "mcp": tools exactly as the official MCP SDK's high-level server lists them.

SDK 2.x (``mcp.server.mcpserver.MCPServer``) when installed, else SDK 1.x
(``mcp.server.fastmcp.FastMCP``); the two cannot be installed side by side.
"""

from __future__ import annotations

from typing import Any

from mcp_codegen._generator.flavors.build_loop import build_with
from mcp_codegen._generator.inspection.resolve import ResolvedTool
from mcp_codegen._generator.model import JSON, ScannedModule
from mcp_codegen._shared.diagnostics import Diagnostic

BOX_FIELD = "result"  # func_metadata wraps non-object returns as {"result": value}


def new_server() -> tuple[Any, str]:
    """A fresh server of the installed SDK, and how diagnostics name it."""
    try:
        from mcp.server.mcpserver import MCPServer  # an optional framework, in the worker only
    except ImportError:
        try:
            from mcp.server.fastmcp import FastMCP  # SDK 1.x, likewise
        except ImportError:
            raise ImportError(
                'flavor "mcp" needs the official MCP SDK (`pip install mcp`) in the environment '
                "that runs mcp-codegen"
            ) from None
        return FastMCP("mcp-codegen"), "the MCP SDK 1.x FastMCP"
    return MCPServer("mcp-codegen"), "the MCP SDK's MCPServer"


def result_shape(
    server: Any, name: str, entry: dict[str, JSON]
) -> tuple[str | None, dict[str, JSON]]:
    """The SDK boxes a result when its output model wraps the return type; no marker anywhere."""
    tool = server._tool_manager.get_tool(name)
    wrapped = bool(getattr(tool.fn_metadata, "wrap_output", False)) and "outputSchema" in entry
    return (BOX_FIELD if wrapped else None), {}


def build(
    module: ScannedModule, resolved: list[ResolvedTool], injected: frozenset[str]
) -> tuple[dict[str, dict[str, JSON]], list[Diagnostic]]:
    server, framework = new_server()
    return build_with(server, framework, result_shape, module, resolved, injected)
