"""The schema follows the signature the framework sees: a decorator under the tool decorator
that sets ``__signature__`` (hiding an injected parameter) decides the parameters, in the
``clean`` flavor too. The oracle is the SDK's own listing of the same server."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

import pytest

from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import Project

TOOLS = """
import functools
import inspect

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("w")


class Client:
    pass


def with_client(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, client=Client(), **kwargs)

    signature = inspect.signature(function)
    wrapper.__signature__ = signature.replace(
        parameters=[p for p in signature.parameters.values() if p.name != "client"]
    )
    return wrapper


@mcp.tool()
@with_client
def lookup(key: str, client: Client, limit: int = 3) -> str:
    \"\"\"Look up a key.\"\"\"
    return key
"""


@pytest.mark.process
@pytest.mark.parametrize("flavor", ["clean", "mcp"])
def test_a_hidden_parameter_stays_hidden(tmp_path: Path, flavor: str) -> None:
    project = Project(tmp_path)
    project.write("wpkg/__init__.py", "")
    project.write("wpkg/tools.py", TOOLS)
    project.configure(f'sources = ["wpkg"]\nflavor = "{flavor}"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    _, modules = read_tree(tmp_path / "generated")
    (schema,) = [t["inputSchema"] for m in modules for t in m["TOOLS"]]
    sys.path.insert(0, str(tmp_path))
    try:
        served = asyncio.run(importlib.import_module("wpkg.tools").mcp.list_tools())
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "wpkg" or m.startswith("wpkg.")]:
            del sys.modules[name]
    sdk = served[0].input_schema
    assert set(schema["properties"]) == set(sdk["properties"]) == {"key", "limit"}
    assert schema["required"] == sdk["required"] == ["key"]
