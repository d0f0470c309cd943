"""Framework patches of ``use_generated``: register a tool from its generated entry, lazily.

Imported only once a framework module is (``codegen.runtime.hook`` arranges that), so it may
import the framework it patches. Each framework keeps its own registry and its own call path:

- SDK 2.x ``MCPServer`` and SDK 1.x ``FastMCP``: ``add_tool`` (the ``tool`` decorator calls it)
  stores a ``LazySdkTool`` in the tool manager. Listing reads the generated schemas; the first
  call builds the framework's own ``Tool.from_function(...)`` with the same arguments and every
  call runs through it, so validation, conversion and errors are the framework's.
- fastmcp 4.x: ``LocalProvider.add_tool`` (``FastMCP.tool`` and ``FastMCP.add_tool`` reach it)
  is handed a ``FunctionTool`` whose inferred fields (``parameters``, ``output_schema``,
  ``description``) come from the entry; the inferred call-time fields (the transformed ``fn``
  and ``return_type``) are taken from ``FunctionTool.from_function`` on the first call.
  fastmcp's own per-registration walks over every component read an index instead
  (``_hook_fastmcp_index``).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from codegen.runtime._hook_index import GeneratedIndex

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
    # add_tool(self, fn, name=None, title=None, ...): the options by position, as the SDK has them
    options = tuple(inspect.signature(original).parameters)[2:]

    def add_tool(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        index: GeneratedIndex | None = index_of()
        if index is None or len(args) > len(options) or not kwargs.keys() <= set(options):
            return original(self, fn, *args, **kwargs)  # the SDK says what is wrong
        arguments = dict(zip(options, args, strict=False))
        arguments.update(kwargs)
        entry = index.entry(fn, arguments.get("name"), "mcp")
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
    from fastmcp.decorators import get_fastmcp_meta
    from fastmcp.tools.base import Tool
    from fastmcp.tools.function_tool import ToolMeta

    original = provider_class.add_tool
    if getattr(original, _MARK, False):
        return
    lazy_class = _lazy_function_tool_class()
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
        entry = index.entry(tool, meta.name, "fastmcp")
        if entry is None:
            return original(self, tool)
        lazy = lazy_class.from_entry(tool, meta, entry)
        added = original(self, lazy)
        if added is lazy and not meta.enabled:
            self.disable(keys={lazy.key})
        return added

    setattr(add_tool, _MARK, original)
    add_tool.__doc__ = original.__doc__
    provider_class.add_tool = add_tool


def _install_tool_index(tool_class: type) -> None:
    from fastmcp.server import server
    from fastmcp.server.providers.local_provider import LocalProvider

    from codegen.runtime._hook_fastmcp_index import install

    install(LocalProvider, tool_class, getattr(server, "_SchemaCacheLocalProvider", None))


def _lazy_function_tool_class() -> type:
    from fastmcp.tools.function_parsing import ParsedFunction
    from fastmcp.tools.function_tool import FunctionTool
    from fastmcp.utilities.tasks import TaskConfig
    from fastmcp.utilities.types import NotSetT
    from pydantic import PrivateAttr

    class GeneratedFunctionTool(FunctionTool):
        """A ``FunctionTool`` listed from its generated entry; inferred on its first call."""

        _source_fn: Any = PrivateAttr(default=None)
        _ready: bool = PrivateAttr(default=False)

        @classmethod
        def from_entry(cls, fn: Any, meta: Any, entry: dict[str, Any]) -> GeneratedFunctionTool:
            tool_meta = meta.meta
            if meta.app is not None:  # as LocalProvider.add_tool merges it
                from fastmcp.apps.config import app_config_to_meta_dict

                tool_meta = dict(tool_meta) if tool_meta else {}
                tool_meta["ui"] = True if meta.app is True else app_config_to_meta_dict(meta.app)
            task = meta.task if meta.task is not None else False
            task_config = task if isinstance(task, TaskConfig) else TaskConfig.from_bool(task)
            task_config.validate_function(fn, entry["name"])
            output_schema = (
                entry.get("outputSchema")
                if isinstance(meta.output_schema, NotSetT)
                else meta.output_schema
            )
            tool = cls(
                fn=fn,
                name=entry["name"],
                version=str(meta.version) if meta.version is not None else None,
                title=meta.title,
                description=meta.description
                if meta.description is not None
                else entry.get("description"),
                icons=meta.icons,
                parameters=entry["inputSchema"],
                output_schema=output_schema,
                annotations=meta.annotations,
                tags=meta.tags or set(),
                meta=tool_meta,
                task_config=task_config,
                timeout=meta.timeout,
                auth=meta.auth,
                run_in_thread=meta.run_in_thread,
            )
            tool._source_fn = fn
            return tool

        def _materialize(self) -> None:
            if self._ready:
                return
            # What FunctionTool.from_function derives fn and return_type from.
            real = ParsedFunction.from_function(self._source_fn)
            self.__dict__["fn"] = real.fn
            self.__dict__["return_type"] = real.return_type
            self._ready = True

        async def run(self, arguments: dict[str, Any]) -> Any:
            self._materialize()
            return await super().run(arguments)

        def convert_result(self, raw_value: Any) -> Any:
            self._materialize()
            return super().convert_result(raw_value)

    return GeneratedFunctionTool
