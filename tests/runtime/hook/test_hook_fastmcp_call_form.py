"""Tools a fastmcp app builds itself (``mcp.add_tool(FunctionTool.from_function(fn, ...))``, its
own ``FunctionTool`` subclass included) take their schemas from the generated entries under
``use_generated`` (``mcp_codegen.runtime._hook.fastmcp_call_form``), and answer as fastmcp's own.

Oracles: the same app started plainly (fastmcp's own tools/list and tools/call answers over
stdio, through the official client), and fastmcp's inference itself, counted where
``ParsedFunction.from_function`` asks pydantic for a type adapter.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers.json_text import exact_json_lines
from tests.helpers.project import Project, codegen_env
from tests.helpers.servers import QUIET_FASTMCP
from tests.runtime.hook.hook_support import drive, hooked_command, plain_command

SERVER = '''
from dataclasses import dataclass

from fastmcp import FastMCP
from fastmcp.tools import FunctionTool, Tool
from mcp.types import ToolAnnotations

mcp = FastMCP("shop")


class LoudTool(FunctionTool):
    """The app's own tool class: its results are shouted."""

    def convert_result(self, raw_value):
        return super().convert_result(str(raw_value).upper())


@dataclass
class Item:
    name: str
    price: float


def add(a: int, b: int = 2) -> int:
    """Add two numbers.

    Args:
        a: the first
        b: the second
    """
    return a + b


def shout(text: str) -> str:
    """Say it louder."""
    return text


def cheapest(items: list[Item], limit: float | None = None) -> Item | None:
    """The cheapest item under the limit."""
    found = [i for i in items if limit is None or i.price <= limit]
    return min(found, key=lambda i: i.price) if found else None


class Store:
    def count(self, prefix: str) -> list[str]:
        """Names starting with the prefix."""
        return [n for n in ("apple", "apricot", "banana") if n.startswith(prefix)]


mcp.add_tool(
    FunctionTool.from_function(add, annotations=ToolAnnotations(readOnlyHint=True), tags={"math"})
)
mcp.add_tool(LoudTool.from_function(shout, name="shout_it"))
mcp.add_tool(Tool.from_function(cheapest, title="Cheapest"))
store = Store()
mcp.add_tool(Tool.from_function(store.count, name="count_names"))
'''

PROBE = """
import asyncio, json, sys
from mcp_codegen.runtime import use_generated

use_generated("generated")
from fastmcp.tools import function_parsing

adapters = []
real = function_parsing.get_cached_typeadapter
function_parsing.get_cached_typeadapter = lambda t: adapters.append(1) or real(t)
from pkg.server import LoudTool, mcp

at_start = len(adapters)
tool = asyncio.run(mcp.get_tool("shout_it"))
result = asyncio.run(tool.run({"text": "hi"}))
print(json.dumps({
    "at_start": at_start,
    "after_call": len(adapters),
    "loud": isinstance(tool, LoudTool),
    "text": result.content[0].text,
}))
"""

CALLS = [
    ("add", {"a": 1}),
    ("add", {"a": "one"}),
    ("shout_it", {"text": "hello"}),
    ("cheapest", {"items": [{"name": "x", "price": 2.0}, {"name": "y", "price": 1.0}]}),
    ("cheapest", {"items": [], "limit": 1}),
    ("count_names", {"prefix": "ap"}),
    ("count_names", {}),
]


def _generate(project: Project) -> None:
    project.configure('sources = ["pkg"]\nflavor = "fastmcp"\n')
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVER)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    generated = project.root / "generated" / "pkg" / "server.py"
    assert all(name in generated.read_text() for name in ("shout_it", "count_names", "cheapest"))


def _probe(project: Project) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=project.root,
        env=codegen_env(**QUIET_FASTMCP),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow
@pytest.mark.process
def test_call_form_tools_answer_as_fastmcp_does(project: Project) -> None:
    _generate(project)
    plain = drive(plain_command("pkg.server:mcp"), CALLS, cwd=project.root)
    hooked = drive(
        hooked_command("pkg.server:mcp", project.root / "generated", "--strict"),
        CALLS,
        cwd=project.root,
    )
    assert exact_json_lines(hooked["tools"]) == exact_json_lines(plain["tools"])
    assert [exact_json_lines(a) for a in hooked["answers"]] == [
        exact_json_lines(a) for a in plain["answers"]
    ]
    assert "HELLO" in json.dumps(plain["answers"][2])  # the app's own convert_result ran
    assert "StaleSchemaWarning" not in hooked["stderr"], hooked["stderr"]


@pytest.mark.slow
@pytest.mark.process
def test_call_form_tools_are_not_inferred_until_called(project: Project) -> None:
    _generate(project)
    found = _probe(project)
    assert found["at_start"] == 0, found  # four tools built, none inferred
    assert found["after_call"] > 0, found  # the called one, on its first call
    assert found["loud"] is True and found["text"] == "HI", found

    # A changed source: fastmcp infers every tool as it would without the hook.
    server = project.root / "pkg" / "server.py"
    server.write_text(server.read_text() + "\n# edited\n")
    stale = _probe(project)
    assert stale["at_start"] >= 4, stale
    assert stale["loud"] is True and stale["text"] == "HI", stale
