"""``mcp.add_tool(variable)`` where the variable holds a fastmcp ``Tool`` object, not a function:
one ``Tool.from_function(fn, name=...)`` assigned before the call is read as that call written
inline; a tool object the running code builds is a precise error inside a function; and a
registration call marked ``# mcp-codegen: framework`` stays with the framework, as a marked
decorator does.

Before (awslabs-aws-iac-mcp-server): the variable's name was taken for the tool's name (a false
"registers it as 'read_remote_page', not 'read_tool'" error), and a tool proxied from another
server reached "cannot call _create_read_tool_proxy(mcp) ... async", then, once made sync, an
internal "report this as a bug".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.model import ScannedModule
from mcp_codegen._generator.scan.files import scan_file
from mcp_codegen._shared.format import FRAMEWORK_MARKER
from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import Project

THROUGH_A_VARIABLE = '''
from fastmcp import FastMCP
from fastmcp.tools import Tool

mcp = FastMCP("demo")


def read_page(url: str) -> str:
    """Read a page."""
    return url


read_tool = Tool.from_function(read_page, name="read_remote_page")
mcp.add_tool(read_tool)


def register(app: FastMCP) -> None:
    def count(items: list[int]) -> int:
        return len(items)

    counter: Tool = Tool.from_function(count, name="count_items", description="Count.")
    app.add_tool(counter)


def ping(host: str) -> str:
    return host


pinger = Tool.from_function(name="ping_host", fn=ping)
mcp.add_tool(pinger)
mcp.add_tool(Tool.from_function(title="Ping", fn=ping, name="ping_again"))
'''

BUILT_WHEN_RUNNING = """
from fastmcp import FastMCP
from fastmcp.tools import Tool

mcp = FastMCP("demo")


async def fetch_remote_tool() -> Tool: ...


async def proxy_remote_tool() -> None:
    proxied = await fetch_remote_tool()
    mcp.add_tool(proxied){marker}


def register_all(app: FastMCP, tools: list) -> None:
    for each in tools:
        app.add_tool(each)
"""


def _scan(root: Path, text: str) -> ScannedModule:
    (root / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["server.py"]\nflavor = "fastmcp"\n'
    )
    source = root / "server.py"
    source.write_text(text.lstrip("\n"))
    module = scan_file(source, load_config(root / "pyproject.toml"))
    assert module is not None
    return module


def test_a_variable_holding_one_from_function_reads_as_the_call_inline(tmp_path: Path) -> None:
    module = _scan(tmp_path, THROUGH_A_VARIABLE)
    assert module.diagnostics == ()
    found = [(t.name, t.qualname, t.options) for t in module.tools]
    assert found == [
        ("read_remote_page", "read_page", {"name": "read_remote_page"}),
        (
            "count_items",
            "register.<locals>.count",
            {"name": "count_items", "description": "Count."},
        ),
        # ``fn=`` by keyword (bb-mcp-server): taken for a tool object, or ``name=`` for the
        # function, before
        ("ping_host", "ping", {"name": "ping_host"}),
        ("ping_again", "ping", {"title": "Ping", "name": "ping_again"}),
    ]


def test_a_tool_object_built_when_the_code_runs_is_an_error_or_kept(tmp_path: Path) -> None:
    module = _scan(tmp_path, BUILT_WHEN_RUNNING.format(marker=""))
    # a loop's variable is no single value: left to the registration, as before
    assert [(t.name, t.registered_at is not None) for t in module.tools] == [("each", True)]
    errors = [(d.line, d.column, d.message) for d in module.diagnostics]
    assert errors == [
        (
            12,
            18,
            "`proxied` is a variable set from `await fetch_remote_tool()` when the code runs, "
            "not a function the generator can read a schema from; register the function by its "
            "name (mcp.add_tool(function) or Tool.from_function(function, ...)), or end this "
            f'line with "{FRAMEWORK_MARKER}" to keep the tool with the framework',
        )
    ]
    kept = _scan(tmp_path, BUILT_WHEN_RUNNING.format(marker=f"  {FRAMEWORK_MARKER}"))
    assert [t.name for t in kept.tools] == ["each"]
    notes = [(d.line, d.severity, d.message) for d in kept.diagnostics]
    assert len(notes) == 1 and notes[0][:2] == (12, "note")
    assert notes[0][2].startswith("the tool registered here is kept with the framework")


MARKED_AT_IMPORT = '''
from fastmcp import FastMCP
from fastmcp.tools import Tool

mcp = FastMCP("demo")


def make_tool() -> Tool:
    def read_page(url: str) -> str:
        return url

    return Tool.from_function(read_page, name="read_remote_page")


@mcp.tool()
def ping(host: str) -> str:
    """Ping a host."""
    return host


mcp.add_tool(make_tool()){marker}
'''


@pytest.mark.process
@pytest.mark.slow
def test_a_marked_registration_at_import_is_kept_and_served(tmp_path: Path) -> None:
    """The registration the import makes at a marked line is expected (no omission error),
    the server's record says nothing more than the note, and ``run --strict`` serves it."""
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.configure('sources = ["pkg"]\nflavor = "fastmcp"\n')
    project.write("pkg/server.py", MARKED_AT_IMPORT.format(marker=""))
    refused = project.run("generate")
    assert refused.returncode == 2, refused.stderr
    assert "pkg/server.py:20:14: mcp.add_tool(make_tool(...)) builds the tool with a call" in (
        refused.stderr
    )
    assert f'or end this line with "{FRAMEWORK_MARKER}"' in refused.stderr
    project.write("pkg/server.py", MARKED_AT_IMPORT.format(marker=f"  {FRAMEWORK_MARKER}"))
    for args in ((), (), ("--no-cache",)):
        done = project.run("generate", *args)
        assert done.returncode == 0, done.stderr
        assert "pkg/server.py:20:1: note: the tool registered here is kept" in done.stderr
        assert "warning:" not in done.stderr and "error" not in done.stderr
    _, modules = read_tree(tmp_path / "generated")
    assert [t["name"] for m in modules for t in m["TOOLS"]] == ["ping"]


LOOP = """
from mcp.server.mcpserver import MCPServer


def register_tools(server: MCPServer, definitions: list) -> None:
    for definition in definitions:
        server.add_tool(definition.fn, name=definition.name){marker}
"""


def test_a_registration_loop_names_the_call_and_offers_the_marker(tmp_path: Path) -> None:
    """dbt-mcp registers 39 tools in one loop: the error called the add_tool argument a
    "decorator argument" and offered only literals; the marker now keeps the loop's tools."""
    module = _scan(tmp_path, LOOP.format(marker=""))
    [error] = [(d.line, d.column, d.message) for d in module.diagnostics]
    assert error[:2] == (6, 45)
    assert error[2].startswith(
        "registration argument name= cannot be known at build time: `definition` is a local "
        "variable of register_tools(), set only when it runs;"
    )
    assert error[2].endswith(
        f'or end the registration\'s line with "{FRAMEWORK_MARKER}" to keep the tools it '
        "registers with the framework"
    )
    kept = _scan(tmp_path, LOOP.format(marker=f"  {FRAMEWORK_MARKER}"))
    assert kept.tools == () and [d.severity for d in kept.diagnostics] == ["note"]
