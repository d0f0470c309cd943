"""tools/call under abuse, in process: real tools, real jsonschema and pydantic, no server."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import anyio
import pytest
from mcp import types

from mcp_codegen.runtime import load_tools
from mcp_codegen.runtime._call.failures import MAX_QUOTED_INPUT, MAX_TOOL_MESSAGE
from mcp_codegen.runtime._call.invoke import ToolCaller
from mcp_codegen.runtime._call.runs import abandoned_calls
from tests.helpers.servers import server_env
from tests.runtime.abuse.abuse_support import FIXTURES, GENERATED, REPO_ROOT

SERIALIZE = "returned a value that cannot be serialized to JSON: "
REGISTRY = load_tools(GENERATED)


@pytest.fixture(autouse=True)
def _tools_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(GENERATED.parents[1]))  # the fixtures directory


@pytest.mark.process
def test_the_fixture_schemas_are_what_the_generator_makes_of_the_fixture_tools() -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_codegen._cli",
            "--config",
            str(FIXTURES / "mcp-codegen.toml"),
            "check",
            "--no-cache",
        ],
        cwd=REPO_ROOT,
        env=server_env(FIXTURES),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def _call(caller: ToolCaller, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Call in process: no negotiated revision, so the newest one's (unboxed) results."""
    result = anyio.run(caller.call, name, arguments)
    # Whatever came back must be writable by the transport (lone surrogates, NaN, ...).
    result.model_dump_json(by_alias=True, exclude_none=True)
    return result  # type: ignore[no-any-return]


def _error_text(result: types.CallToolResult) -> str:
    assert result.is_error, result
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    return result.content[0].text


def _nested(levels: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("tool", ["fail", "fail_async"])
@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("value", "ValueError: plain failure"),
        ("system_exit", "SystemExit: 3"),  # would end the server if it escaped
        ("keyboard_interrupt", "KeyboardInterrupt"),
        ("cancelled", "CancelledError"),  # the tool's own, not a cancellation of the call
        ("unprintable", "_Unprintable: <_Unprintable.__str__ failed>"),
        ("surrogate", "ValueError: bad name \\udcff"),  # escaped: UTF-8 cannot carry it raw
    ],
)
def test_whatever_a_tool_raises_is_an_error_result(tool: str, kind: str, expected: str) -> None:
    result = _call(ToolCaller(REGISTRY), tool, {"kind": kind})
    assert _error_text(result) == f"Tool {tool!r} raised {expected}"


def test_a_huge_exception_message_is_clipped() -> None:
    text = _error_text(_call(ToolCaller(REGISTRY), "fail", {"kind": "huge"}))
    kept = "x" * MAX_TOOL_MESSAGE
    assert text == f"Tool 'fail' raised ValueError: {kept}… (4,980,000 more characters)"


def test_endless_recursion_in_a_tool_is_an_error_result_and_the_caller_recovers() -> None:
    caller = ToolCaller(REGISTRY)
    text = _error_text(_call(caller, "recurse", {}))
    assert text == "Tool 'recurse' raised RecursionError: maximum recursion depth exceeded"
    assert _call(caller, "add", {"a": 1}).structured_content == 2


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("object", "Unable to serialize unknown type: <class 'object'>"),
        ("object_set", "Unable to serialize unknown type: <class 'object'>"),
        ("nan", "it contains NaN or Infinity, which JSON numbers cannot express"),
        ("generator", "it is an iterator (generator); return a list instead"),
        ("endless", "it is an iterator (count); return a list instead"),  # would never end
        ("cycle", "Circular reference detected (id repeated)"),
        ("deep", "Maximum serialization depth exceeded"),
        ("bytes", "'utf-8' codec can't decode byte 0xff in position 0: invalid utf-8"),
        (
            "surrogate",
            "a string in it holds the lone surrogate '\\udce9', which is not valid Unicode "
            "(a name decoded with errors='surrogateescape'?)",
        ),
    ],
)
def test_a_value_json_cannot_hold_is_an_error_result_naming_the_problem(
    kind: str, problem: str
) -> None:
    result = _call(ToolCaller(REGISTRY), "strange", {"kind": kind})
    assert _error_text(result) == f"Tool 'strange' {SERIALIZE}{problem}"


