"""Framework patches of ``use_generated``: register a tool from its generated entry, lazily.

Imported only once a framework module is (``mcp_codegen.runtime._hook.install`` arranges that), so it may
import the framework it patches. Each framework keeps its own registry and its own call path:

- SDK 2.x ``MCPServer`` and SDK 1.x ``FastMCP``: ``add_tool`` (the ``tool`` decorator calls it)
  stores a ``LazySdkTool`` in the tool manager. Listing reads the generated schemas; the first
  call builds the framework's own ``Tool.from_function(...)`` with the same arguments and every
  call runs through it, so validation, conversion and errors are the framework's.
- fastmcp 4.x: ``LocalProvider.add_tool`` (``FastMCP.tool`` and ``FastMCP.add_tool`` reach it)
  is handed a ``FunctionTool`` whose inferred fields (``parameters``, ``output_schema``,
  ``description``) come from the entry; the inferred call-time fields (the transformed ``fn``
  and ``return_type``) are taken from ``FunctionTool.from_function`` on the first call
  (``_hook_fastmcp_tool``). fastmcp's own per-registration walks over every component read an
  index instead (``_hook_fastmcp_index``), and its decorator reads a plain function's parameter
  names without ``inspect.signature`` (``_hook_fastmcp_decorator``). A tool the application
  builds itself with ``FunctionTool.from_function`` takes its schemas from its entry too
  (``fastmcp_call_form``).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from mcp_codegen.runtime._hook import own
from mcp_codegen.runtime._hook.entries import GeneratedIndex

_MARK = "__codegen_use_generated__"


class LazySdkTool:
    """Stands in the official SDK's tool manager for a ``Tool`` until the tool is first used."""

    def __init__(
        self, tool_class: type, fn: Any, arguments: dict[str, Any], entry: dict[str, Any]
    ) -> None:
        self._tool_class = tool_class
        self._arguments = arguments
        self._real: Any = None
        self.fn = fn
        self.name: str = entry["name"]
        self.title = arguments.get("title")
        self.description = entry.get("description") or ""
        self.parameters: dict[str, Any] = entry["inputSchema"]
        self.output_schema: dict[str, Any] | None = entry.get("outputSchema")
        self.annotations = arguments.get("annotations")
        self.icons = arguments.get("icons")
        self.meta = arguments.get("meta")

    def materialize(self) -> Any:
        """The framework's own ``Tool`` for this function, built once."""
        if self._real is None:
            self._real = self._tool_class.from_function(self.fn, **self._arguments)
        return self._real

    async def run(self, *args: Any, **kwargs: Any) -> Any:
        return await self.materialize().run(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # Anything else (fn_metadata, context_kwarg, ...) is the real tool's.
        if name.startswith("__") or name in ("_real", "_tool_class", "_arguments"):
            raise AttributeError(name)
        return getattr(self.materialize(), name)

    def __repr__(self) -> str:
        return f"<LazySdkTool {self.name!r} ({'built' if self._real else 'not built yet'})>"


def patch_sdk(server_class: type, tool_class: type, index_of: Any) -> None:
    """Make ``server_class.add_tool`` register from generated entries (SDK 1.x or 2.x)."""
    original = server_class.add_tool
    if getattr(original, _MARK, False):
        return
    own.watch(server_class)  # which code creates each server: is it the project's
    # add_tool(self, fn, name=None, title=None, ...): the options by position, as the SDK has them
    options = tuple(inspect.signature(original).parameters)[2:]

    def add_tool(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        index: GeneratedIndex | None = index_of()
        if index is None or len(args) > len(options) or not kwargs.keys() <= set(options):
            return original(self, fn, *args, **kwargs)  # the SDK says what is wrong
        arguments = dict(zip(options, args, strict=False))
        arguments.update(kwargs)
        entry = index.entry(fn, arguments.get("name"), "mcp", self)
        if entry is None:
            return original(self, fn, *args, **kwargs)
        manager = self._tool_manager
        tool = LazySdkTool(tool_class, fn, arguments, entry)
        if manager.get_tool(tool.name) is not None:  # the manager's own duplicate rule
            if manager.warn_on_duplicate_tools:
                sys.modules[type(manager).__module__].logger.warning(
                    f"Tool already exists: {tool.name}"
                )
            return None
        manager._tools[tool.name] = tool
        return None

    setattr(add_tool, _MARK, original)
    add_tool.__doc__ = original.__doc__
    server_class.add_tool = add_tool


def patch_fastmcp(provider_class: type, index_of: Any) -> None:
    """Make ``LocalProvider.add_tool`` register functions from generated entries."""
    # fastmcp is optional
    from fastmcp.decorators import get_fastmcp_meta
    from fastmcp.tools.base import Tool
    from fastmcp.tools.function_tool import ToolMeta

    from mcp_codegen.runtime._hook.fastmcp_call_form import install as install_call_form
    from mcp_codegen.runtime._hook.fastmcp_decorator import install as install_names_only
    from mcp_codegen.runtime._hook.fastmcp_tool import GeneratedFunctionTool

    original = provider_class.add_tool
    if getattr(original, _MARK, False):
        return
    _watch_stores(provider_class)
    bookkeeping: list[bool] = []

    def add_tool(self: Any, tool: Any) -> Any:
        if not bookkeeping:  # LocalProvider is defined only after the patched module ran
            _install_tool_index(Tool)
            bookkeeping.append(True)
        index: GeneratedIndex | None = index_of()
        if index is None or isinstance(tool, Tool):
            return original(self, tool)
        found = get_fastmcp_meta(tool)
        meta = found if isinstance(found, ToolMeta) else ToolMeta()
        if meta.timeout is not None and not meta.run_in_thread:
            return original(self, tool)  # a refused combination: let fastmcp say so
        entry = index.entry(tool, meta.name, "fastmcp", self)
        if entry is None:
            return original(self, tool)
        lazy = GeneratedFunctionTool.from_entry(tool, meta, entry)
        added = original(self, lazy)
        if added is lazy and not meta.enabled:
            self.disable(keys={lazy.key})
        return added

    setattr(add_tool, _MARK, original)
    add_tool.__doc__ = original.__doc__
    provider_class.add_tool = add_tool
    install_names_only(provider_class.__module__, index_of)
    install_call_form(index_of)


def _install_tool_index(tool_class: type) -> None:
    # fastmcp is optional
    from fastmcp.server import server
    from fastmcp.server.providers.local_provider import LocalProvider

    from mcp_codegen.runtime._hook.fastmcp_index import install

    install(LocalProvider, tool_class, getattr(server, "_SchemaCacheLocalProvider", None))


def _watch_stores(mixin: type) -> None:
    """Record which code creates each fastmcp tool store (``LocalProvider``, which inherits
    ``add_tool`` from ``mixin``): the class is defined only after the patched module ran, so it
    is watched when it is defined, or now when it already is."""
    for subclass in mixin.__subclasses__():
        _watch_store(subclass)
    if "__init_subclass__" in vars(mixin):
        return  # watched already (or fastmcp's own hook: its stores stay unwatched, counted)

    def __init_subclass__(cls: type, **kwargs: Any) -> None:
        super(mixin, cls).__init_subclass__(**kwargs)  # type: ignore[misc]
        _watch_store(cls)

    mixin.__init_subclass__ = classmethod(__init_subclass__)  # type: ignore[assignment]


def _watch_store(cls: type) -> None:
    if cls.__name__ == "LocalProvider" and cls.__module__.startswith("fastmcp."):
        own.watch(cls)
