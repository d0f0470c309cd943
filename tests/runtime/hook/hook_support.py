"""Helpers for the ``use_generated`` tests: a real server process, driven over stdio.

Both sides of every comparison are the framework's own server in its own process, reached with
the official Python ``ClientSession`` over stdio: once started plainly (``obj.run()``), once
through ``mcp-codegen run --generated DIR module:obj``. Only the hook differs.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import jsonschema

from tests.helpers.framework_calls import (
    EXTRAS,
    PUBLISHED_ROOT,
    Call,
    call_in_order,
    planned_calls,
)
from tests.helpers.json_text import exact_json_lines
from tests.helpers.project import REPO
from tests.helpers.servers import QUIET_FASTMCP, server_env

#: a plain start of ``module:object``, as the server's own ``__main__`` would do it
PLAIN = "import importlib, sys; m, _, o = sys.argv[1].partition(':'); getattr(importlib.import_module(m), o).run()"


def environment(**extra: str) -> dict[str, str]:
    """A server process's environment: the corpus and the extras importable, no fastmcp banner."""
    return server_env(PUBLISHED_ROOT, EXTRAS, **{**QUIET_FASTMCP, **extra})


def plain_command(target: str) -> list[str]:
    return [sys.executable, "-c", PLAIN, target]


def hooked_command(target: str, generated: Path, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mcp_codegen",
        "run",
        "--generated",
        str(generated),
        *options,
        target,
    ]


def invalid_calls(tools: list[dict[str, Any]]) -> list[Call]:
    """For each tool with parameters, arguments its inputSchema refuses: a missing required
    parameter, or a value of the wrong type; and one unknown tool."""
    calls: list[Call] = []
    for tool in tools:
        schema = tool["inputSchema"]
        properties = schema.get("properties", {})
        if schema.get("required"):
            arguments: dict[str, Any] = {}
        elif properties:
            arguments = {next(iter(properties)): {"not": ["what", "was", "asked"]}}
        else:
            continue
        if jsonschema.Draft202012Validator(schema).is_valid(arguments):
            continue  # the schema takes anything there; not an invalid call
        calls.append((tool["name"], arguments))
    calls.append(("no_such_tool", {}))
    return calls


def all_calls(output: Path, table: dict[str, list[dict[str, Any]]]) -> list[Call]:
    from mcp_codegen.runtime import load_tools

    return planned_calls(output, table) + invalid_calls(load_tools(output).list_tools())


def drive(
    command: list[str], calls: list[Call], *, cwd: Path = REPO, **callbacks: Any
) -> dict[str, Any]:
    """Start ``command`` as a stdio server; its tools/list, the answers to ``calls`` and what
    it wrote to stderr."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    parameters = StdioServerParameters(
        command=command[0], args=command[1:], env=environment(), cwd=str(cwd)
    )

    async def run(errlog: Any) -> dict[str, Any]:
        async with (
            stdio_client(parameters, errlog=errlog) as (read, write),
            ClientSession(read, write, **callbacks) as session,
        ):
            await session.initialize()
            with anyio.fail_after(240):
                listed = await session.list_tools()
                answers = await call_in_order(session.call_tool, calls)
        tools = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools]
        return {"tools": tools, "answers": answers}

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        found = anyio.run(run, errlog)
        errlog.seek(0)
        found["stderr"] = errlog.read()
    return found


def first_difference(calls: list[Call], plain: list[Any], hooked: list[Any]) -> str:
    for (name, arguments), theirs, ours in zip(calls, plain, hooked, strict=True):
        if exact_json_lines(theirs) != exact_json_lines(ours):
            return f"{name}({json.dumps(arguments)}):\n plain: {exact_json_lines(theirs)}\n hooked: {exact_json_lines(ours)}"
    return ""


async def sampling_answer(context: Any, params: Any) -> Any:
    """A client LLM that always answers the same."""
    from mcp.types import CreateMessageResult, TextContent

    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text="forty-two"), model="fixed"
    )


async def elicitation_answer(context: Any, params: Any) -> Any:
    """A user who accepts every form with its defaults, else the first choice or a sample."""
    from mcp.types import ElicitResult

    content = {
        name: _first_choice(schema)
        for name, schema in params.requested_schema.get("properties", {}).items()
    }
    return ElicitResult(action="accept", content=content)


def _first_choice(schema: dict[str, Any]) -> Any:
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "oneOf" in schema:
        return schema["oneOf"][0]["const"]
    if schema.get("type") == "array":
        return [_first_choice(schema.get("items", {}))]
    if "anyOf" in schema:
        return schema["anyOf"][0]["const"]
    return "sample@example.com" if "mail" in schema.get("description", "") else "sample"
