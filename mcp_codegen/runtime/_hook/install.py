"""``use_generated``: keep your MCPServer / FastMCP server, list its tools from generated modules.

Importing this module imports the standard library only. ``use_generated`` patches each
framework when that framework's module is imported (a ``sys.meta_path`` finder wraps the
loader of the module that defines the class) or at once when it is already imported, so a
framework the application does not use is never imported. See docs/hook.md.
"""

from __future__ import annotations

import os
import sys

from mcp_codegen._shared.format import GeneratedModuleError, tree_regenerate_command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

    from mcp_codegen.runtime._hook.entries import (
        GeneratedIndex,
        GeneratedSchemaError,
        StaleSchemaWarning,
    )
    from mcp_codegen.runtime._stdio.fastpath import Opening

__all__ = [
    "GeneratedSchemaError",
    "StaleSchemaWarning",
    "active",
    "fast_path_serves",
    "serve_in_front",
    "use_generated",
]

_ACTIVE: GeneratedIndex | None = None
#: Imported at first use: ``mcp-codegen run``'s front imports this module before its first
#: answer, and the index (with the reader and the import patcher) is needed only when the
#: server loads, on its background thread (~3 ms of imports; docs/fastpath-run.md).
_LAZY = frozenset({"GeneratedIndex", "GeneratedSchemaError", "StaleSchemaWarning"})


