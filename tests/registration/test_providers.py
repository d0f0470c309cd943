"""Which of a server's tools come from no registration (``_registration.providers``), against
real fastmcp servers built the ways its documentation shows; the oracle for "builds tools" is
the provider's own listing."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

fastmcp = pytest.importorskip("fastmcp")

from fastmcp import FastMCP  # noqa: E402
from fastmcp.server import create_proxy  # noqa: E402
from fastmcp.server.providers import Provider  # noqa: E402
from fastmcp.server.providers.openapi import OpenAPIProvider  # noqa: E402
from fastmcp.server.sessions import SessionProvider  # noqa: E402
from fastmcp.tools import Tool  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402

from mcp_codegen._registration.providers import (  # noqa: E402
    built_from,
    server_tool_providers,
    tool_providers,
)
from tests.helpers.openapi import ITEMS_SPEC  # noqa: E402


class Listed(Provider):
    async def _list_tools(self) -> Sequence[Tool]:
        return [Tool(name="made", parameters={"type": "object"})]


class ResourcesOnly(Provider):
    """Lists resources only (as fastmcp's skills providers do): no tools."""


def _local_tool_names(server: FastMCP) -> set[str]:
    return {tool.name for tool in asyncio.run(server._local_provider.list_tools())}


def _listed(server: FastMCP) -> set[str]:
    return {tool.name for tool in asyncio.run(server.list_tools())}


def test_an_openapi_server_builds_tools_no_registration_makes() -> None:
    server = FastMCP.from_openapi(ITEMS_SPEC, name="api")

    @server.tool()
    def ping(host: str) -> str:
        return host

    assert _listed(server) - _local_tool_names(server) == {"get_item"}  # the oracle
    assert server_tool_providers(server) == ["OpenAPIProvider"]
    assert built_from("OpenAPIProvider") == "an OpenAPI document"


def test_a_mounted_openapi_server_counts_only_when_asked_into_servers() -> None:
    main = FastMCP("main")
    main.mount(FastMCP.from_openapi(ITEMS_SPEC, name="inner"), namespace="api")
    assert "api_get_item" in _listed(main)
    assert server_tool_providers(main) == ["OpenAPIProvider"]
    # the watch records the inner server's own add_provider; the mount adds no second record
    assert all(tool_providers(p, into_servers=False) == [] for p in main.providers)


def test_providers_attached_each_documented_way() -> None:
    added = FastMCP("added")
    added.add_provider(OpenAPIProvider(openapi_spec=ITEMS_SPEC), namespace="ns")
    assert server_tool_providers(added) == ["OpenAPIProvider"]
    custom = FastMCP("custom", providers=[Listed()])
    assert _listed(custom) == {"made"}
    assert server_tool_providers(custom) == ["Listed"]
    assert built_from("Listed") == "its own code"
    proxy = create_proxy("http://127.0.0.1:9/mcp")
    assert server_tool_providers(proxy) == ["ProxyProvider"]
    sessions = FastMCP("sessions")
    sessions.add_provider(SessionProvider())
    assert _listed(sessions) == {"create_session", "end_session"}
    assert server_tool_providers(sessions) == ["SessionProvider"]
    assert built_from("SessionProvider").startswith("fastmcp's own")


def test_servers_whose_every_tool_is_registered_have_none() -> None:
    plain = FastMCP("plain")

    @plain.tool()
    def add(a: int, b: int) -> int:
        return a + b

    quiet = FastMCP("quiet", providers=[ResourcesOnly()])
    assert _listed(quiet) == set()
    assert server_tool_providers(plain) == server_tool_providers(quiet) == []
    assert server_tool_providers(MCPServer("sdk")) == []
    assert server_tool_providers(object()) == []
