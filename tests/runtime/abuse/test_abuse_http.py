"""The streamable HTTP server survives abuse: malformed bodies, huge and deep ones, unruly tools.

Malformed bodies are POSTed as raw bytes; well-formed traffic goes through the SDK's
``ClientSession``. After every abuse the same server must still serve a new session.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

from tests.runtime.abuse.abuse_support import DEEP, HttpServer, http_server, request_line, run

pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    with http_server("--call-timeout", "1") as running:
        yield running


def _still_serving(server: HttpServer) -> Any:
    async def body() -> Any:
        async with server.session() as session:
            return (await session.call_tool("add", {"a": 40, "b": 2})).structured_content

    return run(body, timeout=60)


def _call(body: bytes) -> bytes:
    return (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", '
        b'"arguments": {"a": %s}}}' % body
    )


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"this is not json", types.PARSE_ERROR),
        (b"\xff\xfe\x00garbage", types.PARSE_ERROR),
        (_call(DEEP), types.PARSE_ERROR),  # nested 10,000 levels deep
        (_call(b'"\\ud800"'), types.PARSE_ERROR),  # a lone surrogate escape
        (b"[" + request_line(1, "tools/list").strip() + b"]", types.INVALID_PARAMS),  # a batch
    ],
    ids=["not JSON", "binary", "nested 10,000 levels", "lone surrogate", "batch"],
)
def test_a_malformed_body_is_a_400_with_a_json_rpc_error(
    server: HttpServer, body: bytes, code: int
) -> None:
    status, answer = server.post(body)
    assert status == 400
    error = json.loads(answer)
    assert error["id"] is None
    assert error["error"]["code"] == code
    assert _still_serving(server) == {"result": 42}


def test_a_50_mb_body_is_refused_before_it_is_read(server: HttpServer) -> None:
    status, answer = server.post(_call(b'"' + b"x" * 50_000_000 + b'"'))
    assert (status, answer) == (413, b"Request body too large")
    assert _still_serving(server) == {"result": 42}


def test_well_formed_abuse_through_the_sdk_client(server: HttpServer) -> None:
    async def body() -> dict[str, Any]:
        outcomes: dict[str, Any] = {}
        async with server.session() as session:

            async def attempt(label: str, tool: str, arguments: dict[str, Any]) -> None:
                started = time.monotonic()
                try:
                    outcomes[label] = await session.call_tool(tool, arguments)
                except MCPError as exc:
                    outcomes[label] = exc
                outcomes[f"{label} seconds"] = time.monotonic() - started

            await attempt("wrong type", "add", {"a": [1, 2]})
            await attempt("unknown tool", "no_such_tool", {})
            await attempt("too large", "echo", {"text": "z" * 5_000_000})
            await attempt("system exit", "fail", {"kind": "system_exit"})
            await attempt("cancelled", "fail_async", {"kind": "cancelled"})
            await attempt("stubborn", "stubborn", {})
            await attempt("sleep_sync", "sleep_sync", {"seconds": 600})
            await attempt("nan", "strange", {"kind": "nan"})
            await attempt("surrogate", "strange", {"kind": "surrogate"})
            await attempt("after", "add", {"a": 1, "b": 1})
        return outcomes

    outcomes = run(body)

    def text(label: str) -> str:
        result = outcomes[label]
        assert isinstance(result, types.CallToolResult) and result.is_error, result
        return result.content[0].text  # type: ignore[union-attr]

    assert "arguments.a: [1, 2] is not of type 'integer'" in text("wrong type")
    assert isinstance(outcomes["unknown tool"], MCPError)
    assert outcomes["unknown tool"].error.code == types.INVALID_PARAMS
    assert isinstance(outcomes["too large"], MCPError)  # the server's 413
    assert text("system exit") == "Tool 'fail' raised SystemExit: 3"
    assert text("cancelled") == "Tool 'fail_async' raised CancelledError"
    for tool in ("stubborn", "sleep_sync"):
        assert text(tool) == f"Tool {tool!r} did not finish within 1 s"
        assert outcomes[f"{tool} seconds"] < 10
    assert "NaN or Infinity" in text("nan")
    assert "lone surrogate" in text("surrogate")
    assert outcomes["after"].structured_content == {"result": 2}
    assert _still_serving(server) == {"result": 42}