def __getattr__(name: str) -> object:
    if name in _LAZY:
        # the index and its errors (~3 ms): when the server loads, not before the first answer
        from mcp_codegen.runtime._hook import entries

        return getattr(entries, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def use_generated(
    path: str | os.PathLike[str] | None = None, *, strict: bool = False
) -> GeneratedIndex:
    """Register tools of the official SDK 1.x ``FastMCP``, SDK 2.x ``MCPServer`` and
    ``fastmcp.FastMCP`` from the generated modules in ``path``, in this whole process.

    ``path`` omitted is the ``output`` of the project's configuration (the nearest
    ``[tool.mcp-codegen]`` above the calling module's file); a relative ``path`` is relative to
    that configuration's directory, not to the working directory (MCP clients start servers
    from anywhere). Without a configuration there, both are relative to the working directory.

    Call it before the tool decorators run. A function with a current generated entry is
    listed from it with no inference; its framework objects are built on its first call. A
    function without one (missing, or its source changed since generation) gets one
    ``StaleSchemaWarning`` and is inferred as usual; with ``strict=True`` it raises
    ``GeneratedSchemaError`` instead. Generated modules of flavor ``"clean"`` are refused. The
    manifest is checked here; the modules are loaded at the first registration.
    """
    # the hook's index (~3 ms): when use_generated is called, not at import
    from mcp_codegen._registration.import_patch import patch_now_or_on_import
    from mcp_codegen.runtime._hook.entries import GeneratedIndex

    global _ACTIVE
    if path is None or not os.path.isabs(path):
        path = _generated_beside(path, sys._getframe(1).f_globals.get("__file__"))
    index = GeneratedIndex(path, strict=strict)
    _ACTIVE = index
    patch_now_or_on_import(_PATCHES)
    return index


def _generated_beside(path: str | os.PathLike[str] | None, caller: str | None) -> str:
    """``use_generated``'s directory: ``path`` (or the ``output``) of the configuration above
    the ``caller`` file, else relative to the working directory."""
    # only for a relative path: the configuration it is relative to
    from mcp_codegen._shared import project_config as project

    found = project.caller_config_file(caller)
    if found is None:
        return os.path.abspath(project.DEFAULT_OUTPUT if path is None else path)
    if path is None:
        return project.runtime_settings(found).output
    return os.path.normpath(os.path.join(os.path.dirname(found), path))


def serve_in_front(
    path: str,
    target: str,
    *,
    strict: bool,
    resolve: Callable[[], Any],
    start: Callable[[Any], int],
) -> int | None:
    """Serve stdio with the fast path in front of the server ``target`` names (``mcp-codegen
    run``); ``None`` when it cannot serve it (run it the usual way; the front said why on
    stderr) or ``MCP_CODEGEN_NO_FAST_PATH`` turns it off.

    ``resolve()`` imports the target (on a background thread, after ``use_generated``) and
    ``start(obj)`` runs it (in this thread, once the fast path hands over). Before anything is
    answered, the front checks the target's module is found and the project modules it imported
    at generate time are unchanged (``front.checked_record``); a generated tree that cannot be
    read, and under ``strict`` a stale one, refuses the start (``GeneratedSchemaError``).
    """
    # the serving start-up and the fast path: only for `run`
    from mcp_codegen.runtime._serve import startup

    return startup.serve_stdio(
        no_fast_path=False,  # MCP_CODEGEN_NO_FAST_PATH still turns it off: the server runs plain
        opening=lambda: _front_opening(os.path.abspath(path), target, strict, resolve, start),
        plain=lambda: None,
    )


def _front_opening(
    directory: str,
    target: str,
    strict: bool,
    resolve: Callable[[], Any],
    start: Callable[[Any], int],
) -> Opening | None:
    """``serve_in_front``'s opening, once the front's checks hold (``None``: run it plain)."""
    from mcp_codegen.runtime._stdio import front  # the front (~3 ms): only for `run`

    try:
        record = front.checked_record(directory, target, strict=strict)
        if record is None:
            return None
        listings = front.Listings(directory, record)
    except front.FrontRefused as exc:
        # the index and its error classes (~3 ms): when the server loads, or on a refusal
        from mcp_codegen.runtime._hook.entries import GeneratedSchemaError

        raise GeneratedSchemaError(str(exc)) from None
    # Stored answers need no registry (docs/fastpath-run.md: "How the listing is stored").
    registry = None
    if listings.stored is None:
        # the loader (~5 ms): only on a miss of the stored listing
        from mcp_codegen.runtime._load.registry import load_composed

        try:
            registry = load_composed(directory)
        except GeneratedModuleError as exc:  # a generated module that is not one any more
            # the index and its error classes (~3 ms): when the server loads, or on a refusal
            from mcp_codegen.runtime._hook.entries import GeneratedSchemaError

            raise GeneratedSchemaError(
                f"refusing to start: {exc}; run `{tree_regenerate_command(directory)}`"
            ) from None
    listed = frozenset(record["tools"] or ())
    regenerate = tree_regenerate_command(directory)

    def load() -> tuple[Callable[[], int], list[str]]:
        front.install_handover()
        index = use_generated(directory, strict=strict)
        obj = resolve()
        changed = listed & index.warned
        if record["tools"] is not None:
            # the index and its error classes (~3 ms): when the server loads, or on a refusal
            from mcp_codegen.runtime._hook.entries import registered_tools

            registered = registered_tools(obj)
            if registered is not None:  # listed but not registered, registered but not listed
                changed |= listed ^ registered
        return (lambda: start(obj)), sorted(changed)

    return front.opening(registry, record, listings, load=load, regenerate=regenerate)


def fast_path_serves(path: str, target: str) -> bool:
    """Whether ``mcp-codegen run --generated PATH TARGET`` answers the opening of a stdio session
    from the records (the tree records ``target``'s initialize answer, and the installed
    ``mcp_types`` is the release the fast path's wire shapes came from), in this interpreter."""
    # the front (~3 ms): only for `mcp-codegen run`
    from mcp_codegen.runtime._stdio import front

    return front.server_record(os.path.abspath(path), target) is not None


def active() -> GeneratedIndex | None:
    """The index ``use_generated`` installed in this process, if any."""
    return _ACTIVE


def _patch_mcpserver(module: ModuleType) -> None:
    # the SDK: patched when the application imports it
    from mcp.server.mcpserver.tools.base import Tool

    from mcp_codegen.runtime._hook.frameworks import patch_sdk

    patch_sdk(module.MCPServer, Tool, active)


def _patch_sdk1(module: ModuleType) -> None:
    # the SDK: patched when the application imports it
    from mcp.server.fastmcp.tools.base import Tool

    from mcp_codegen.runtime._hook.frameworks import patch_sdk

    patch_sdk(module.FastMCP, Tool, active)


def _patch_fastmcp(module: ModuleType) -> None:
    # patched when the application imports the framework
    from mcp_codegen.runtime._hook.frameworks import patch_fastmcp

    patch_fastmcp(module.ToolDecoratorMixin, active)


#: the module that defines the class whose add_tool is patched -> the patch
_FRAMEWORK_PATCHES: dict[str, Callable[[ModuleType], None]] = {
    "mcp.server.mcpserver.server": _patch_mcpserver,
    "mcp.server.fastmcp.server": _patch_sdk1,
    "fastmcp.server.providers.local_provider.decorators.tools": _patch_fastmcp,
}


def _apply(name: str, module: ModuleType) -> None:
    if _ACTIVE is not None:
        _FRAMEWORK_PATCHES[name](module)


_PATCHES = dict.fromkeys(_FRAMEWORK_PATCHES, _apply)
