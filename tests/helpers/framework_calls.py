"""Both sides of a tool call: the framework's own server and ``mcp_codegen.runtime`` serving its
generated modules (the flavored-runtime, hook and drop-in tests compare them).

The oracle is always the framework's own server, reached through the framework's own in-process
client (``mcp.client.Client`` for the SDK's ``MCPServer``, ``fastmcp.Client`` for fastmcp). The
runtime side is ``mcp_codegen.runtime`` serving the generated modules, reached through the SDK's
client in-process or through ``ClientSession`` over stdio. Results are compared as the JSON the
client received; only the server's identity (``_meta["io.modelcontextprotocol/serverInfo"]``,
added by the SDK to every result) is left out, because the two servers are different servers.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import jsonschema

from tests.helpers.corpus import FIXTURES, FLAVOR_EXTRAS, PROCESS_BUILDS, REPO
from tests.helpers.json_text import exact_json
from tests.helpers.sample_values import full_sample, resolve_earlier_results
from tests.helpers.servers import server_env

PUBLISHED_ROOT = FIXTURES
PUBLISHED = PUBLISHED_ROOT / "published"
EXTRAS = FLAVOR_EXTRAS
SERVER_INFO = "io.modelcontextprotocol/serverInfo"

#: package -> (flavor, sources, the server object written for the framework)
PACKAGES: dict[str, tuple[str, list[Path], str]] = {
    "sdk2": ("mcp", [PUBLISHED / "sdk2"], "published.sdk2.server:mcp"),
    "sdk1": ("mcp", [PUBLISHED / "sdk1"], "published.sdk1.server:mcp"),
    "fastmcp_style": ("fastmcp", [PUBLISHED / "fastmcp_style"], "published.fastmcp_style.server:mcp"),
    "extras_sdk": ("mcp", [EXTRAS / "flavor_extras" / "sdk_tools.py"], "flavor_extras.sdk_tools:mcp"),
    "extras_fastmcp": (
        "fastmcp",
        [EXTRAS / "flavor_extras" / "fastmcp_tools.py"],
        "flavor_extras.fastmcp_tools:mcp",
    ),
}  # fmt: skip


# --- building ------------------------------------------------------------------------------------


def build(flavor: str, sources: list[Path]) -> Path:
    """``sources`` generated in ``flavor``, once per test process (``PROCESS_BUILDS``); the output
    directory, which callers only read."""
    return PROCESS_BUILDS.get(flavor, sources)[1]


def server_object(target: str) -> Any:
    """``module:attribute`` imported."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


# --- state -----------------------------------------------------------------------------------------


def reset_state() -> None:
    """Put the stateful tool modules back as a fresh process has them, so that the framework and
    the runtime start every sequence of calls from the same state."""
    notes = sys.modules.get("published.sdk2.notes")
    if notes is not None:
        notes.NOTES.clear()  # type: ignore[attr-defined]
        notes.PINNED.clear()  # type: ignore[attr-defined]
    store = sys.modules.get("examples.bookshop.store")
    if store is not None:
        store.reset()  # type: ignore[attr-defined]


# --- sample arguments --------------------------------------------------------------------------------


