"""``use_generated``: keep your MCPServer / FastMCP server, list its tools from generated modules.

Importing this module imports the standard library only. ``use_generated`` patches each
framework when that framework's module is imported (a ``sys.meta_path`` finder wraps the
loader of the module that defines the class) or at once when it is already imported, so a
framework the application does not use is never imported. See docs/hook.md.
"""

from __future__ import annotations

import sys

from codegen.runtime._hook.entries import GeneratedIndex, GeneratedSchemaError, StaleSchemaWarning

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

__all__ = [
    "GeneratedSchemaError",
    "StaleSchemaWarning",
    "active",
    "serve_in_front",
    "use_generated",
]

_ACTIVE: GeneratedIndex | None = None


def use_generated(
    path: str | os.PathLike[str] = "generated", *, strict: bool = False
) -> GeneratedIndex:
    """Register tools of the official SDK 1.x ``FastMCP``, SDK 2.x ``MCPServer`` and
    ``fastmcp.FastMCP`` from the generated modules in ``path``, in this whole process.

    Call it before the tool decorators run. A function with a current generated entry is
    listed from it with no inference; its framework objects are built on its first call. A
    function without one (missing, or its source changed since generation) gets one
    ``StaleSchemaWarning`` and is inferred as usual; with ``strict=True`` it raises
    ``GeneratedSchemaError`` instead. Generated modules of flavor ``"clean"`` are refused. The
    manifest is checked here; the modules are loaded at the first registration.
    """
    global _ACTIVE
    index = GeneratedIndex(path, strict=strict)
    _ACTIVE = index
    for name in _PATCHES:
        module = sys.modules.get(name)
        if module is not None:
            _apply(name, module)
    if not any(isinstance(finder, _PatchOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())
    return index


def serve_in_front(
    path: str,
    target: str,
    *,
    strict: bool,
    resolve: Callable[[], Any],
    start: Callable[[Any], int],
) -> int | None:
    """Serve stdio with the fast path in front of the server ``target`` names (``mcp-codegen
    run``); ``None`` when the tree has no usable record for it (run it the usual way).

    ``resolve()`` imports the target (on a background thread, after ``use_generated``) and
    ``start(obj)`` runs it (in this thread, once the fast path hands over). With ``strict``, a
    generated module whose source changed refuses the start before anything is answered
    (``GeneratedSchemaError``).
    """
    import os

    from codegen.runtime._load.registry import load_tools
    from codegen.runtime._stdio import front

    directory = os.path.abspath(path)
    record = front.server_record(directory, target)
    if record is None:
        return None
    if strict:
        try:
            front.check_sources(directory)
        except front.FrontRefused as exc:
            raise GeneratedSchemaError(str(exc)) from None
    registry = load_tools(directory)
    listed = frozenset(record["tools"] or ())
    regenerate = _regenerate_command(directory)

    def load() -> tuple[Callable[[], int], list[str]]:
        front.install_handover()
        index = use_generated(directory, strict=strict)
        obj = resolve()
        stale = listed & (index.warned | _unregistered(obj, listed))
        return (lambda: start(obj)), sorted(stale)

    return front.serve(registry, record, load=load, regenerate=regenerate)


def _unregistered(obj: Any, names: frozenset[str]) -> frozenset[str]:
    """Listed names an SDK 2.x ``MCPServer`` does not register (others: not checked here)."""
    manager = getattr(obj, "_tool_manager", None)
    if manager is None or not hasattr(manager, "list_tools"):
        return frozenset()
    return names - {tool.name for tool in manager.list_tools()}


def _regenerate_command(directory: str) -> str:
    import os

    from codegen.shared.format import MANIFEST, regenerate_command

    with open(os.path.join(directory, MANIFEST), "rb") as handle:
        return regenerate_command(handle.read(1024))


def active() -> GeneratedIndex | None:
    """The index ``use_generated`` installed in this process, if any."""
    return _ACTIVE


def _patch_mcpserver(module: ModuleType) -> None:
    from mcp.server.mcpserver.tools.base import Tool

    from codegen.runtime._hook.frameworks import patch_sdk

    patch_sdk(module.MCPServer, Tool, active)


def _patch_sdk1(module: ModuleType) -> None:
    from mcp.server.fastmcp.tools.base import Tool

    from codegen.runtime._hook.frameworks import patch_sdk

    patch_sdk(module.FastMCP, Tool, active)


def _patch_fastmcp(module: ModuleType) -> None:
    from codegen.runtime._hook.frameworks import patch_fastmcp

    patch_fastmcp(module.ToolDecoratorMixin, active)


#: the module that defines the class whose add_tool is patched -> the patch
_PATCHES: dict[str, Callable[[ModuleType], None]] = {
    "mcp.server.mcpserver.server": _patch_mcpserver,
    "mcp.server.fastmcp.server": _patch_sdk1,
    "fastmcp.server.providers.local_provider.decorators.tools": _patch_fastmcp,
}


def _apply(name: str, module: ModuleType) -> None:
    _PATCHES[name](module)


class _PatchOnImport:
    """A ``sys.meta_path`` finder that patches a framework module right after it executes."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in _PATCHES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, fullname)
                return spec
        return None


class _PatchingLoader:
    """Delegates to the real loader; patches the module once it has executed."""

    def __init__(self, loader: Any, name: str) -> None:
        self._loader = loader
        self._name = name

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        if _ACTIVE is not None:
            _apply(self._name, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
