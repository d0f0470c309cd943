"""The stdio server survives abuse: malformed bytes, huge and deep messages, unruly tools.

Malformed traffic is written as raw bytes; well-formed traffic goes through the SDK's
``ClientSession``. After every abuse the same server must still answer a valid request.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import ClientSession, types
from mcp.shared.exceptions import MCPError

from tests.runtime.abuse.abuse_support import (
    DEEP,
    WireServer,
    call_line,
    request_line,
    run,
    stdio_session,
)

pytestmark = pytest.mark.process

PARSE_ERROR = types.PARSE_ERROR
INVALID_REQUEST = types.INVALID_REQUEST
FOUR_MIB = 4 * 1024 * 1024


@pytest.fixture(scope="module")
def server() -> Iterator[WireServer]:
    wire = WireServer()
    try:
        wire.initialize()
        yield wire
        assert wire.close() < 10
        assert wire.process.returncode == 0
    finally:
        wire.kill()


def _call(request_id: int, body: bytes) -> bytes:
    """A tools/call request around raw argument bytes."""
    return (
        b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "add", '
        b'"arguments": {"a": %s}}}' % (request_id, body)
    )


MALFORMED: list[tuple[str, bytes, int, int | None]] = [
    # JSON-RPC answers a message it cannot read with a null id; a request id that can be read
    # from the bytes is used instead, so that a client waiting for it is not left hanging.
    ("not JSON", b"this is not json", PARSE_ERROR, None),
    ("NUL bytes", b"\x00\x00\x00", PARSE_ERROR, None),
    ("binary garbage", bytes(b for b in range(256) if b not in b"\r\n"), PARSE_ERROR, None),
    (
        "truncated",
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {',
        PARSE_ERROR,
        7,
    ),
    ("invalid UTF-8", _call(8, b'"\xff\xfe"'), PARSE_ERROR, 8),
    ("lone surrogate escape", _call(9, b'"\\ud800"'), PARSE_ERROR, 9),
    ("nested 10,000 levels", _call(10, DEEP), PARSE_ERROR, 10),
    (
        "nested 10,000 levels, id last (as the TypeScript SDK writes it)",
        b'{"method": "tools/call", "params": {"name": "add", "arguments": {"a": '
        + DEEP
        + b'}}, "jsonrpc": "2.0", "id": 11}',
        PARSE_ERROR,
        11,
    ),
    ("a 5,000-digit integer", _call(12, b"9" * 5_000), PARSE_ERROR, 12),
    ("a JSON number", b"42", INVALID_REQUEST, None),
    ("a batch", b"[" + request_line(13, "tools/list").strip() + b"]", INVALID_REQUEST, None),
    (
        "params not an object",
        b'{"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": "add"}',
        INVALID_REQUEST,
        14,
    ),
    (
        "JSON-RPC 1.0",
        b'{"jsonrpc": "1.0", "id": 15, "method": "tools/list"}',
        INVALID_REQUEST,
        15,
    ),
    # Valid JSON-RPC with bad tools/call params: the SDK's own answer.
    ("arguments a list", call_line(16, "add", [1, 2]).strip(), types.INVALID_PARAMS, 16),
    ("tool name a number", call_line(17, 5, {}).strip(), types.INVALID_PARAMS, 17),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
def test_a_malformed_line_is_answered_and_the_next_request_served(
    server: WireServer, line: bytes, code: int, request_id: int | None
) -> None:
    server.write(line + b"\n")
    answer = server.next_message()
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] == request_id
    assert answer["error"]["code"] == code, answer
    if code == PARSE_ERROR:
        assert answer["error"]["message"].startswith("Parse error: Invalid JSON: ")
    assert server.add(100, 40, 2) == {"result": 42}


def test_messages_nested_too_deeply_say_so(server: WireServer) -> None:
    server.write(_call(18, DEEP) + b"\n")
    message = server.next_message()["error"]["message"]
    assert message.startswith("Parse error: Invalid JSON: recursion limit exceeded at line 1")


def test_blank_lines_are_ignored(server: WireServer) -> None:
    server.write(b"\n   \n\r\n\t\n")
    assert server.add(101, 1, 1) == {"result": 2}  # the first thing the server says


def test_a_50_mb_line_is_refused_without_being_held_in_memory(server: WireServer) -> None:
    # A tools/call is served by the SDK: the fast path hands over at the first one and the SDK's
    # import grows the process by tens of MB. Measure from there, whichever test ran first.
    assert server.add(106, 1, 2) == {"result": 3}
    before = server.peak_rss_kib()
    line = call_line(19, "echo", {"text": "x" * 50_000_000})
    server.write(line)
    answer = server.next_message()
    assert answer == {
        "jsonrpc": "2.0",
        "id": 19,
        "error": {
            "code": INVALID_REQUEST,
            "message": f"Request too large: the message has {len(line) - 1:,} bytes and this "
            f"server accepts at most {FOUR_MIB:,} (--max-message-bytes)",
        },
    }
    # The line is read up to the 4 MiB limit and then skipped a chunk at a time.
    after = server.peak_rss_kib()
    if before is not None and after is not None:  # Linux
        assert after - before < 24 * 1024
    assert server.add(102, 2, 2) == {"result": 4}


def test_a_50_mb_first_request_is_refused_by_the_fast_path_without_being_held() -> None:
    # The fast path reads the opening lines itself; an oversized one is where it hands over to
    # the SDK, which must still skip the rest of it. Compared with a server handed over by a
    # plain call: the same imports, without the line.
    reference, oversized = WireServer(), WireServer()
    try:
        for wire in (reference, oversized):
            wire.initialize()
        assert reference.add(1, 1, 1) == {"result": 2}
        line = call_line(2, "echo", {"text": "x" * 50_000_000})
        oversized.write(line)
        answer = oversized.next_message()
        assert answer["id"] == 2
        assert answer["error"]["code"] == INVALID_REQUEST
        assert answer["error"]["message"].startswith("Request too large: the message has ")
        assert oversized.add(3, 2, 2) == {"result": 4}
        plain, after_line = reference.peak_rss_kib(), oversized.peak_rss_kib()
        if plain is not None and after_line is not None:  # Linux
            assert after_line - plain < 24 * 1024
    finally:
        reference.kill()
        oversized.kill()


def test_a_tool_cannot_corrupt_the_wire_by_printing_or_reading_stdin(server: WireServer) -> None:
    # Whatever the tool prints goes to stderr; what it reads is end-of-file, not our requests.
    server.write(call_line(103, "read_stdin", {}) + call_line(104, "chatter", {}))
    answers = {message["id"]: message for message in (server.next_message(), server.next_message())}
    assert answers[103]["result"]["structuredContent"] == {"result": ""}
    assert answers[104]["result"]["structuredContent"] == {"result": "printed"}
    assert server.add(105, 3, 4) == {"result": 7}
    assert server.no_message_for(0.5)


def test_the_largest_message_allowed_is_answered_correctly() -> None:
    wire = WireServer("--max-message-bytes", str(64 * 1024 * 1024))
    try:
        wire.initialize()
        text = "y" * 20_000_000
        response = wire.request(1, "tools/call", {"name": "echo", "arguments": {"text": text}})
        assert response["result"]["structuredContent"] == {"result": text}
        assert wire.add(2, 5, 5) == {"result": 10}
    finally:
        wire.kill()


async def _well_formed_abuse(session: ClientSession) -> dict[str, Any]:
    outcomes: dict[str, Any] = {}

    async def attempt(label: str, tool: str, arguments: dict[str, Any]) -> None:
        started = time.monotonic()
        try:
            outcomes[label] = await session.call_tool(tool, arguments)
        except MCPError as exc:
            outcomes[label] = exc
        outcomes[f"{label} seconds"] = time.monotonic() - started

    await attempt("wrong type", "add", {"a": "two"})
    await attempt("missing", "add", {})
    await attempt("extra", "add", {"a": 1, "c": 3})
    await attempt("unknown tool", "no_such_tool", {})
    await attempt("unknown long name", "n" * 100_000, {})
    await attempt("too large", "echo", {"text": "z" * 5_000_000})
    for kind in ("value", "system_exit", "keyboard_interrupt", "cancelled", "unprintable"):
        await attempt(f"fail {kind}", "fail", {"kind": kind})
        await attempt(f"fail_async {kind}", "fail_async", {"kind": kind})
    await attempt("recurse", "recurse", {})
    for tool, arguments in [
        ("sleep_sync", {"seconds": 600}),
        ("spin", {"seconds": 600}),
        ("doze", {"seconds": 600}),
        ("linger", {"cleanup_seconds": 600}),
        ("stubborn", {}),
    ]:
        await attempt(tool, tool, arguments)
    for kind in ("object", "object_set", "nan", "generator", "endless", "cycle", "deep", "bytes"):
        await attempt(f"strange {kind}", "strange", {"kind": kind})
    await attempt("strange surrogate", "strange", {"kind": "surrogate"})
    await attempt("ratio", "ratio", {})
    await attempt("bad_text", "bad_text", {})
    await attempt("after", "add", {"a": 20, "b": 22})
    return outcomes


def _text(result: Any) -> str:
    assert isinstance(result, types.CallToolResult), result
    assert result.is_error, result
    return result.content[0].text  # type: ignore[union-attr]


@pytest.mark.slow
def test_well_formed_abuse_through_the_sdk_client() -> None:
    async def body() -> dict[str, Any]:
        async with stdio_session("--call-timeout", "1") as session:
            return await _well_formed_abuse(session)

    outcomes = run(body)

    assert "arguments.a: 'two' is not of type 'integer'" in _text(outcomes["wrong type"])
    assert "arguments: 'a' is a required property" in _text(outcomes["missing"])
    assert "('c' was unexpected)" in _text(outcomes["extra"])
    for label in ("unknown tool", "unknown long name", "too large"):
        assert isinstance(outcomes[label], MCPError), outcomes[label]
    assert outcomes["unknown tool"].error.code == types.INVALID_PARAMS
    assert outcomes["too large"].error.code == INVALID_REQUEST
    assert outcomes["too large"].error.message.startswith("Request too large")
    assert _text(outcomes["fail system_exit"]) == "Tool 'fail' raised SystemExit: 3"
    assert _text(outcomes["fail_async cancelled"]) == "Tool 'fail_async' raised CancelledError"
    for label in [key for key in outcomes if key.startswith("fail")]:
        if not label.endswith("seconds"):
            assert _text(outcomes[label]).startswith(f"Tool '{label.split()[0]}' raised ")
    assert _text(outcomes["recurse"]).startswith("Tool 'recurse' raised RecursionError")
    for tool in ("sleep_sync", "spin", "doze", "linger", "stubborn"):
        assert _text(outcomes[tool]) == f"Tool {tool!r} did not finish within 1 s"
        assert outcomes[f"{tool} seconds"] < 10
    for label in [key for key in outcomes if key.startswith("strange") and "seconds" not in key]:
        assert "returned a value that cannot be serialized to JSON: " in _text(outcomes[label])
    assert "NaN or Infinity" in _text(outcomes["ratio"])
    assert "surrogates not allowed" in _text(outcomes["bad_text"])
    assert outcomes["after"].structured_content == {"result": 42}


def test_the_server_exits_promptly_when_stdin_closes_with_tool_calls_still_running() -> None:
    wire = WireServer("--call-timeout", "0.3")
    try:
        wire.initialize()
        for request_id, tool, arguments in [
            (1, "stubborn", {}),  # a task that swallows every cancellation
            (2, "sleep_sync", {"seconds": 3600}),  # a thread that cannot be stopped
            (3, "spin", {"seconds": 3600}),
        ]:
            text = wire.request(request_id, "tools/call", {"name": tool, "arguments": arguments})
            assert text["result"]["content"][0]["text"].endswith("did not finish within 0.3 s")
        assert wire.add(4, 1, 2) == {"result": 3}
        assert wire.close(timeout=20) < 10
        assert wire.process.returncode == 0
    finally:
        wire.kill()
