"""Tool names outside the spec's pattern: a warning, a literal module, and served as written.

The spec says tool names SHOULD be 1-128 characters of ``A-Z a-z 0-9 _ - .``; the frameworks
serve other names, so ``generate`` warns (exit 0) and the official Python client lists and calls
the tool by its name. Only names that cannot be served (empty, control characters) are errors.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.corpus import fastmcp_client_tools, sdk_client_tools
from tests.helpers.project import REPO, Project, codegen_env

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

LONG = "n" * 130
QUOTED = "it's \"quoted\" \\ {{ x }} '''"
NAMES = ("search books", LONG, QUOTED)

SOURCE = f'''
from mcp_codegen.decorators import tool


@tool(name={NAMES[0]!r})
def search(query: str) -> str:
    """Search."""
    return "found " + query


@tool(name={NAMES[1]!r})
def long(x: int) -> int:
    """Double."""
    return 2 * x


@tool(name={NAMES[2]!r})
def quoted(text: str) -> str:
    """Echo."""
    return text
'''

CALLS: dict[str, tuple[dict[str, Any], Any]] = {
    NAMES[0]: ({"query": "dune"}, "found dune"),
    NAMES[1]: ({"x": 21}, 42),
    NAMES[2]: ({"text": "'\"\\"}, "'\"\\"),
}


def test_unusual_names_warn_write_a_literal_module_and_are_served(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/named.py", SOURCE)
    project.configure()
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    # The rule, the position (the name= argument) and what to do.
    assert (
        "pkg/named.py:4:12: warning: tool name 'search books': the MCP spec says tool names "
        "SHOULD be 1-128 characters of A-Z a-z 0-9 _ - . (not allowed here: ' '); it is "
        "served as written, but clients may refuse or rewrite it; rename the tool to match"
    ) in lines
    assert any(
        line.startswith(f"pkg/named.py:10:12: warning: tool name '{LONG}': the MCP spec says")
        and "(130 characters here)" in line
        for line in lines
    ), result.stderr
    assert (
        f"pkg/named.py:10:12: warning: tool name '{LONG}' is 130 characters; model APIs "
        "(OpenAI, Gemini) reject function names over 64"
    ) in lines
    assert project.run("check").returncode == 0
    strict = project.run("lint", "--strict")
    assert strict.returncode == 1
    assert "[names: spec_name]" in strict.stdout

    text = (project.root / "generated" / "pkg" / "named.py").read_text(encoding="utf-8")
    values = parse_literal_module(text)  # literal assignments only, or it raises
    assert [tool["name"] for tool in values["TOOLS"]] == list(NAMES)

    listed, called = anyio.run(_list_and_call, project.root)
    assert sorted(listed) == sorted(NAMES)
    for name, (_, expected) in CALLS.items():
        assert not called[name].is_error, called[name]
        assert called[name].structured_content == {"result": expected}


async def _list_and_call(root: Path) -> tuple[list[str], dict[str, Any]]:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_codegen.runtime",
            "--generated",
            str(root / "generated"),
            "--path",
            str(root),
        ],
        env=codegen_env(),
        cwd=str(root),
    )
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(parameters))
        session = await stack.enter_async_context(ClientSession(read, write))
        with anyio.fail_after(120):
            await session.initialize()
            listed = [tool.name for tool in (await session.list_tools()).tools]
            called = {
                name: await session.call_tool(name, args) for name, (args, _) in CALLS.items()
            }
    return listed, called


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "invalid tool name '': a tool needs a non-empty name to be listed and called"),
        (
            "tab\there",
            "invalid tool name 'tab\\there': it contains the control character U+0009, which "
            "does not survive JSON, terminals and logs reliably; remove it",
        ),
        ("nul\x00", "it contains the control character U+0000"),
        ("next\x85line", "it contains the control character U+0085"),
    ],
)
def test_unservable_names_are_errors(project: Project, name: str, message: str) -> None:
    project.write("pkg/__init__.py", "")
    project.write(
        "pkg/bad.py",
        f"from mcp_codegen.decorators import tool\n\n\n@tool(name={name!a})\n"
        "def f(x: int) -> int:\n    return x\n",
    )
    project.configure()
    result = project.run("generate")
    assert result.returncode == 2, result.stderr
    assert "pkg/bad.py:4:12: " in result.stderr
    assert message in result.stderr
    assert not (project.root / "generated").exists()


DROPIN = {
    "mcp": ("from mcp.server.mcpserver import MCPServer", "MCPServer", sdk_client_tools),
    "fastmcp": ("from fastmcp import FastMCP", "FastMCP", fastmcp_client_tools),
}


@pytest.mark.slow
@pytest.mark.parametrize("flavor", sorted(DROPIN))
def test_dropin_listing_keeps_an_unusual_name_exactly(project: Project, flavor: str) -> None:
    """The framework serves ``search books``; the drop-in flavor lists exactly what it serves."""
    imported, server_class, client_tools = DROPIN[flavor]
    project.write(
        "dropped/tools.py",
        f"{imported}\n\nmcp = {server_class}('books')\n\n\n"
        "@mcp.tool(name='search books')\ndef search(query: str) -> str:\n"
        '    """Search."""\n    return query\n',
    )
    project.configure(
        f'sources = ["dropped"]\nflavor = "{flavor}"\npython_path = ["{project.root}", "{REPO}"]\n'
    )
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    assert "dropped/tools.py:6:16: warning: tool name 'search books': the MCP spec" in result.stderr
    exported = project.run("export", "--protocol", "2025-11-25")
    assert exported.returncode == 0, exported.stderr
    ours = {tool["name"]: tool for tool in json.loads(exported.stdout)["tools"]}
    spec = importlib.util.spec_from_file_location(
        f"dropped_{flavor}", project.root / "dropped/tools.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    theirs = client_tools(module.mcp)
    assert list(theirs) == ["search books"]
    assert ours == theirs
