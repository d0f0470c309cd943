"""Flavor "mcp" warns at each parameter that ``MCPServer`` lists with a schema accepting any
value, and writes what it lists all the same."""

from __future__ import annotations

import json
import re
import runpy

import anyio
import pytest

from tests.helpers.project import Project

SOURCE = """
from typing import Any

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("loose")


@mcp.tool()
def loose(x, y: Any, z: object, good: int, *args, **kw) -> int:
    return 1


@mcp.tool()
def tight(count: int, names: list[str]) -> int:
    return count
"""


def _listed(path: str) -> dict[str, dict]:
    """What a real MCPServer lists for the module: tool name -> input schema."""
    server = runpy.run_path(path)["mcp"]
    tools = anyio.run(server.list_tools)
    return {tool.name: tool.input_schema for tool in tools}


@pytest.mark.process
def test_accept_anything_parameters_are_warned_at_and_served_unchanged(project: Project) -> None:
    project.configure('sources = ["pkg"]\nflavor = "mcp"\n')
    source = project.write("pkg/tools.py", SOURCE)
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    listed = _listed(str(source))
    properties = listed["loose"]["properties"]
    # the oracle: MCPServer lists x, *args and **kw as strings though it validates nothing,
    # and y, z with no constraint at all
    assert {name: set(schema) for name, schema in properties.items()} == {
        "x": {"title", "type"},
        "y": {"title"},
        "z": {"title"},
        "good": {"title", "type"},
        "args": {"title", "type"},
        "kw": {"title", "type"},
    }
    line = (
        source.read_text()
        .splitlines()
        .index("def loose(x, y: Any, z: object, good: int, *args, **kw) -> int:")
    )
    text = source.read_text().splitlines()[line]
    warned = re.findall(r"^pkg/tools\.py:(\d+):(\d+): warning: (.*)$", result.stderr, re.M)
    at = {(int(row), int(col)) for row, col, _ in warned}
    # at each parameter's name (after its stars), 1-based
    names = ("(x", "y:", "z:", "*args", "**kw")
    assert at == {
        (line + 1, text.index(name) + 1 + name.count("*") + name.count("(")) for name in names
    }
    assert len(warned) == 5, result.stderr
    messages = [message for _, _, message in warned]
    assert any("'x' of tool 'loose' has no annotation" in m for m in messages)
    assert any(
        "'y' of tool 'loose' (Any) gets a schema that accepts any value" in m for m in messages
    )
    assert any("*args of tool 'loose'" in m and "keyword argument args=" in m for m in messages)
    assert "tight" not in result.stderr
    exported = json.loads(project.run("export", "--protocol", "2025-11-25").stdout)["tools"]
    assert {tool["name"]: tool["inputSchema"] for tool in exported} == listed
