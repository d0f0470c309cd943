"""`mcp-codegen serve` starts the runtime server; the official client lists and calls a tool."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.helpers.project import REPO, codegen_env

pytestmark = pytest.mark.process  # a server and its client


@pytest.mark.slow
def test_mcp_codegen_serve_over_stdio() -> None:
    async def session() -> tuple[list[str], dict]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "mcp_codegen", "serve", "--generated", "generated"],
            cwd=str(REPO),
            env=codegen_env(),
        )
        with anyio.fail_after(60):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                listed = await client.list_tools()
                result = await client.call_tool("count_members", {})
                return [t.name for t in listed.tools], result.model_dump(by_alias=True)

    names, result = anyio.run(session)
    committed = json.loads(
        subprocess.run(
            [sys.executable, "-m", "mcp_codegen", "export"],
            cwd=REPO,
            env=codegen_env(),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert names == [t["name"] for t in committed["tools"]]
    assert result["isError"] is False
    assert result["structuredContent"] == {"total": 2}