@pytest.mark.parametrize(
    ("tool", "problem"),
    [
        # Boxed under an outputSchema saying "number": NaN would reach the client as null.
        ("ratio", "it contains NaN or Infinity, which JSON numbers cannot express"),
        ("limits", "it contains NaN or Infinity, which JSON numbers cannot express"),
        ("handmade_nan", "it contains NaN or Infinity, which JSON numbers cannot express"),
        # A content block the tool built: the transport could not encode it.
        (
            "bad_text",
            "Error serializing to JSON: UnicodeEncodeError: 'utf-8' codec can't encode "
            "character '\\udce9' in position 3: surrogates not allowed",
        ),
    ],
)
def test_typed_and_prebuilt_results_are_checked_too(tool: str, problem: str) -> None:
    assert (
        _error_text(_call(ToolCaller(REGISTRY), tool, {})) == f"Tool {tool!r} {SERIALIZE}{problem}"
    )


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        # A recursive schema ($ref to itself) makes jsonschema descend level by level.
        ("count_nodes", {"tree": {"name": "root", "children": _nested(5_000, {"name": "x"})}}),
        # A type error whose message would quote the value: its repr recurses too deep.
        ("echo", {"text": _nested(10_000, 1)}),
        ("add", {"a": _nested(10_000, 1)}),
    ],
)
def test_arguments_nested_10_000_levels_deep_are_refused_and_the_caller_recovers(
    tool: str, arguments: dict[str, Any]
) -> None:
    caller = ToolCaller(REGISTRY)
    text = _error_text(_call(caller, tool, arguments))
    assert text == f"Invalid arguments for tool {tool!r}: nested too deeply to validate"
    assert _call(caller, "add", {"a": 2, "b": 3}).structured_content == 5


@pytest.mark.process
def test_a_huge_argument_is_served_and_a_huge_wrong_one_is_quoted_briefly() -> None:
    caller = ToolCaller(REGISTRY)
    text = "é" * 20_000_000
    assert _call(caller, "echo", {"text": text}).structured_content == text
    huge = "x" * 20_000_000
    error = _error_text(_call(caller, "add", {"a": huge}))
    # jsonschema's message quotes the whole value; the error keeps MAX_QUOTED_INPUT of it.
    message = f"{huge!r} is not of type 'integer'"
    clipped = f"{message[:MAX_QUOTED_INPUT]}… ({len(message) - MAX_QUOTED_INPUT:,} more characters)"
    assert error == f"Invalid arguments for tool 'add':\n- arguments.a: {clipped}"
    assert len(error) < 1_200


def _timed_call(caller: ToolCaller, name: str, arguments: dict[str, Any]) -> tuple[str, float]:
    started = time.monotonic()
    text = _error_text(_call(caller, name, arguments))
    return text, time.monotonic() - started


def _abandoned_calls_after_waiting(limit: float) -> int:
    """The abandoned calls left once none is, or after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while abandoned_calls() and time.monotonic() < deadline:
        time.sleep(0.05)
    return abandoned_calls()


def _wait_until_no_abandoned_calls(limit: float) -> None:
    assert _abandoned_calls_after_waiting(limit) == 0


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("sleep_sync", {"seconds": 1.5}),  # a blocked worker thread
        ("spin", {"seconds": 1.5}),  # a worker thread holding on to the GIL
        ("doze", {"seconds": 1.5}),  # a coroutine
    ],
)
def test_the_call_timeout_bounds_a_hanging_tool(tool: str, arguments: dict[str, Any]) -> None:
    _wait_until_no_abandoned_calls(5)
    caller = ToolCaller(REGISTRY, call_timeout=0.2)
    text, elapsed = _timed_call(caller, tool, arguments)
    assert text == f"Tool {tool!r} did not finish within 0.2 s"
    assert elapsed < 1.2
    # A thread cannot be stopped: it is counted until it ends on its own. A coroutine is
    # cancelled, and its task is gone once the event loop is (anyio.run returned).
    assert abandoned_calls() == (0 if tool == "doze" else 1)
    _wait_until_no_abandoned_calls(5)


def test_a_tool_that_takes_long_to_honour_a_cancel_does_not_hold_the_call() -> None:
    caller = ToolCaller(REGISTRY, call_timeout=0.2)

    async def body() -> tuple[str, float, int, int]:
        started = time.monotonic()
        result = await caller.call("linger", {"cleanup_seconds": 1.5})
        elapsed = time.monotonic() - started
        lingering = abandoned_calls()
        # its clean-up (~1.5 s) runs on this event loop: wait in a thread, leaving the loop free
        after = await anyio.to_thread.run_sync(_abandoned_calls_after_waiting, 5)
        return _error_text(result), elapsed, lingering, after

    text, elapsed, lingering, after = anyio.run(body)
    assert text == "Tool 'linger' did not finish within 0.2 s"
    assert elapsed < 1.2  # not the 1.7 s the tool takes to give in
    assert (lingering, after) == (1, 0)


@pytest.mark.parametrize("timeout", [None, 30.0])
@pytest.mark.parametrize("tool", ["sleep_sync", "doze"])
def test_cancelling_the_caller_cancels_the_call_and_is_not_an_error_result(
    tool: str, timeout: float | None
) -> None:
    caller = ToolCaller(REGISTRY, call_timeout=timeout)

    async def body() -> tuple[bool, float]:
        started = time.monotonic()
        with anyio.move_on_after(0.2) as scope:
            await caller.call(tool, {"seconds": 1.0})
        return scope.cancelled_caught, time.monotonic() - started

    cancelled, elapsed = anyio.run(body)
    assert cancelled
    assert elapsed < 0.9
    _wait_until_no_abandoned_calls(5)
