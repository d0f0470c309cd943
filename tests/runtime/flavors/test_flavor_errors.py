"""Answers that are not a tool's result: unknown tools, and arguments the schema refuses.

An unknown tool gets exactly the framework's answer (both frameworks send an ``isError`` result,
where flavor "clean" sends the JSON-RPC error the MCP specification describes). Arguments are
validated against the generated inputSchema with jsonschema, as in every flavor, where the
frameworks validate with pydantic: the call is refused in both, and only the wording of the
message differs (docs/flavors.md, "Serving flavored modules").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client

from mcp_codegen.runtime import load_tools
from mcp_codegen.runtime._serve.server import build_server
from tests.helpers.framework_calls import (
    PACKAGES,
    call_in_order,
    framework_calls,
    runtime_calls,
    server_object,
)
from tests.helpers.json_text import exact_json
from tests.runtime.runtime_support import FIXTURE_GENERATED

pytestmark = pytest.mark.process

EXTRAS = {"mcp": "extras_sdk", "fastmcp": "extras_fastmcp"}


def _both(
    outputs: dict[str, Path], flavor: str, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[Any], list[Any]]:
    package = EXTRAS[flavor]
    theirs = framework_calls(flavor, server_object(PACKAGES[package][2]), calls)
    return theirs, runtime_calls(outputs[package], calls)


@pytest.mark.parametrize(
    ("flavor", "text"),
    [("mcp", "Unknown tool: no_such_tool"), ("fastmcp", "Unknown tool: 'no_such_tool'")],
)
def test_an_unknown_tool_is_answered_as_the_framework_answers_it(
    outputs: dict[str, Path], flavor: str, text: str
) -> None:
    theirs, ours = _both(outputs, flavor, [("no_such_tool", {})])
    assert exact_json(ours) == exact_json(theirs)
    assert ours[0]["isError"] is True
    assert ours[0]["content"] == [{"type": "text", "text": text}]


def test_clean_still_answers_an_unknown_tool_with_a_protocol_error() -> None:
    async def run() -> list[dict[str, Any]]:
        async with Client(build_server(load_tools(FIXTURE_GENERATED))) as client:
            return await call_in_order(client.call_tool, [("no_such_tool", {})])

    assert anyio.run(run) == [
        {"jsonrpc_error": {"code": -32602, "message": "Unknown tool: no_such_tool"}}
    ]


INVALID = [
    # (tool, arguments, what our message says about them)
    (
        "ratio",
        {"numerator": "seven", "denominator": 2},
        "- arguments.numerator: 'seven' is not of type 'integer'",
    ),
    ("ratio", {"denominator": 2}, "- arguments: 'numerator' is a required property"),
    ("echo", {"values": [1, 2]}, "- arguments.values: [1, 2] is not of type 'object'"),
]


@pytest.mark.parametrize("flavor", ["mcp", "fastmcp"])
@pytest.mark.parametrize(
    ("tool", "arguments", "problem"), INVALID, ids=["type", "missing", "shape"]
)
def test_refused_arguments_are_refused_by_both_in_their_own_words(
    outputs: dict[str, Path], flavor: str, tool: str, arguments: dict[str, Any], problem: str
) -> None:
    (theirs,), (ours,) = _both(outputs, flavor, [(tool, arguments)])
    # The same answer but for the text: an error result, one text block, nothing structured.
    assert (
        {**ours, "content": None}
        == {**theirs, "content": None}
        == {
            "content": None,
            "isError": True,
            "resultType": "complete",
        }
    )
    assert [block["type"] for block in theirs["content"]] == ["text"]
    assert ours["content"] == [
        {"type": "text", "text": f"Invalid arguments for tool {tool!r}:\n{problem}"}
    ]
