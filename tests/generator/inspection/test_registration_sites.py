"""A registering call counts for its own module only while that module's body runs.

``mcp.tool(name="x")(self.method)`` inside a method that another module's import calls
(awslabs-cloudwatch-mcp-server 0.3.1: ``server.py`` calls each tool class's ``register``) used to
be found only when the worker happened to import the calling module first; with several workers
the tool module could be imported alone first, so the output depended on the worker layout (the
number of cores). Now such a call is never taken from another module's import, whatever the order.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from mcp_codegen._generator.inspection import registrations

TOOLS = """
class Tools:
    def status(self, verbose: bool = False) -> str:
        return "ok"

    def register(self, mcp):
        mcp.tool(name="status")(self.status)
"""

SERVER = """
tools = Tools()
tools.register(mcp)
"""

TOOLS_AT_IMPORT = (
    TOOLS
    + """
Tools().register(mcp)
"""
)


def test_a_call_made_from_another_modules_import_does_not_count(tmp_path) -> None:
    tools_path, server_path = str(tmp_path / "tools.py"), str(tmp_path / "server.py")
    server = MCPServer("sites")
    namespace: dict = {"mcp": server}
    registrations.watch()
    with registrations.recording():
        exec(compile(TOOLS, tools_path, "exec"), namespace)
        exec(compile(SERVER, server_path, "exec"), namespace)
    assert [t.name for t in server._tool_manager.list_tools()] == ["status"]  # it registered
    assert registrations.registered_at(tools_path, 7, 9) == []  # but not at tools.py's import


def test_a_call_made_while_its_own_module_runs_counts(tmp_path) -> None:
    tools_path = str(tmp_path / "tools_at_import.py")
    server = MCPServer("sites")
    registrations.watch()
    with registrations.recording():
        exec(compile(TOOLS_AT_IMPORT, tools_path, "exec"), {"mcp": server})
    found = registrations.registered_at(tools_path, 7, 9)
    assert [name for name, _ in found] == ["status"]
    assert found[0][1].__self__.__class__.__name__ == "Tools"
