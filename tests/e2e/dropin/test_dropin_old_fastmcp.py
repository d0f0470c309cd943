"""Flavor "fastmcp" against a fastmcp from before 2.10, whose servers have no lifespan manager of
their own (their low-level server holds the lifespan). Runs in ``nox -s dropin_fastmcp27``
(fastmcp 2.7.0, as mcp-server-qdrant 0.8.1 pins it); the default sessions have fastmcp 4.x."""

from __future__ import annotations

import importlib.metadata

import pytest

from tests.helpers.project import Project

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        tuple(int(p) for p in importlib.metadata.version("fastmcp").split(".")[:2]) >= (2, 10),
        reason="needs fastmcp<2.10: nox -s dropin_fastmcp27",
    ),
]

SERVER = '''
from typing import Annotated

from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("old")


@mcp.tool()
def ping(host: Annotated[str, Field(description="The host name")], count: int = 1) -> str:
    """Ping a host."""
    return host * count
'''


def test_an_old_fastmcp_server_generates_what_it_serves(project: Project) -> None:
    """``verify`` compares the tree with fastmcp's own tools/list of the same server (it failed
    with "'FastMCP' object has no attribute '_lifespan_manager'" for every tool)."""
    project.configure('sources = ["pkg"]\nflavor = "fastmcp"\n')
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVER)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    done = project.run("verify", "--against", "pkg.server:mcp")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the 1 generated tools equal what pkg.server:mcp" in done.stdout + done.stderr


OPENAPI = """
import httpx
from fastmcp import FastMCP

SPEC = {
    "openapi": "3.0.0",
    "info": {"title": "demo", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/items": {"get": {"operationId": "list_items", "responses": {"200": {"description": "ok"}}}}
    },
}

api = FastMCP.from_openapi(SPEC, httpx.AsyncClient(base_url="http://127.0.0.1:9"))  #@


@api.tool()
def ping(host: str) -> str:
    return host
"""


def test_an_old_fastmcp_openapi_server_is_reported_at_its_line(project: Project) -> None:
    """fastmcp 2.x builds ``FastMCPOpenAPI``'s tools into its store directly, with no
    registration: an error at the line creating it, a note once the marker keeps them."""
    project.configure('sources = ["pkg"]\nflavor = "fastmcp"\n')
    project.write("pkg/__init__.py", "")
    for marker, code, severity in (("", 2, ""), ("  # mcp-codegen: framework", 0, "note: ")):
        project.write("pkg/server.py", OPENAPI.replace("  #@", marker))
        done = project.run("generate")
        assert done.returncode == code, done.stderr
        lines = [line for line in done.stderr.splitlines() if "FastMCPOpenAPI" in line]
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith(f"pkg/server.py:13:7: {severity}tools that FastMCPOpenAPI ")
