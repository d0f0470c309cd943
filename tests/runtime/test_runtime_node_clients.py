"""End to end with npm clients: the TypeScript SDK client and the MCP Inspector CLI, over stdio.

The clients are installed by the ``node_modules`` fixture from the committed package-lock.json.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen.runtime import load_tools
from tests.helpers.servers import server_env
from tests.runtime.runtime_support import (
    FIXTURE_CALLS,
    FIXTURE_GENERATED,
    HANDSHAKE_VERSION,
    NODE_PROJECT,
    REPO_ROOT,
    example_generated,
    planned_arguments,
    server_args,
)

pytestmark = [pytest.mark.process, pytest.mark.e2e]


def _node() -> str:
    node = shutil.which("node")
    assert node is not None  # the node_modules fixture already failed otherwise
    return node


def _run_ts_client(
    tmp_path: Path,
    generated: Path,
    calls: list[dict[str, Any]],
    *extra: str,
    early: list[dict[str, Any]] | None = None,
    protocol: str | None = None,
) -> dict[str, Any]:
    """Run ts_client.mjs: the SDK 1.x client, or with ``protocol`` the 2.x client at it."""
    spec: dict[str, Any] = {
        "command": sys.executable,
        "args": server_args(generated, *extra),
        "cwd": str(REPO_ROOT),
        "env": server_env(),
        "calls": calls,
        "early": early or [],
    }
    if protocol is not None:
        spec["protocol"] = protocol
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    completed = subprocess.run(
        [_node(), str(NODE_PROJECT / "ts_client.mjs"), str(spec_file)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)  # type: ignore[no-any-return]


def _by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {call["name"]: call for call in report["calls"]}


@pytest.mark.slow
def test_typescript_client_calls_right_after_initialized_before_the_sdk_has_loaded(
    node_modules: Path, tmp_path: Path
) -> None:
    # Sent at once after `initialized`, alongside tools/list: the fast path answers the listing
    # and hands the calls to the SDK door while it is still loading; each is answered once.
    early = [
        {"name": "add", "arguments": FIXTURE_CALLS["add"]},
        {"name": "greet", "arguments": FIXTURE_CALLS["greet"]},
        {"name": "add", "arguments": {"a": "two"}},
    ]
    report = _run_ts_client(tmp_path, FIXTURE_GENERATED, [], early=early)
    added, greeted, invalid = report["early"]
    assert report["tools"] == load_tools(FIXTURE_GENERATED).list_tools()
    assert added["result"]["structuredContent"] == {"result": 42}
    assert greeted["result"]["structuredContent"] == {"result": "HELLO, ADA!"}
    assert invalid["result"]["isError"] is True


def test_typescript_client_lists_and_calls_every_fixture_tool(
    node_modules: Path, tmp_path: Path
) -> None:
    registry = load_tools(FIXTURE_GENERATED)
    calls = [{"name": name, "arguments": FIXTURE_CALLS[name]} for name in registry.names()]
    calls += [
        {"name": "add", "arguments": {"a": "two"}},
        {"name": "no_such_tool", "arguments": {}},
    ]

    report = _run_ts_client(tmp_path, FIXTURE_GENERATED, calls)
    named = {call["name"]: call for call in report["calls"][: len(registry)]}
    invalid, unknown = report["calls"][len(registry) :]

    assert report["serverVersion"]["version"] == "1.2.3"
    assert report["tools"] == registry.list_tools(HANDSHAKE_VERSION)
    assert named["add"]["result"]["structuredContent"] == {"result": 42}
    assert json.loads(named["add"]["result"]["content"][0]["text"]) == {"result": 42}
    assert named["greet"]["result"]["structuredContent"] == {"result": "HELLO, ADA!"}
    assert named["repeat"]["result"]["structuredContent"] == {"result": ["hi", "hi", "hi"]}
    assert named["find_book"]["result"]["structuredContent"]["addedAt"] == "2024-05-06T07:08:09Z"
    assert named["window_stats"]["result"]["structuredContent"] == {"days": 60, "genre": "fiction"}
    assert named["latest"]["result"]["structuredContent"]["result"]["title"] == "New"
    assert named["forget"]["result"]["content"] == []
    assert named["pixel"]["result"]["content"][0]["mimeType"] == "image/png"
    assert named["handmade"]["result"]["structuredContent"] == {"flag": True}
    assert named["explode"]["result"]["isError"] is True
    assert "exploded on purpose: testing" in named["explode"]["result"]["content"][0]["text"]
    # The TypeScript client validates structuredContent itself (Ajv, formats on).
    assert "does not match the tool's output schema" in named["mislabeled"]["error"]["message"]
    assert invalid["result"]["isError"] is True
    assert "arguments.a: 'two' is not of type 'integer'" in invalid["result"]["content"][0]["text"]
    assert unknown["error"]["code"] == -32602
    assert "Unknown tool: no_such_tool" in unknown["error"]["message"]


def test_typescript_client_lists_and_calls_every_example_tool(
    node_modules: Path, tmp_path: Path
) -> None:
    generated = example_generated()
    registry = load_tools(generated)
    calls = [
        {"name": tool["name"], "arguments": planned_arguments(tool)}
        for tool in registry.list_tools(HANDSHAKE_VERSION)
    ]

    report = _run_ts_client(tmp_path, generated, calls)

    assert report["tools"] == registry.list_tools(HANDSHAKE_VERSION)
    for tool in registry.list_tools(HANDSHAKE_VERSION):
        call = _by_name(report)[tool["name"]]
        assert "error" not in call, call
        assert call["result"].get("isError") is not True, call
        if "outputSchema" in tool:
            structured = call["result"]["structuredContent"]
            assert json.loads(call["result"]["content"][0]["text"]) == structured


def _inspector(node_modules: Path, generated: Path, *method: str) -> Any:
    package = node_modules / "@modelcontextprotocol" / "inspector-cli"
    completed = subprocess.run(
        [
            _node(),
            str(package / "build" / "cli.js"),
            "--cli",
            sys.executable,
            *server_args(generated),
            *method,
        ],
        # inspector-cli 1.0.3 looks for "../package.json" relative to the working directory.
        cwd=package / "build",
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_inspector_cli_lists_and_calls_fixture_tools(node_modules: Path) -> None:
    # Each Inspector CLI run is one session: tools/call goes out right after `initialized`, with
    # no tools/list, so it is the message that hands the session to the SDK door.
    registry = load_tools(FIXTURE_GENERATED)

    listed = _inspector(node_modules, FIXTURE_GENERATED, "--method", "tools/list")
    called = _inspector(
        node_modules,
        FIXTURE_GENERATED,
        "--method",
        "tools/call",
        "--tool-name",
        "find_book",
        "--tool-arg",
        'query={"text": "Emma", "tags": ["austen"]}',
        "limit=2",
    )

    assert listed["tools"] == registry.list_tools(HANDSHAKE_VERSION)
    assert called["isError"] is False
    assert called["structuredContent"] == {
        "title": "Emma (2, austen)",
        "genre": "fiction",
        "published": "2001-01-01",
        "addedAt": "2024-05-06T07:08:09Z",
    }


def test_inspector_cli_lists_and_calls_the_example_server(node_modules: Path) -> None:
    generated = example_generated()
    registry = load_tools(generated)

    listed = _inspector(node_modules, generated, "--method", "tools/list")
    called = _inspector(
        node_modules,
        generated,
        "--method",
        "tools/call",
        "--tool-name",
        "get_book",
        "--tool-arg",
        'isbn="9780306406157"',
    )

    assert listed["tools"] == registry.list_tools(HANDSHAKE_VERSION)
    assert called["isError"] is False
    assert called["structuredContent"]["title"] == "Orbital Mechanics for Poets"
    assert json.loads(called["content"][0]["text"]) == called["structuredContent"]


@pytest.mark.parametrize("protocol", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_typescript_2x_client_accepts_every_protocol_variant(
    node_modules: Path, tmp_path: Path, protocol: str
) -> None:
    """The SDK 2.x client negotiates each revision and validates every structuredContent
    against the outputSchema it was listed (Ajv2020): natural from 2026-07-28, boxed before."""
    generated = example_generated()
    registry = load_tools(generated)
    tools = registry.list_tools(protocol)
    calls = [{"name": tool["name"], "arguments": planned_arguments(tool)} for tool in tools]

    report = _run_ts_client(tmp_path, generated, calls, protocol=protocol)

    assert report["negotiated"] == protocol
    assert report["tools"] == tools
    natural = 0
    for tool in tools:
        call = _by_name(report)[tool["name"]]
        assert "error" not in call, call
        assert call["result"].get("isError") is not True, call
        if "outputSchema" not in tool:
            continue
        structured = call["result"]["structuredContent"]
        assert json.loads(call["result"]["content"][0]["text"]) == structured
        binding = registry.binding(tool["name"])
        box = binding.box_for(protocol)
        if box is not None:
            assert tool["outputSchema"]["type"] == "object" and set(structured) == {box}
        elif binding.natural:  # the bare value: a list, an integer, a model or null
            natural += 1
            assert tool["outputSchema"].get("type") != "object"
            assert not (isinstance(structured, dict) and set(structured) == {binding.box_field})
    assert natural == (6 if protocol == "2026-07-28" else 0)
