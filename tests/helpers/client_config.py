"""Start an ``mcpServers`` entry of a client configuration as a client does, and list its tools
with the official Python client over stdio."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio


def mcp_servers(text: str) -> list[dict[str, Any]]:
    """Every ``mcpServers`` entry of the JSON objects printed in ``text``, in order."""
    servers: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()
    for match in re.finditer(r"^\{", text, flags=re.MULTILINE):
        value, _ = decoder.raw_decode(text, match.start())
        servers.extend(value.get("mcpServers", {}).values())
    return servers


def listed_tools(entry: dict[str, Any], cwd: Path) -> dict[str, dict[str, Any]]:
    """tools/list of the server ``entry`` starts (``command``, ``args``, ``env``), started from
    ``cwd`` (clients start servers from a directory of their own), by tool name."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import get_default_environment, stdio_client

    parameters = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={**get_default_environment(), **entry.get("env", {})},
        cwd=str(cwd),
    )

    async def run() -> list[Any]:
        with anyio.fail_after(120):
            async with (
                stdio_client(parameters) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return list((await session.list_tools()).tools)

    return {
        tool.name: tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        for tool in anyio.run(run)
    }


_ORACLE = """
import importlib, json, sys
sys.path[:0] = sys.argv[4:]
from mcp_codegen._registration.factory_calls import parse_factory_call
from tests.helpers import corpus
target = sys.argv[1]
if "(" in target:
    server = parse_factory_call(target).call()
else:
    module, _, name = target.partition(":")
    server = getattr(importlib.import_module(module), name)
print(json.dumps(getattr(corpus, sys.argv[2])(server)))
"""
_CLIENTS = {"mcp": "sdk_client_tools", "fastmcp": "fastmcp_client_tools"}


def framework_tools(target: str, flavor: str, *paths: Path) -> dict[str, dict[str, Any]]:
    """What the framework's own server at ``target`` (``module:object`` or a factory call,
    importable from ``paths``) lists through the framework's own client, by tool name."""
    import subprocess
    import sys

    from tests.helpers.project import REPO, codegen_env

    done = subprocess.run(
        [sys.executable, "-c", _ORACLE, target, _CLIENTS[flavor], "", *map(str, paths)],
        capture_output=True,
        text=True,
        env=codegen_env(),
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
