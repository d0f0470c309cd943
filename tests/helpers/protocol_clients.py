"""The official Python MCP client, negotiating a chosen protocol revision.

``ClientSession.initialize()`` always offers the newest handshake revision (2025-11-25), so an
older one is negotiated with the session's own request, ``adopt`` and ``initialized`` calls: the
same three steps ``initialize()`` takes. 2026-07-28 has no handshake: ``discover()`` adopts it.
Afterwards ``list_tools`` and ``call_tool`` are the client's own, and ``call_tool`` validates
``structuredContent`` against the listed ``outputSchema`` (jsonschema, 2020-12).
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession

MODERN = "2026-07-28"


async def open_session(
    stack: AsyncExitStack, streams: tuple[Any, Any], protocol_version: str
) -> ClientSession:
    """A ``ClientSession`` on ``streams`` that negotiated ``protocol_version``."""
    session = await stack.enter_async_context(ClientSession(*streams))
    if protocol_version == MODERN:
        await session.discover()
    else:
        result = await session.send_request(
            types.InitializeRequest(
                params=types.InitializeRequestParams(
                    protocol_version=protocol_version,
                    capabilities=types.ClientCapabilities(),
                    client_info=types.Implementation(name="mcp-codegen-tests", version="1"),
                )
            ),
            types.InitializeResult,
        )
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
    assert session.protocol_version == protocol_version
    return session


async def list_and_call(
    session: ClientSession, calls: dict[str, dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The listed tools (wire JSON) and each call's result (wire JSON), by tool name."""
    listed = await session.list_tools()
    tools = [
        tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in listed.tools
    ]
    results = {}
    for name, arguments in calls.items():
        result = await session.call_tool(name, arguments)
        results[name] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return tools, results
