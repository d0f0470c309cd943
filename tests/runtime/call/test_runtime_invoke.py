"""tools/call machinery in process: real tool functions, real jsonschema and pydantic, no server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_codegen.runtime import ToolRegistry, load_tools
from tests.runtime.runtime_support import FIXTURE_GENERATED, FIXTURES, REPO_ROOT

sys.path.insert(0, str(FIXTURES))  # the tool functions' package
from runtime_fixture_tools.edge import Clock  # type: ignore[import-not-found]

from mcp_codegen.runtime._call.invoke import ToolCaller

OBJECT = {"type": "object"}


def _tool(
    name: str,
    input_schema: dict[str, Any],
    *,
    output_schema: dict[str, Any] | None = None,
    box: str | None = None,
    function: str | None = None,
) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "inputSchema": input_schema}
    if output_schema is not None:
        tool["outputSchema"] = output_schema
    tool["x-codegen"] = {
        "function": function or f"runtime_fixture_tools.edge:{name}",
        "box": {"field": box} if box else None,
        "line": 1,
        "column": 1,
    }
    return tool


def _registry(directory: Path, *tools: dict[str, Any]) -> ToolRegistry:
    directory.mkdir()
    (directory / "__init__.py").write_text(
        'FORMAT = 1\nSCHEMA_SET_VERSION = "0.0.1"\nMODULES = ("edge.py",)\n'
        f"TOOL_COUNT = {len(tools)}\n"
    )
    (directory / "edge.py").write_text(f"FORMAT = 1\nTOOLS = {tools!r}\n")
    return load_tools(directory)


def _call(caller: ToolCaller, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = anyio.run(caller.call, name, arguments)
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")  # type: ignore[no-any-return]


def _boxed(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"result": schema}, "required": ["result"]}


def _props(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


@pytest.fixture
def caller(tmp_path: Path) -> ToolCaller:
    integer = {"type": "integer"}
    registry = _registry(
        tmp_path / "out",
        _tool(
            "positional", _props(a=integer, b=integer), output_schema=_boxed(integer), box="result"
        ),
        _tool("variadic", {"type": "object", "additionalProperties": integer}),
        _tool("two_positional", _props(a=integer, b=integer), box="result"),
        _tool("variadic_with_clock", {"type": "object", "additionalProperties": integer}),
        _tool("field_default", _props(depth={"type": "integer", "default": 2}), box="result"),
        _tool("aliased", _props(**{"from": {"type": "string"}, "to": {"type": "string"}})),
        _tool("injected", _props(x=integer)),
        _tool("optional_injected", OBJECT),
        _tool("needs_unbuildable", OBJECT),
        _tool("with_context", OBJECT),
        _tool("own_timeout", OBJECT),
        _tool("list_for_object_schema", OBJECT, output_schema=_props(items=OBJECT)),
        _tool("returns_awaitable", OBJECT, box="result"),
        _tool("untyped", _props(value={})),
        _tool("missing", OBJECT, function="runtime_fixture_tools.nowhere:missing"),
        _tool(
            "broken_schema",
            {"type": "object", "properties": {"a": {"type": 12}}},
            function="runtime_fixture_tools.edge:positional",
        ),
    )
    return ToolCaller(registry, call_timeout=5, dependencies={})


def _structured(result: dict[str, Any]) -> Any:
    assert result["isError"] is False, result
    return result.get("structuredContent")


def _error_text(result: dict[str, Any]) -> str:
    assert result["isError"] is True, result
    return result["content"][0]["text"]  # type: ignore[no-any-return]


def test_parameter_kinds_reach_the_function(caller: ToolCaller) -> None:
    assert _structured(_call(caller, "positional", {"a": 4, "b": 2})) == {"result": 42}
    assert _structured(_call(caller, "variadic", {"x": 1, "y": 5})) == {"x": 2, "y": 10}
    assert _call(caller, "aliased", {"from": "there"})["content"][0]["text"] == "there->here"
    assert _structured(_call(caller, "untyped", {"value": [1, "a"]})) == {"seen": [1, "a"]}
    assert _structured(_call(caller, "returns_awaitable", {})) == {"result": 7}
    # A skipped positional-only default keeps the later positional in its place.
    assert _structured(_call(caller, "two_positional", {"b": 5})) == {"result": 15}
    # **kwargs take extra keys, but a client cannot replace an injected parameter with one.
    assert _structured(_call(caller, "variadic_with_clock", {"clock": 5, "x": 1})) == {
        "clock": "12:00",
        "x": 1,
    }


def test_field_default_applies_and_its_constraints_convert(caller: ToolCaller) -> None:
    assert _structured(_call(caller, "field_default", {})) == {"result": 2}
    assert _structured(_call(caller, "field_default", {"depth": 5})) == {"result": 5}
    # The schema does not say le=9; the Field does, so pydantic's converter rejects 12.
    message = _error_text(_call(caller, "field_default", {"depth": 12}))
    assert "arguments.depth: Input should be less than or equal to 9" in message


def test_injected_parameters(caller: ToolCaller, tmp_path: Path) -> None:
    assert _call(caller, "injected", {"x": 3})["content"][0]["text"] == "3 at 12:00"
    assert _call(caller, "optional_injected", {})["content"][0]["text"] == "no clock"
    assert _call(caller, "with_context", {})["content"][0]["text"] == "Context"
    message = _error_text(_call(caller, "needs_unbuildable", {}))
    assert "cannot provide parameter 'thing' (Unbuildable)" in message

    registry = load_tools(tmp_path / "out")
    custom = ToolCaller(registry, dependencies={Clock: lambda: Clock("09:30")})
    assert _call(custom, "injected", {"x": 1})["content"][0]["text"] == "1 at 09:30"


def test_failures_are_tool_errors_with_their_own_messages(caller: ToolCaller) -> None:
    # A TimeoutError raised by the tool is the tool's, not the per-call timeout.
    assert _error_text(_call(caller, "own_timeout", {})) == (
        "Tool 'own_timeout' raised TimeoutError: upstream was slow"
    )
    assert _error_text(_call(caller, "list_for_object_schema", {})) == (
        "Tool 'list_for_object_schema' returned list, but its outputSchema describes a JSON "
        "object and the tool is not boxed; fix the tool or its return annotation"
    )
    missing = _error_text(_call(caller, "missing", {}))
    assert "cannot import runtime_fixture_tools.nowhere:missing: ModuleNotFoundError" in missing
    broken = _error_text(_call(caller, "broken_schema", {}))
    assert broken.startswith("Tool 'broken_schema': the generated inputSchema is not a valid")
    # Earlier failures leave the caller usable.
    assert _structured(_call(caller, "positional", {"a": 1})) == {"result": 10}
    with pytest.raises(KeyError):
        anyio.run(caller.call, "no_such_tool", {})


def test_strict_output_checks_passthrough_results_too(tmp_path: Path) -> None:
    registry = load_tools(FIXTURE_GENERATED)
    strict = ToolCaller(registry, strict_output=True)
    lenient = ToolCaller(registry)

    assert _structured(_call(lenient, "mislabeled", {})) == {"result": "not an int"}
    assert "'not an int' is not of type 'integer'" in _error_text(_call(strict, "mislabeled", {}))
    # No outputSchema: strict mode has nothing to check.
    assert _structured(_call(strict, "handmade", {"flag": False})) == {"flag": False}


@pytest.mark.process
def test_server_defers_jsonschema_until_the_first_call() -> None:
    script = f"""
import sys, anyio
from mcp import types
from mcp_codegen.runtime import load_tools
from mcp_codegen.runtime._serve.server import build_server
server = build_server(load_tools({str(FIXTURE_GENERATED)!r}))
listed = anyio.run(server.get_request_handler("tools/list").handler, None, None)
assert len(listed["tools"]) == 14
assert "jsonschema" not in sys.modules and "mcp_codegen.runtime._call.invoke" not in sys.modules
sys.path.insert(0, {str(FIXTURES)!r})
params = types.CallToolRequestParams(name="add", arguments={{"a": 1}})
result = anyio.run(server.get_request_handler("tools/call").handler, None, params)
assert result.structured_content == {{"result": 2}}, result
assert "jsonschema" in sys.modules
print("ok")
"""
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": ""},
        check=False,
    )
    assert completed.stdout.strip() == "ok", completed.stderr
