"""Parameters that are not in the input schema: framework contexts and configured dependencies."""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.mcpserver import Context

from mcp_codegen.runtime._call.failures import ToolCallError
from mcp_codegen.runtime._call.plan import Parameter, PreparedTool

#: Factories for parameters that are not in the input schema (injected types), by class.
Dependencies = Mapping[type, Callable[[], Any]]


class Contexts:
    """The framework contexts a call can hand to its tool, made on demand."""

    def __init__(self, sdk: Callable[[], Context[Any, Any]], fastmcp: Any) -> None:
        self._sdk = sdk
        self._fastmcp = fastmcp

    def get(self, kind: str) -> Any:
        """The ``"sdk"`` or ``"fastmcp"`` context of this call."""
        if kind == "sdk":
            # MCPServer's Context, over this request: progress, logging and elicitation work;
            # what needs an MCPServer instance (resources) raises a clear error.
            return self._sdk()
        return self._fastmcp


def framework_context(annotation: Any) -> str | None:
    """``"sdk"`` or ``"fastmcp"`` when ``annotation`` (or an ``Optional`` of it) is that
    framework's ``Context``, which the server supplies like the framework does."""
    # fastmcp is never imported for this: a tool annotated with its Context has imported it.
    fastmcp_module = sys.modules.get("fastmcp.server.context")
    fastmcp_context = getattr(fastmcp_module, "Context", None)
    for candidate in _candidates(annotation):
        if not isinstance(candidate, type):
            continue
        if issubclass(candidate, Context):
            return "sdk"
        if isinstance(fastmcp_context, type) and issubclass(candidate, fastmcp_context):
            return "fastmcp"
    return None


def is_fastmcp_dependency(default: Any) -> bool:
    """Whether ``default`` is a fastmcp dependency marker (``Depends(...)``, ``CurrentContext()``),
    which fastmcp resolves through its own injection system (the ``uncalled_for`` package)."""
    dependencies = sys.modules.get("uncalled_for")  # imported by fastmcp, never by us
    dependency = getattr(dependencies, "Dependency", None)
    return isinstance(dependency, type) and isinstance(default, dependency)


class Injector:
    """Fills parameters outside the input schema from the server's dependency factories."""

    def __init__(self, dependencies: Dependencies | None) -> None:
        self._dependencies = dict(dependencies or {})

    def has_factory(self, annotation: Any) -> bool:
        """Whether a configured factory supplies ``annotation`` (or its ``Optional``)."""
        return any(candidate in self._dependencies for candidate in _candidates(annotation))

    def inject(self, prepared: PreparedTool, parameter: Parameter) -> Any:
        """A value for ``parameter``: its factory, ``None`` if optional, or its class's ``()``."""
        annotation = parameter.annotation
        candidates = _candidates(annotation)
        for candidate in candidates:
            factory = self._dependencies.get(candidate)
            if factory is not None:
                return factory()
        if type(None) in typing.get_args(annotation):
            return None
        for candidate in candidates:
            if isinstance(candidate, type):
                try:
                    return candidate()
                except Exception as exc:
                    raise ToolCallError(
                        f"Tool {prepared.binding.name!r}: cannot provide parameter "
                        f"{parameter.name!r} ({candidate.__qualname__}), which is not in the input "
                        f"schema: {type(exc).__name__}: {exc}"
                    ) from exc
        raise ToolCallError(
            f"Tool {prepared.binding.name!r}: parameter {parameter.name!r} is not in the input "
            "schema and has no default, so the runtime cannot fill it"
        )


def _candidates(annotation: Any) -> list[Any]:
    """``annotation``'s members other than ``None`` when it is a union, else itself."""
    return [arg for arg in typing.get_args(annotation) if arg is not type(None)] or [annotation]