def arguments_for(
    tool: dict[str, Any], table: dict[str, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The calls to make to ``tool``: its table entries, else one built from its inputSchema.
    Each must be valid for the inputSchema: the comparison is about results, not refusals."""
    calls = table.get(tool["name"]) or [full_sample(tool["inputSchema"], tool["inputSchema"])]
    for arguments in calls:
        if any(isinstance(v, dict) and "$result" in v for v in arguments.values()):
            continue  # resolved against earlier results when called
        problems = [
            e.message
            for e in jsonschema.Draft202012Validator(tool["inputSchema"]).iter_errors(arguments)
        ]
        assert not problems, f"{tool['name']}: sample arguments {arguments} are invalid: {problems}"
    return calls


#: Calls with meaningful values (and a second call where one value is not enough).
CALLS: dict[str, list[dict[str, Any]]] = {
    # sdk2: the notes tools share state, called in registry order (add_note comes first)
    "add_note": [{"title": "First", "body": "Buy milk", "tags": ["home"]}, {"title": "Second", "body": "Call Ada"}],
    "rename_note": [{"note_id": 1, "new_title": "Renamed"}, {"note_id": 99}],
    "note_as_text": [{"note_id": 1}, {"note_id": 99}],
    "set_priority": [{"note_ids": [1, 2], "priority": "high", "due": "2024-01-02T03:04:05Z"}, {"note_ids": [42], "priority": "low"}],
    "delete_note": [{"note_id": 2}],
    "pin_note": [{"note_id": 1}, {"note_id": 1, "pinned": False}],
    "summarize_notes": [{"max_words": 3}],
    "search_notes": [{"query": "milk"}],
    # sdk1
    "current_conditions": [{"station": "KSFO", "units": "imperial"}],
    "free_slots": [{"day": "2024-01-02", "granularity": 15}],
    # fastmcp_style
    "update_document": [{"doc_id": "doc-1", "body": "new body"}],
    "similar": [{"doc_id": "doc-1", "k": 3}],
    "list_tasks": [{"status": "doing", "limit": 5}, {}],
    # extras
    "ratio": [{"numerator": 7, "denominator": 2}, {"numerator": 1, "denominator": 0}],
    "maybe_note": [{"found": True}, {"found": False}],
    "echo": [{"values": {"nested": {"list": [1, 2.5, None, "x"]}, "flag": False}}],
    "countdown": [{"start": 3}, {"start": 0}],
}  # fmt: skip


# --- the two sides ------------------------------------------------------------------------------


def outcome(result: Any) -> dict[str, Any]:
    """A ``CallToolResult`` as the JSON the client received, minus the server's identity."""
    data = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    meta = dict(data.get("_meta") or {})
    meta.pop(SERVER_INFO, None)
    if meta:
        data["_meta"] = meta
    else:
        data.pop("_meta", None)
    return data


def protocol_error(error: Exception) -> dict[str, Any]:
    """A JSON-RPC error answer, in the same shape as ``outcome`` for comparison."""
    from mcp.shared.exceptions import MCPError

    assert isinstance(error, MCPError), repr(error)
    return {"jsonrpc_error": {"code": error.error.code, "message": error.error.message}}


Call = tuple[str, dict[str, Any]]
Caller = Callable[[str, dict[str, Any]], Any]


async def call_in_order(call: Caller, calls: list[Call]) -> list[dict[str, Any]]:
    """Make the calls one after another; each answer as `outcome` or `protocol_error` gives it.
    Arguments may refer to earlier structured results (`resolve_earlier_results`)."""
    from mcp.shared.exceptions import MCPError

    answers: list[dict[str, Any]] = []
    earlier: dict[str, Any] = {}
    for name, arguments in calls:
        arguments = resolve_earlier_results(arguments, earlier)
        try:
            result = await call(name, arguments)
        except MCPError as error:
            answers.append(protocol_error(error))
            continue
        except RuntimeError as error:  # the SDK client refusing a result its schema does not fit
            answers.append({"client_refused": str(error)})
            continue
        answer = outcome(result)
        answers.append(answer)
        if "structuredContent" in answer:
            earlier[name] = answer["structuredContent"]
    return answers


def sdk_client_calls(server: Any, calls: list[Call]) -> list[dict[str, Any]]:
    """Call tools on an SDK server (``MCPServer`` or a low-level ``Server``, ours included)
    through the SDK's own in-process client, from fresh tool-module state."""
    from mcp.client import Client

    async def run() -> list[dict[str, Any]]:
        async with Client(server) as client:
            return await call_in_order(client.call_tool, calls)

    reset_state()
    return anyio.run(run)


def fastmcp_client_calls(server: Any, calls: list[Call]) -> list[dict[str, Any]]:
    """Call tools on a fastmcp server through fastmcp's own in-process client."""
    import fastmcp

    async def run() -> list[dict[str, Any]]:
        async with fastmcp.Client(server) as client:
            return await call_in_order(client.call_tool_mcp, calls)

    reset_state()
    return anyio.run(run)


def framework_calls(flavor: str, server: Any, calls: list[Call]) -> list[dict[str, Any]]:
    """The oracle: the framework's server through the framework's client."""
    return (sdk_client_calls if flavor == "mcp" else fastmcp_client_calls)(server, calls)


def runtime_calls(output: Path, calls: list[Call]) -> list[dict[str, Any]]:
    """``mcp_codegen.runtime`` serving ``output`` in this process, through the SDK's client."""
    from mcp_codegen.runtime import load_tools
    from tests.runtime.runtime_support import build_server

    return sdk_client_calls(build_server(load_tools(output)), calls)


def stdio_runtime_calls(output: Path, calls: list[Call]) -> list[dict[str, Any]]:
    """``python -m mcp_codegen.runtime`` serving ``output`` over stdio, through ``ClientSession``."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    parameters = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_codegen.runtime",
            "--generated",
            str(output),
            *("--path", str(REPO), "--path", str(PUBLISHED_ROOT), "--path", str(EXTRAS)),
        ],
        env=server_env(),
        cwd=str(REPO),
    )

    async def run() -> list[dict[str, Any]]:
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            with anyio.fail_after(240):
                return await call_in_order(session.call_tool, calls)

    return anyio.run(run)


def answer_differences(
    calls: list[Call], theirs: list[dict[str, Any]], ours: list[dict[str, Any]]
) -> str:
    """Each call whose answers differ, both answers in full (for assertion messages)."""
    lines = []
    for (name, arguments), mine, framework in zip(calls, ours, theirs, strict=True):
        if exact_json(mine) != exact_json(framework):
            lines += [
                f"{name}({json.dumps(arguments)}):",
                f"  framework: {exact_json(framework)}",
                f"  runtime:   {exact_json(mine)}",
            ]
    return "\n".join(lines)


def planned_calls(output: Path, table: dict[str, list[dict[str, Any]]]) -> list[Call]:
    """Every tool of a generated output, in registry order, with its sample arguments."""
    from mcp_codegen.runtime import load_tools

    return [
        (tool["name"], arguments)
        for tool in load_tools(output).list_tools()
        for arguments in arguments_for(tool, table)
    ]


class Answers:
    """Per package: the planned calls, the framework's answers and the in-process runtime's."""

    def __init__(self, outputs: dict[str, Path]) -> None:
        self._outputs = outputs
        self._made: dict[str, dict[str, Any]] = {}

    def __getitem__(self, package: str) -> dict[str, Any]:
        if package not in self._made:
            flavor, _, target = PACKAGES[package]
            output = self._outputs[package]
            calls = planned_calls(output, CALLS)
            self._made[package] = {
                "calls": calls,
                "theirs": framework_calls(flavor, server_object(target), calls),
                "ours": runtime_calls(output, calls),
            }
        return self._made[package]
