"""End to end with the official Python SDK client: real server processes, stdio and HTTP."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mcp_codegen.runtime import load_tools
from tests.helpers.protocol_clients import open_session
from tests.helpers.servers import server_env
from tests.runtime.runtime_support import (
    FIXTURE_BAD_OUTPUT,
    FIXTURE_CALLS,
    FIXTURE_ERRORS,
    FIXTURE_GENERATED,
    HANDSHAKE_VERSION,
    REPO_ROOT,
    RawStdioServer,
    example_generated,
    sample_arguments,
    server_args,
)

pytestmark = pytest.mark.process

T = TypeVar("T")


def _with_session(generated: Path, body: Callable[[ClientSession], Awaitable[T]], *extra: str) -> T:
    async def run() -> T:
        parameters = StdioServerParameters(
            command=sys.executable,
            args=server_args(generated, *extra),
            env=server_env(),
            cwd=str(REPO_ROOT),
        )
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            with anyio.fail_after(120):
                return await body(session)

    return anyio.run(run)


def _wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def _text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    return result.content[0].text


def _assert_structured_with_text_copy(result: types.CallToolResult, expected: Any) -> None:
    assert not result.is_error, result
    assert result.structured_content == expected
    assert json.loads(_text(result)) == expected


def test_stdio_lists_tools_as_generated_and_calls_every_fixture_tool() -> None:
    registry = load_tools(FIXTURE_GENERATED)

    async def body(session: ClientSession) -> dict[str, Any]:
        listed = await session.list_tools()
        outcomes: dict[str, Any] = {"tools": [_wire(tool) for tool in listed.tools]}
        for name in registry.names():
            try:
                outcomes[name] = await session.call_tool(name, FIXTURE_CALLS[name])
            except RuntimeError as exc:  # the client's own structuredContent validation
                outcomes[name] = exc
        return outcomes

    outcomes = _with_session(FIXTURE_GENERATED, body)

    assert outcomes["tools"] == registry.list_tools(HANDSHAKE_VERSION)
    _assert_structured_with_text_copy(outcomes["add"], {"result": 42})
    _assert_structured_with_text_copy(outcomes["greet"], {"result": "HELLO, ADA!"})
    _assert_structured_with_text_copy(outcomes["repeat"], {"result": ["hi", "hi", "hi"]})
    _assert_structured_with_text_copy(outcomes["nap"], {"result": "rested"})
    _assert_structured_with_text_copy(outcomes["block"], {"result": "unblocked"})
    # Arguments arrived as a Query model and a Window dataclass (the tool raises otherwise);
    # the result is dumped in serialization mode (alias addedAt, ISO dates).
    _assert_structured_with_text_copy(
        outcomes["find_book"],
        {
            "title": "Dune (3, sand+worms)",
            "genre": "science",
            "published": "1965-08-01",
            "addedAt": "2024-05-06T07:08:09Z",
        },
    )
    _assert_structured_with_text_copy(outcomes["window_stats"], {"days": 60, "genre": "fiction"})
    _assert_structured_with_text_copy(
        outcomes["latest"],
        {
            "result": {
                "title": "New",
                "genre": "science",
                "published": "2020-06-30",
                "addedAt": "2021-02-03T04:05:06Z",
            }
        },
    )
    # None without an output schema: no content, no structured content.
    assert _wire(outcomes["forget"]) == {"content": [], "isError": False, "resultType": "complete"}
    # MCP content types pass through as content blocks.
    assert [_wire(block) for block in outcomes["pixel"].content] == [
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    ]
    assert outcomes["pixel"].structured_content is None
    assert [block.text for block in outcomes["two_lines"].content] == ["one", "two"]
    assert outcomes["handmade"].structured_content == {"flag": True}
    assert outcomes["handmade"].content[0].text == "flag is True"
    # A raising tool: isError with the tool's own message, although it has an outputSchema.
    assert outcomes["explode"].is_error
    assert "ValueError: exploded on purpose: testing" in _text(outcomes["explode"])
    # Not strict: the server sends the mislabeled value and the client's validation rejects it.
    assert "Invalid structured content returned by tool mislabeled" in str(outcomes["mislabeled"])
    assert set(FIXTURE_ERRORS | FIXTURE_BAD_OUTPUT) <= set(registry.names())


def test_calls_sent_right_after_initialized_are_answered_while_the_sdk_loads() -> None:
    # No tools/list first: the first call is what hands the session to the SDK door, and the
    # other requests arrive while it is still loading; each gets its own answer.
    async def body(session: ClientSession) -> dict[str, Any]:
        answers: dict[str, Any] = {}

        async def keep(label: str, request: Awaitable[Any]) -> None:
            answers[label] = await request

        async with anyio.create_task_group() as group:
            group.start_soon(keep, "add", session.call_tool("add", FIXTURE_CALLS["add"]))
            group.start_soon(keep, "ping", session.send_ping())
            group.start_soon(keep, "list", session.list_tools())
            group.start_soon(keep, "greet", session.call_tool("greet", FIXTURE_CALLS["greet"]))
        return answers

    answers = _with_session(FIXTURE_GENERATED, body)
    assert answers["add"].structured_content == {"result": 42}
    assert answers["greet"].structured_content == {"result": "HELLO, ADA!"}
    assert [_wire(tool) for tool in answers["list"].tools] == load_tools(
        FIXTURE_GENERATED
    ).list_tools()


def test_invalid_arguments_unknown_tool_and_raising_tool_leave_the_server_running() -> None:
    async def body(session: ClientSession) -> dict[str, Any]:
        results: dict[str, Any] = {
            "wrong_type": await session.call_tool("add", {"a": "two", "extra": 1}),
            "missing": await session.call_tool("add", {}),
            "nested": await session.call_tool(
                "find_book", {"query": {"text": "", "genre": "poetry"}}
            ),
            "converter": await session.call_tool(
                "window_stats", {"window": {"start": "2024-02-30", "end": "2024-03-01"}}
            ),
            "raising": await session.call_tool("explode", {"reason": "boom"}),
        }
        with pytest.raises(MCPError) as unknown:
            await session.call_tool("no_such_tool", {})
        results["unknown"] = unknown.value
        results["after"] = await session.call_tool("add", {"a": 1})
        return results

    results = _with_session(FIXTURE_GENERATED, body)

    wrong_type = _text(results["wrong_type"])
    assert results["wrong_type"].is_error
    assert "arguments.a: 'two' is not of type 'integer'" in wrong_type
    assert "('extra' was unexpected)" in wrong_type
    assert "arguments: 'a' is a required property" in _text(results["missing"])
    nested = _text(results["nested"])
    assert "arguments.query.text: '' should be non-empty" in nested
    assert "arguments.query.genre: 'poetry' is not valid under any of the given schemas" in nested
    # Schema-valid (format is an annotation) but not a real date: pydantic's converter says so.
    converter = _text(results["converter"])
    assert results["converter"].is_error
    assert "arguments.window.start:" in converter and "day value is outside" in converter
    raising = _text(results["raising"])
    assert raising == "Tool 'explode' raised ValueError: exploded on purpose: boom"
    assert results["unknown"].code == types.INVALID_PARAMS
    assert results["unknown"].message == "Unknown tool: no_such_tool"
    assert results["after"].structured_content == {"result": 2}


def test_strict_output_reports_schema_mismatch_but_never_masks_a_tool_error() -> None:
    async def body(session: ClientSession) -> dict[str, types.CallToolResult]:
        return {
            "mislabeled": await session.call_tool("mislabeled", {}),
            "explode": await session.call_tool("explode", {"reason": "own message"}),
            "add": await session.call_tool("add", {"a": 1, "b": 2}),
        }

    results = _with_session(FIXTURE_GENERATED, body, "--strict-output")

    assert results["mislabeled"].is_error
    assert results["mislabeled"].structured_content is None
    assert _text(results["mislabeled"]) == (
        "Tool 'mislabeled' returned structured content that does not match its outputSchema:\n"
        "- structuredContent.result: 'not an int' is not of type 'integer'"
    )
    assert _text(results["explode"]) == (
        "Tool 'explode' raised ValueError: exploded on purpose: own message"
    )
    assert results["add"].structured_content == {"result": 3}


def test_call_timeout_turns_a_hanging_tool_into_an_error() -> None:
    async def body(session: ClientSession) -> dict[str, Any]:
        started = time.monotonic()
        results: dict[str, Any] = {
            "async": await session.call_tool("nap", {"seconds": 60}),
            "sync": await session.call_tool("block", {"seconds": 60}),
        }
        results["elapsed"] = time.monotonic() - started
        results["after"] = await session.call_tool("nap", {"seconds": 0})
        return results

    results = _with_session(FIXTURE_GENERATED, body, "--call-timeout", "0.5")

    assert _text(results["async"]) == "Tool 'nap' did not finish within 0.5 s"
    assert _text(results["sync"]) == "Tool 'block' did not finish within 0.5 s"
    assert results["async"].is_error and results["sync"].is_error
    assert results["elapsed"] < 30
    assert results["after"].structured_content == {"result": "rested"}


@pytest.mark.parametrize("protocol_version", ["2025-06-18", "2025-11-25"])
def test_raw_wire_tools_list_carries_the_generated_dicts(protocol_version: str) -> None:
    registry = load_tools(FIXTURE_GENERATED)
    server = RawStdioServer(server_args(FIXTURE_GENERATED))
    try:
        initialized = server.initialize(protocol_version)
        listed = server.request("tools/list")
        called = server.request("tools/call", {"name": "greet", "arguments": {"name": "Bo"}})
    finally:
        server.close()

    assert initialized["protocolVersion"] == protocol_version
    assert initialized["serverInfo"] == {"name": "mcp-codegen", "version": "1.2.3"}
    assert initialized["capabilities"]["tools"] == {"listChanged": False}
    assert listed["result"]["tools"] == registry.list_tools(protocol_version)
    assert "nextCursor" not in listed["result"]
    assert called["result"] == {
        "content": [{"type": "text", "text": '{"result": "Hello, Bo!"}'}],
        "structuredContent": {"result": "Hello, Bo!"},
        "isError": False,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_streamable_http_transport_serves_the_same_tools() -> None:
    registry = load_tools(FIXTURE_GENERATED)
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            *server_args(FIXTURE_GENERATED, "--transport", "http", "--port", str(port)),
        ],
        cwd=REPO_ROOT,
        env=server_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )

    async def run() -> dict[str, Any]:
        with anyio.fail_after(60):
            while True:  # wait for the port: the SDK import takes about a second
                assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.1)
            url = f"http://127.0.0.1:{port}/mcp"
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                listed = await session.list_tools()
                return {
                    "tools": [_wire(tool) for tool in listed.tools],
                    "add": await session.call_tool("add", {"a": 20, "b": 22}),
                    "find": await session.call_tool("find_book", FIXTURE_CALLS["find_book"]),
                    "bad": await session.call_tool("greet", {"name": 7}),
                }

    try:
        results = anyio.run(run)
    finally:
        process.terminate()
        process.wait(timeout=20)
        process.stderr.close()  # type: ignore[union-attr]

    assert results["tools"] == registry.list_tools(HANDSHAKE_VERSION)
    _assert_structured_with_text_copy(results["add"], {"result": 42})
    assert results["find"].structured_content["title"] == "Dune (3, sand+worms)"
    assert results["bad"].is_error
    assert "arguments.name: 7 is not of type 'string'" in _text(results["bad"])


def test_stdio_lists_and_calls_every_example_tool() -> None:
    generated = example_generated()
    registry = load_tools(generated)
    assert len(registry) > 0

    async def body(session: ClientSession) -> dict[str, Any]:
        listed = await session.list_tools()
        outcomes: dict[str, Any] = {"tools": [_wire(tool) for tool in listed.tools]}
        earlier: dict[str, Any] = {}
        for tool in registry.list_tools(HANDSHAKE_VERSION):
            # ClientSession validates structuredContent against outputSchema and raises if not.
            result = await session.call_tool(tool["name"], sample_arguments(tool, earlier))
            outcomes[tool["name"]] = result
            earlier[tool["name"]] = result.structured_content
        return outcomes

    outcomes = _with_session(generated, body)

    assert outcomes["tools"] == registry.list_tools(HANDSHAKE_VERSION)
    for tool in registry.list_tools(HANDSHAKE_VERSION):
        result = outcomes[tool["name"]]
        assert not result.is_error, (tool["name"], _wire(result))
        if "outputSchema" in tool:
            assert json.loads(_text(result)) == result.structured_content, tool["name"]
    # Spot checks that the arguments were converted and the dependencies injected.
    assert outcomes["get_book"].structured_content["title"] == "The Lighthouse Keeper's Almanac"
    assert outcomes["count_members"].structured_content == {"total": 3}  # two + one registered
    assert outcomes["reserve_copy"].structured_content["result"]["kind"] == "backordered"
    cancelled = outcomes["cancel_order"].content[0].text
    assert cancelled.endswith("is cancelled (changed mind).")
    assert outcomes["place_order"].structured_content["order_id"] in cancelled
    snapshot = outcomes["inventory_snapshot"].structured_content  # Settings + ConfigPaths
    assert snapshot["shop"] == "Marginalia Books"
    assert snapshot["export_path"] == "var/bookshop/exports/inventory.csv"
    report = outcomes["sales_report"].structured_content  # MCPServer Context injected
    assert (report["period_start"], report["period_end"]) == ("2024-01-01", "2024-03-31")
    assert outcomes["describe_book"].content[0].text == "Orbital Mechanics for Poets by Dev Raman"


@pytest.mark.parametrize("protocol", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_stdio_python_client_accepts_every_protocol_variant(protocol: str) -> None:
    """ClientSession negotiates each revision over stdio (``discover()`` for 2026-07-28) and
    validates every structuredContent against the outputSchema listed for that revision."""
    generated = example_generated()
    registry = load_tools(generated)
    tools = registry.list_tools(protocol)

    async def run() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        parameters = StdioServerParameters(
            command=sys.executable,
            args=server_args(generated),
            env=server_env(),
            cwd=str(REPO_ROOT),
        )
        async with AsyncExitStack() as stack:
            streams = await stack.enter_async_context(stdio_client(parameters))
            session = await open_session(stack, streams, protocol)
            with anyio.fail_after(120):
                listed, results, earlier = await session.list_tools(), {}, {}
                for tool in tools:
                    result = await session.call_tool(tool["name"], sample_arguments(tool, earlier))
                    results[tool["name"]] = result
                    box = registry.binding(tool["name"]).box_field
                    # Earlier results are referenced by their boxed paths (EXAMPLE_CALLS).
                    unboxed = registry.binding(tool["name"]).box_for(protocol) != box
                    earlier[tool["name"]] = (
                        {box: result.structured_content} if unboxed else result.structured_content
                    )
                return [_wire(tool) for tool in listed.tools], results

    listed, results = anyio.run(run)

    assert listed == tools
    for tool in tools:
        result = results[tool["name"]]
        assert not result.is_error, (tool["name"], _wire(result))
        if "outputSchema" in tool:
            assert json.loads(_text(result)) == result.structured_content, tool["name"]
    # merge_categories -> int adds "poetry" and its child "haiku" to a fresh catalogue: 2.
    expected = 2 if protocol == "2026-07-28" else {"result": 2}
    assert results["merge_categories"].structured_content == expected
