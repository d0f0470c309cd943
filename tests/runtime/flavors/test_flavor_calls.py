"""tools/call through the runtime equals tools/call through the framework, for every tool.

Each corpus package (tests/fixtures/published: SDK 2.x and SDK 1.x style under flavor "mcp",
fastmcp under "fastmcp") and each extras module (tests/runtime/flavors/fixtures) is generated in
its framework's flavor. Every tool is then called with the same arguments, in the same order and
from the same tool-module state, on the package's real server object through the framework's own
client, and on ``mcp_codegen.runtime`` serving the generated modules; the answers must be equal as
JSON, key order included: content, structuredContent, isError and _meta (minus the server's
identity, see flavor_support), or the same JSON-RPC error.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen.runtime import load_tools
from tests.helpers.framework_calls import PACKAGES, Answers, answer_differences, stdio_runtime_calls
from tests.helpers.json_text import exact_json

pytestmark = pytest.mark.process


@pytest.mark.slow
@pytest.mark.parametrize("package", list(PACKAGES))
def test_every_tool_answers_as_its_framework_does(
    outputs: dict[str, Path], answers: Answers, package: str
) -> None:
    made = answers[package]
    called = {name for name, _ in made["calls"]}
    assert called == set(load_tools(outputs[package]).names())  # every tool, none skipped
    assert [exact_json(a) for a in made["ours"]] == [exact_json(a) for a in made["theirs"]], (
        answer_differences(made["calls"], made["theirs"], made["ours"])
    )


@pytest.mark.parametrize("package", list(PACKAGES))
def test_over_stdio_too(outputs: dict[str, Path], answers: Answers, package: str) -> None:
    """``python -m mcp_codegen.runtime`` in its own process (fresh state), the SDK's ClientSession
    over stdio, against the framework's in-process answers."""
    made = answers[package]
    ours = stdio_runtime_calls(outputs[package], made["calls"])
    assert [exact_json(a) for a in ours] == [exact_json(a) for a in made["theirs"]], (
        answer_differences(made["calls"], made["theirs"], ours)
    )


def _text(answer: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in answer.get("content", []))


def _boxed_scalar(answer: dict[str, Any]) -> bool:
    box = answer.get("structuredContent")
    return (
        isinstance(box, dict)
        and list(box) == ["result"]
        and not isinstance(box["result"], dict | list)
    )


