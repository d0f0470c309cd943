"""``use_generated`` under the real SDK 1.x ``FastMCP``: run by ``nox -s dropin_sdk1`` only.

1.x and 2.x cannot share an environment, so this file is not named ``test_*.py`` (the default
run covers the same corpus against ``MCPServer`` in test_hook_same_answers.py); the 1.x session
passes it to pytest explicitly. The SDK 1.x-style corpus (tests/fixtures/published/sdk1) is
generated in flavor "mcp" by the installed 1.x SDK, then served twice over stdio — plainly and
through ``mcp-codegen run --generated`` — and driven by the 1.x ``ClientSession``: the same
tools/list, and the same answer to every call (valid, invalid, unknown tool).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers.framework_calls import CALLS, PACKAGES, build
from tests.helpers.json_text import exact_json_lines
from tests.helpers.project import REPO
from tests.runtime.hook.hook_support import (
    environment,
    first_difference,
    hooked_command,
    invalid_calls,
    plain_command,
)

pytestmark = pytest.mark.process  # starts the SDK 1.x servers (docs/testing.md)


def test_sdk1_fastmcp_is_patched_not_mcpserver() -> None:
    import mcp.server.fastmcp

    with pytest.raises(ImportError):
        import mcp.server.mcpserver  # noqa: F401


def test_same_answers_on_the_real_sdk1(tmp_path: Path) -> None:
    from mcp_codegen.runtime import load_tools

    flavor, sources, target = PACKAGES["sdk1"]
    output = build(flavor, sources)
    tools = load_tools(output).list_tools()
    calls = [(t["name"], arguments) for t in tools for arguments in CALLS.get(t["name"], [])]
    calls += invalid_calls(tools)
    plain = _drive(plain_command(target), calls)
    hooked = _drive(hooked_command(target, output), calls)

    assert exact_json_lines(hooked["tools"]) == exact_json_lines(plain["tools"])
    assert [exact_json_lines(a) for a in hooked["answers"]] == [
        exact_json_lines(a) for a in plain["answers"]
    ], first_difference(calls, plain["answers"], hooked["answers"])
    assert [t["name"] for t in hooked["tools"]] == [t["name"] for t in plain["tools"]]
    assert sum(1 for a in plain["answers"] if a.get("isError")) >= 3  # refusals were made
    assert hooked["stderr"].count("StaleSchemaWarning") == 0, hooked["stderr"]
    assert _registered_lazily(output, target) == {"lazy": len(tools), "inferred": 0}


#: in a fresh process: install the hook, import the 1.x server, count what was inferred
_PROBE = """
import importlib, json, sys
from mcp_codegen.runtime import use_generated
use_generated(sys.argv[1])
from mcp.server.fastmcp.tools import base
calls = []
original = base.func_metadata
base.func_metadata = lambda *a, **k: calls.append(1) or original(*a, **k)
module, _, name = sys.argv[2].partition(":")
server = getattr(importlib.import_module(module), name)
tools = server._tool_manager.list_tools()
lazy = sum(type(t).__name__ == "LazySdkTool" for t in tools)
print(json.dumps({"lazy": lazy, "inferred": len(calls)}))
"""


def _registered_lazily(output: Path, target: str) -> dict[str, int]:
    env = environment()
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(output), target],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _drive(command: list[str], calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The 1.x client over stdio (``call_in_order`` needs 2.x's error class)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    parameters = StdioServerParameters(
        command=command[0], args=command[1:], env=environment(), cwd=str(REPO)
    )

    async def run(errlog: Any) -> dict[str, Any]:
        async with (
            stdio_client(parameters, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            answers = []
            for name, arguments in calls:
                try:
                    result = await session.call_tool(name, arguments)
                except Exception as error:  # a JSON-RPC error, or the client refusing a result
                    answers.append({"error": f"{type(error).__name__}: {error}"})
                    continue
                answers.append(result.model_dump(by_alias=True, mode="json", exclude_none=True))
        dumped = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools]
        return {"tools": dumped, "answers": answers}

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        found = anyio.run(run, errlog)
        errlog.seek(0)
        found["stderr"] = errlog.read()
    return found
