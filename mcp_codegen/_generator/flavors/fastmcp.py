"""Flavor "fastmcp": tools exactly as ``fastmcp.FastMCP`` (4.x) lists them."""

from __future__ import annotations

from typing import Any

from mcp_codegen._generator.flavors.build_loop import build_with
from mcp_codegen._generator.inspection.resolve import ResolvedTool
from mcp_codegen._generator.model import JSON, ScannedModule
from mcp_codegen._shared.diagnostics import Diagnostic

WRAP_MARKER = "x-fastmcp-wrap-result"
BOX_FIELD = "result"
#: fastmcp sends this ``_meta`` on every result it boxed, so its client can unwrap it.
WRAPPED_RESULT_META: dict[str, JSON] = {"fastmcp": {"wrap_result": True}}


def new_server() -> tuple[Any, str]:
    try:
        from fastmcp import FastMCP  # an optional framework, in the worker only
    except ImportError:
        raise ImportError(
            'flavor "fastmcp" needs the fastmcp package (`pip install fastmcp`) in the '
            "environment that runs mcp-codegen"
        ) from None
    return FastMCP("mcp-codegen"), "fastmcp"


def result_shape(
    server: Any, name: str, entry: dict[str, JSON]
) -> tuple[str | None, dict[str, JSON]]:
    """fastmcp marks a boxed output schema, and the results of such a tool carry a ``_meta``."""
    schema = entry.get("outputSchema")
    if isinstance(schema, dict) and schema.get(WRAP_MARKER) is True:
        return BOX_FIELD, {"result_meta": WRAPPED_RESULT_META}
    return None, {}


def build(
    module: ScannedModule, resolved: list[ResolvedTool], injected: frozenset[str]
) -> tuple[dict[str, dict[str, JSON]], list[Diagnostic]]:
    server, framework = new_server()
    return build_with(server, framework, result_shape, module, resolved, injected)
