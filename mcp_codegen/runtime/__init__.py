"""Serve generated tool schemas: load them with the standard library only, serve them with ``mcp``.

``load_tools`` reads a generated output (docs/module-format.md) into a read-only ``ToolRegistry``.
Importing this package imports neither ``mcp`` nor pydantic, jsonschema, libcst or jinja2; the
MCP server lives in ``mcp_codegen.runtime._serve.server`` and is imported only when serving.

Runs in: server. (The default for every module of this package.)
"""

from __future__ import annotations

from mcp_codegen._shared.format import GeneratedModuleError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mcp_codegen.decorators import tool
    from mcp_codegen.runtime._hook.entries import GeneratedSchemaError, StaleSchemaWarning
    from mcp_codegen.runtime._hook.install import use_generated
    from mcp_codegen.runtime._load.registry import (
        SUPPORTED_FORMAT,
        ToolBinding,
        ToolRegistry,
        load_tools,
    )
    from mcp_codegen.runtime._serve.server import main

__all__ = [
    "SUPPORTED_FORMAT",
    "GeneratedModuleError",
    "GeneratedSchemaError",
    "StaleSchemaWarning",
    "ToolBinding",
    "ToolRegistry",
    "load_tools",
    "main",
    "tool",
    "use_generated",
]


_LOADING = frozenset({"SUPPORTED_FORMAT", "ToolBinding", "ToolRegistry", "load_tools"})


def __getattr__(name: str) -> object:
    # Lazy: `tool` pulls in typing, `main` pulls in the MCP SDK; loading needs neither. The
    # loader itself (~5 ms) is not needed before `mcp-codegen run`'s stored listing is sent.
    if name in _LOADING:
        # lazy: the loader (~5 ms) is not needed before `run`'s stored listing is sent
        from mcp_codegen.runtime._load import registry

        return getattr(registry, name)
    if name == "tool":
        # lazy: the decorator module imports typing (~10 ms), which loading does not need
        from mcp_codegen.decorators import tool

        return tool
    if name == "main":
        # lazy: only serving needs the server module
        from mcp_codegen.runtime._serve.server import main

        return main
    if name == "use_generated":  # the framework hook (README, "Keep your server")
        # lazy: only a server that keeps its framework needs the hook
        from mcp_codegen.runtime._hook.install import use_generated

        return use_generated
    if name in ("GeneratedSchemaError", "StaleSchemaWarning"):  # the hook's refusal and warning
        # lazy: the hook's index (~3 ms), as use_generated
        from mcp_codegen.runtime._hook import entries

        return getattr(entries, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
