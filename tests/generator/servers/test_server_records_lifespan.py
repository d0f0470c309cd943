"""A server whose tools/list reads its lifespan's state (keboola-mcp-server's middleware reads
its ``ServerState`` from ``request_context.lifespan_context``) is recorded for the fast path:
the probe answers without the lifespan first, and when that fails, once more inside it, as the
server's own stdio run would. Before, such a server was recorded without initialize ("cannot
record its initialize answer") and ``mcp-codegen run`` served it without the fast path.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from mcp_codegen._generator.flavors.servers import server_record

fastmcp = pytest.importorskip("fastmcp")
from fastmcp.server.middleware import Middleware  # noqa: E402


@asynccontextmanager
async def lifespan(app: Any) -> Any:
    yield {"ready": True}


class NeedsState(Middleware):
    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        state = context.fastmcp_context.request_context.lifespan_context
        if not (isinstance(state, dict) and state.get("ready")):
            raise TypeError("the lifespan's state is not available")
        return await call_next(context)


def test_a_listing_that_needs_the_lifespan_is_recorded() -> None:
    mcp = fastmcp.FastMCP("needs-state", lifespan=lifespan)
    mcp.add_middleware(NeedsState())

    @mcp.tool
    def ping(x: int) -> int:
        """Echo."""
        return x

    record = anyio.run(server_record, mcp)
    assert record["tools"] is not None
    assert [tool["name"] for tool in record["tools"]] == ["ping"]
    assert set(record["initialize"]) >= {"2025-11-25"}
    assert record["initialize"]["2025-11-25"]["serverInfo"]["name"] == "needs-state"


def test_a_server_without_a_lifespan_need_is_recorded_as_before() -> None:
    mcp = fastmcp.FastMCP("plain")

    @mcp.tool
    def pong(y: str) -> str:
        """Echo."""
        return y

    record = anyio.run(server_record, mcp)
    assert [tool["name"] for tool in record["tools"]] == ["pong"]
