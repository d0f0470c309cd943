"""Flavors: whose rules decide the tools/list a build produces.

- ``"clean"`` (default): mcp-codegen's own rules (``mcp_codegen._generator.schema.describe`` + ``mcp_codegen._shared.schema_transforms``).
- ``"mcp"``: what the official SDK's server serves for the same source (``MCPServer`` in 2.x,
  ``FastMCP`` in 1.x: whichever is installed where the generator runs).
- ``"fastmcp"``: what ``fastmcp.FastMCP`` serves.

The two framework flavors run in the worker process: each tool is registered on a fresh server of
that framework with the decorator options read from source, and its ``tools/list`` answer is
recorded verbatim (``mcp_codegen._registration.served``). See docs/flavors.md.

Runs in: worker. (The default for every module of this package.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp_codegen._generator.inspection.resolve import ResolvedTool
    from mcp_codegen._generator.model import JSON, ScannedModule
    from mcp_codegen._shared.diagnostics import Diagnostic


def build_module_tools(
    flavor: str,
    module: ScannedModule,
    resolved: list[ResolvedTool],
    injected: frozenset[str],
) -> tuple[dict[str, dict[str, JSON]], list[Diagnostic]]:
    """Tool name -> ``{"wire", "box", PRIVATE_KEY}`` for one module, and its diagnostics."""
    if flavor == "mcp":
        # only the configured flavor's build (and through it its framework), in the worker
        from mcp_codegen._generator.flavors.mcp import build
    elif flavor == "fastmcp":
        from mcp_codegen._generator.flavors.fastmcp import build  # as above
    else:
        raise ValueError(f"not a framework flavor: {flavor!r}")
    return build(module, resolved, injected)
