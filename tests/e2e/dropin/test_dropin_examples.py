"""Every example tool (examples/bookshop) under flavors "mcp" and "fastmcp", against the frameworks.

The bookshop is written with mcp-codegen's own ``@tool``, so the oracle registers each function
on a real ``MCPServer`` / ``fastmcp.FastMCP`` with the options the decorator recorded at run time
(``__mcp_codegen_tool__``), translated to the framework's decorator arguments. Three rules of the
flavors (docs/flavors.md) are applied to the oracle too, because no framework can express them:

- parameters of configured injected types (``Settings``, ``ConfigPaths``, and in the fastmcp
  flavor the SDK's ``Context``) are left out of the signature the framework sees;
- ``input_schema=`` / ``output_schema=`` overrides replace the framework's schema (fastmcp takes
  ``output_schema=`` natively); a tool with an input override shows the framework no parameters;
- ``box_field=`` renames the framework's ``result`` box.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

import fastmcp  # noqa: F401 - a test dependency: missing must fail, never skip
import mcp.server.mcpserver  # noqa: F401
import pytest

from tests.helpers.corpus import (
    BOOKSHOP,
    PROCESS_BUILDS,
    fastmcp_client_tools,
    sdk_client_tools,
    tool_differences,
)
from tests.helpers.examples import example_tools, framework_decorator
from tests.helpers.json_text import unordered_json

pytestmark = pytest.mark.process


def _hidden(function: Callable[..., Any], flavor: str) -> list[str]:
    from mcp.server.mcpserver import Context

    from examples.bookshop.deps import ConfigPaths, Settings

    hidden_types: tuple[type, ...] = (Settings, ConfigPaths)
    if flavor == "fastmcp":
        hidden_types += (Context,)  # fastmcp does not know the SDK's Context
    hints = typing.get_type_hints(function)
    return [name for name, hint in hints.items() if name != "return" and hint in hidden_types]


def _shown(function: Callable[..., Any], hidden: list[str]) -> Callable[..., Any]:
    """``function`` with some parameters removed from the signature a framework reads."""
    if not hidden:
        return function
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function, include_extras=True)
    kept = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name not in hidden
    ]

    def shown(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("only listed, never called")

    shown.__name__ = function.__name__
    shown.__qualname__ = function.__qualname__
    shown.__doc__ = function.__doc__
    shown.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=kept, return_annotation=hints.get("return", signature.return_annotation)
    )
    shown.__annotations__ = {p.name: p.annotation for p in kept} | (
        {"return": hints["return"]} if "return" in hints else {}
    )
    return shown


def _oracle(flavor: str) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """What the real framework lists for the bookshop, and each tool's codegen options."""
    if flavor == "mcp":
        from mcp.server.mcpserver import MCPServer

        server: Any = MCPServer("bookshop")
    else:
        import fastmcp

        server = fastmcp.FastMCP("bookshop")
    options_by_name = {}
    for function, options in example_tools():
        arguments = framework_decorator(options, flavor)
        hidden = _hidden(function, flavor)
        if "input_schema" in options:
            hidden = list(inspect.signature(function).parameters)
        server.tool(**arguments)(_shown(function, hidden))
        options_by_name[options.get("name", function.__name__)] = options
    listed = sdk_client_tools(server) if flavor == "mcp" else fastmcp_client_tools(server)
    return listed, options_by_name


def _expected(theirs: dict[str, Any], options: dict[str, Any], flavor: str) -> dict[str, Any]:
    expected = dict(theirs)
    if "input_schema" in options:
        expected["inputSchema"] = options["input_schema"]
    if "output_schema" in options and flavor == "mcp":
        expected["outputSchema"] = options["output_schema"]
    if "box_field" in options:
        schema = dict(expected["outputSchema"])
        field = options["box_field"]
        schema["properties"] = {field: schema["properties"]["result"]}
        schema["required"] = [field]
        expected["outputSchema"] = schema
    return expected


@pytest.mark.parametrize("flavor", ["mcp", "fastmcp"])
def test_every_example_tool_equals_the_framework(flavor: str) -> None:
    built, _ = PROCESS_BUILDS.get(flavor, [BOOKSHOP])
    theirs, options = _oracle(flavor)
    assert sorted(built["wire"]) == sorted(theirs)
    assert len(theirs) == 21
    wrong = {}
    for name, listed in theirs.items():
        expected = _expected(listed, options[name], flavor)
        if unordered_json(expected) != unordered_json(built["wire"][name]):
            wrong[name] = tool_differences(expected, built["wire"][name])
    assert not wrong, "\n".join(wrong.values())
    generated = built["generated"]
    assert generated["count_members"]["x-codegen"]["box"] == {"field": "total"}
    assert generated["inventory_snapshot"]["x-codegen"]["box"] is None
