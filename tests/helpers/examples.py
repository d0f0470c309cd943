"""The bundled bookshop example's tools, and how each framework's decorator would register them."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

BOOKSHOP_MODULES = ("catalog", "members", "orders", "reports")


def example_tools() -> list[tuple[Callable[..., Any], dict[str, Any]]]:
    """Every ``@tool`` function of the bookshop example with its decorator options, in order."""
    tools = []
    for name in BOOKSHOP_MODULES:
        module = importlib.import_module(f"examples.bookshop.{name}")
        for value in vars(module).values():
            options = getattr(value, "__mcp_codegen_tool__", None)
            if options is not None and value.__module__ == module.__name__:
                tools.append((value, dict(options)))
    return tools


def framework_decorator(options: dict[str, Any], flavor: str) -> dict[str, Any]:
    """The keyword arguments of ``server.tool(...)`` (MCP SDK or FastMCP) that register a tool
    the way its ``@tool`` options describe it."""
    from mcp.types import Icon, ToolAnnotations

    from mcp_codegen._generator.scan.files import SHORTHAND_ANNOTATIONS

    arguments: dict[str, Any] = {
        key: options[key] for key in ("name", "title", "description", "meta") if key in options
    }
    annotations = dict(options.get("annotations") or {})
    annotations.update(
        {SHORTHAND_ANNOTATIONS[k]: options[k] for k in SHORTHAND_ANNOTATIONS if k in options}
    )
    if annotations:
        arguments["annotations"] = ToolAnnotations.model_validate(annotations)
    if "icons" in options:
        arguments["icons"] = [Icon.model_validate(icon) for icon in options["icons"]]
    if "output_schema" in options and flavor == "fastmcp":
        arguments["output_schema"] = options["output_schema"]
    return arguments