# Where each result form appears, checked on the framework's own answer: the equality tests above
# prove the runtime matches; this table proves the calls keep covering the forms.
FORMS: list[tuple[str, str, str, Callable[[dict[str, Any]], bool]]] = [
    ("boxed scalar (SDK)", "sdk2", "star_count", lambda a: _boxed_scalar(a) and _text(a) == "0"),
    ("boxed scalar (fastmcp), with _meta", "fastmcp_style", "count_tasks", lambda a: _boxed_scalar(a) and a["_meta"] == {"fastmcp": {"wrap_result": True}}),
    ("boxed list of models (SDK): one text block per item", "sdk2", "list_notes", lambda a: len(a["content"]) == len(a["structuredContent"]["result"]) >= 1),
    ("model (SDK), indented JSON text", "sdk2", "add_note", lambda a: a["structuredContent"]["title"] == "First" and _text(a).startswith("{\n  ")),
    ("model (fastmcp), compact JSON text", "extras_fastmcp", "reading", lambda a: _text(a).startswith('{"station"')),
    ("dataclass (SDK)", "sdk2", "get_repository", lambda a: a["structuredContent"]["stars"] == 0),
    ("TypedDict (fastmcp)", "fastmcp_style", "facets", lambda a: a["structuredContent"] == {"authors": [], "years": []}),
    ("-> None (SDK): boxed null", "extras_sdk", "nothing", lambda a: a["structuredContent"] == {"result": None} and a["content"] == []),
    ("-> None (fastmcp): nothing at all", "fastmcp_style", "delete_document", lambda a: a["content"] == [] and "structuredContent" not in a),
    ("no annotation, returns None (SDK)", "sdk1", "delete_event", lambda a: a["content"] == [] and "structuredContent" not in a),
    ("no annotation, returns a number (fastmcp)", "fastmcp_style", "estimate", lambda a: _text(a) == "4" and "structuredContent" not in a),
    ("content block", "extras_sdk", "pixel", lambda a: a["content"][0]["type"] == "image" and "structuredContent" not in a),
    ("list of content blocks", "extras_fastmcp", "gallery", lambda a: [b["type"] for b in a["content"]] == ["text", "image"]),
    ("Image helper (SDK)", "extras_sdk", "thumbnail", lambda a: a["content"][0]["mimeType"] == "image/png"),
    ("Image helper (fastmcp)", "extras_fastmcp", "thumbnail", lambda a: a["content"][0]["mimeType"] == "image/png"),
    ("CallToolResult passthrough (SDK)", "sdk2", "note_as_text", lambda a: _text(a) == "Buy milk"),
    ("CallToolResult isError passthrough (SDK)", "sdk2", "note_as_text", lambda a: a["isError"] and _text(a) == "no such note"),
    ("CallToolResult with _meta (fastmcp)", "extras_fastmcp", "handmade", lambda a: a["_meta"] == {"com.example/origin": "handmade"}),
    ("raising tool (SDK): details kept on the server", "sdk2", "rename_note", lambda a: a["isError"] and _text(a) == "Error executing tool rename_note"),
    ("ToolError (SDK): its message", "extras_sdk", "refuse", lambda a: _text(a) == "Error executing tool refuse: refused: sample"),
    ("raising tool (fastmcp)", "fastmcp_style", "create_task", lambda a: a["isError"] and _text(a) == "Error calling tool 'create_task': "),
    ("ToolError (fastmcp): its message alone", "extras_fastmcp", "refuse", lambda a: _text(a) == "refused: sample"),
    ("output the SDK's model refuses", "extras_sdk", "wrong_type", lambda a: a["isError"] and _text(a) == "Error executing tool wrong_type"),
    ("NaN (SDK): sent as null, which the SDK's client refuses", "extras_sdk", "not_finite", lambda a: "None is not of type 'number'" in a["client_refused"]),
    ("NaN (fastmcp): refused by fastmcp", "extras_fastmcp", "not_finite", lambda a: a["isError"] and "non-finite float" in _text(a)),
    ("MCPError (SDK): a JSON-RPC error", "extras_sdk", "unavailable", lambda a: a == {"jsonrpc_error": {"code": -32001, "message": "upstream unavailable"}}),
    ("MCPError (fastmcp): a tool error", "extras_fastmcp", "unavailable", lambda a: a["isError"]),
    ("generator (fastmcp): collected", "extras_fastmcp", "countdown", lambda a: _text(a) == "[3,2,1]"),
    ("async generator (fastmcp)", "extras_fastmcp", "stream", lambda a: _text(a) == '["part 0","part 1"]'),
    ("fastmcp Context, required", "extras_fastmcp", "with_context", lambda a: a["structuredContent"] == {"result": "SAMPLE"}),
    ("SDK Context, optional, used", "sdk2", "summarize_notes", lambda a: a["structuredContent"] == {"result": "Buy milk"}),
    ("SDK Context, defaulting to None, still supplied", "extras_sdk", "context_kind", lambda a: a["structuredContent"] == {"result": "Context"}),
    ("fastmcp Context, defaulting to None, still supplied", "extras_fastmcp", "context_kind", lambda a: a["structuredContent"] == {"result": "Context"}),
    ("registration function (SDK 2.x)", "sdk2", "write_file", lambda a: a["structuredContent"] == {"result": 6}),
    ("registration function, keyword-only option (SDK 2.x)", "sdk2", "describe_table", lambda a: not a["isError"]),
    ("registration function (SDK 1.x style)", "sdk1", "create_event", lambda a: a["structuredContent"]["title"] == "sample"),
    ("registration function (fastmcp)", "fastmcp_style", "admin_stats", lambda a: a["structuredContent"] == {}),
    ("registration function with a Context (fastmcp)", "fastmcp_style", "update_document", lambda a: a["structuredContent"] == {"result": True}),
]  # fmt: skip


@pytest.mark.parametrize(("form", "package", "tool", "check"), FORMS, ids=[f[0] for f in FORMS])
def test_the_calls_cover_each_result_form(
    answers: Answers, form: str, package: str, tool: str, check: Callable[[dict[str, Any]], bool]
) -> None:
    made = answers[package]
    found = [
        answer
        for (name, _), answer in zip(made["calls"], made["theirs"], strict=True)
        if name == tool
    ]
    assert any(check(answer) for answer in found), found
