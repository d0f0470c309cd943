"""SDK 1.x-style sources (``from mcp.server.fastmcp import FastMCP``) under flavor "mcp".

This file runs with whichever major version of the official SDK is installed: against the 2.x
``MCPServer`` in the default sessions, and against the real 1.x ``FastMCP`` in
``nox -s dropin_sdk1`` (the two majors cannot share an environment). Either way the generated
tools must equal what the installed SDK serves for the same source.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from mcp_codegen._shared.distributions import installed_sdk1
from tests.helpers.corpus import PROCESS_BUILDS, PUBLISHED, sdk_client_tools, tool_differences
from tests.helpers.json_text import unordered_json
from tests.helpers.project import Project, run_codegen

pytestmark = pytest.mark.process

SDK1_SERVER = """
try:
    from mcp.server.fastmcp import FastMCP
except ImportError:  # the SDK 2.x of the default sessions
    from mcp.server.mcpserver import MCPServer as FastMCP

mcp = FastMCP("notes")


@mcp.tool()
def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b
"""


@pytest.mark.slow
def test_sdk1_style_sources_equal_the_installed_sdk() -> None:
    built, output = PROCESS_BUILDS.get("mcp", [PUBLISHED / "sdk1"])
    server = importlib.import_module("published.sdk1.server").mcp
    theirs = sdk_client_tools(server)
    assert sorted(built["wire"]) == sorted(theirs)
    wrong = {
        name: tool_differences(theirs[name], built["wire"][name])
        for name in theirs
        if unordered_json(theirs[name]) != unordered_json(built["wire"][name])
    }
    assert not wrong, "\n".join(wrong.values())
    # SDK 1.x keeps ToolAnnotations(read_only_hint=...) as an extra field of that name; 2.x
    # maps it to readOnlyHint. Either way the generated tool says what the installed SDK says.
    annotations = built["wire"]["sunrise"]["annotations"]
    assert annotations in (
        {"title": "Sunrise", "readOnlyHint": True, "idempotentHint": True},
        {"title": "Sunrise", "read_only_hint": True, "idempotent_hint": True},
    )

    done = run_codegen(output.parent, "verify", "--against", "published.sdk1.server:mcp")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_run_targets_on_the_installed_sdk_say_whether_the_fast_path_can_serve(
    tmp_path: Path,
) -> None:
    """With the SDK 2.x the run target is recorded. With a 1.x SDK no record can be taken (it
    has no dual-era server loop): one warning says so instead of a raw "No module named
    'mcp.server.runner'", and `run` names the installed SDK as why its fast path is off (it
    said "the installed mcp_types is not release 2.3.0", or, beside a leftover mcp_types,
    that generate had not written the records)."""
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SDK1_SERVER)
    project.configure('sources = ["pkg"]\nflavor = "mcp"\nrun_targets = ["pkg.server:mcp"]\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if ": warning: " in line]
    records = tmp_path / "generated" / "__servers__.py"
    sdk1 = installed_sdk1()
    if sdk1 is None:
        assert warnings == [] and records.is_file()
        return
    assert warnings == [
        "pyproject.toml: warning: no server records are written: the stdio fast path of "
        f"`mcp-codegen run` answers as the MCP SDK 2.x does, and mcp {sdk1} is installed "
        "(`run` serves through the framework)"
    ]
    assert not records.exists()
    served = project.run("run", "pkg.server:mcp", timeout=60)
    off = "the stdio fast path is off for pkg.server:mcp: it answers as the MCP SDK 2.x does"
    assert off in served.stderr, served.stderr
    assert f"), and mcp {sdk1} is installed" in served.stderr, served.stderr
