"""A package whose name starts like a framework's (``mcp_clickhouse`` beside ``mcp`` in
site-packages) is user code: its registering calls keep their frames, so the worker finds the
function of ``mcp.add_tool(obj.method)`` there and the omission check can point at the call.

Before the fix, ``.../site-packages/mcp_clickhouse/mcp_server.py`` started with the ``mcp``
package's directory and every frame of such a package was dropped as the framework's
(mcp-clickhouse 0.7.0: its three add_tool calls "registered nothing").
"""

from __future__ import annotations

import os

import mcp
from mcp.server.mcpserver import MCPServer

from mcp_codegen._generator.inspection import registrations

SOURCE = """
class Metadata:
    def list_databases(self, like: str = "") -> list[str]:
        return []

metadata = Metadata()
mcp.add_tool(metadata.list_databases, name="list_databases")
"""


def test_a_package_named_like_the_framework_is_user_code() -> None:
    framework_dir = os.path.dirname(os.path.abspath(mcp.__file__))
    path = framework_dir + "_lookalike_server/server.py"  # .../site-packages/mcp_lookalike_server
    server = MCPServer("lookalike")
    registrations.watch()
    with registrations.recording():
        exec(compile(SOURCE, path, "exec"), {"mcp": server})
    found = registrations.registered_at(path, 7, 1)
    assert [name for name, _ in found] == ["list_databases"]
    function = found[0][1]
    assert function.__self__.__class__.__name__ == "Metadata"  # the bound method, as registered
    frames = next(
        r.frames for r in reversed(registrations.recorded()) if r.name == "list_databases"
    )
    assert frames[0] == (os.path.abspath(path), 7, 1)
