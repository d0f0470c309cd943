"""A tool returning ``None`` with an injected parameter (``ctx: Context``) lists as the framework
lists it.

The flavors hand the framework a stand-in without the injected parameters; its return annotation
came from ``get_type_hints()``, which turns ``-> None`` into ``NoneType``. fastmcp gives a
``-> None`` tool no output schema but boxes ``NoneType`` as ``{"result": {"type": "null"}}``, so
every such tool (keboola-mcp-server's ``update_project_description``, found by
``nox -s realworld``) was silently different. Oracle: ``mcp-codegen verify`` against the real
server object, which lists it with the framework's own code.
"""

from __future__ import annotations

import pytest

from tests.helpers.project import Project

pytestmark = pytest.mark.process  # imports the frameworks in worker and verify processes

SOURCES = {
    "fastmcp": '''
        from fastmcp import Context, FastMCP

        mcp = FastMCP("none-return")


        @mcp.tool
        async def forget(ctx: Context, key: str) -> None:
            """Forget a key."""


        @mcp.tool
        def forget_plain(key: str) -> None:
            """Forget a key, without a context."""


        @mcp.tool
        async def count(ctx: Context, key: str) -> int:
            """Count a key."""
            return 1
        ''',
    "mcp": '''
        from mcp.server.mcpserver import Context, MCPServer

        mcp = MCPServer("none-return")


        @mcp.tool()
        async def forget(ctx: Context, key: str) -> None:
            """Forget a key."""


        @mcp.tool()
        def forget_plain(key: str) -> None:
            """Forget a key, without a context."""
        ''',
}


@pytest.mark.slow
@pytest.mark.parametrize("flavor", sorted(SOURCES))
def test_none_return_with_injected_parameter_is_exact(tmp_path, flavor):
    pytest.importorskip("fastmcp" if flavor == "fastmcp" else "mcp.server.mcpserver")
    project = Project(tmp_path)
    project.write("tools.py", SOURCES[flavor])
    project.configure(f'sources = ["tools.py"]\nflavor = "{flavor}"\n')
    generated = project.run("generate")
    assert generated.returncode == 0, generated.stderr
    verified = project.run("verify", "--against", "tools:mcp")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "equal what tools:mcp" in verified.stdout
