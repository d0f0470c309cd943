"""Tools defined inside methods, on servers that objects hold: generated from what the server
registered at import, found again by the hook (strict), refused by ``mcp_codegen.runtime`` with the
pointer to ``mcp-codegen run``. The oracle is the SDK's own listing of the same server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import REPO, Project

SERVER = '''
from mcp.server.mcpserver import MCPServer


class IndexTools:
    def register_tools(self, mcp):
        @mcp.tool()
        def list_indices(cluster: str | None = None) -> str:
            """List all indices."""
            return cluster or "all"


class Catalog:
    def __init__(self, name: str):
        self.mcp = MCPServer(name)
        IndexTools().register_tools(self.mcp)

        @self.mcp.tool()
        def find(title: str, limit: int = 3) -> list[str]:
            """Find books."""
            return [title] * limit


server = Catalog("books").mcp
'''

LIST = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "hooked":
    from mcp_codegen.runtime import use_generated
    use_generated(sys.argv[3], strict=True)
from cpkg.server import server
tools = asyncio.run(server.list_tools())
print(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tools], sort_keys=True))
"""


@pytest.mark.slow
@pytest.mark.process
def test_tools_of_a_server_held_by_an_object(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("cpkg/__init__.py", "")
    project.write("cpkg/server.py", SERVER)
    project.configure('sources = ["cpkg"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    output = tmp_path / "generated"
    _, modules = read_tree(output)
    assert {t["name"] for m in modules for t in m["TOOLS"]} == {"find", "list_indices"}

    def listing(mode: str) -> list[dict[str, object]]:
        out = subprocess.run(
            [sys.executable, "-c", LIST, str(tmp_path), mode, str(output)],
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert listing("hooked") == listing("plain")

    from mcp.client import Client

    from mcp_codegen.runtime import load_tools
    from tests.runtime.runtime_support import build_server

    server = build_server(load_tools(output))

    async def call() -> object:
        async with Client(server) as client:
            return await client.call_tool("find", {"title": "x"})

    result = anyio.run(call)
    assert result.is_error
    text = result.content[0].text
    assert "cpkg.server:Catalog.__init__.<locals>.find" in text
    assert f"mcp-codegen run --generated {output}" in text
