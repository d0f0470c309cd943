"""The ``@tool`` marker for tool modules served by ``mcp_codegen.runtime``.

It changes nothing about the function: the generator reads its arguments statically from source, and the
runtime finds the function through the import path recorded in the generated module. Importing this module
imports only the standard library.

Runs in: any.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, overload

__all__ = ["tool"]

F = TypeVar("F", bound=Callable[..., Any])


@overload
def tool(fn: F, /) -> F: ...


@overload
def tool(
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    annotations: Mapping[str, Any] | None = None,
    icons: Sequence[Mapping[str, Any]] | None = None,
    meta: Mapping[str, Any] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    output_schema: Mapping[str, Any] | None = None,
    box_field: str | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
) -> Callable[[F], F]: ...


def tool(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """Mark ``fn`` as an MCP tool; usable as ``@tool`` or ``@tool(...)``."""

    def mark(function: F) -> F:
        function.__mcp_codegen_tool__ = dict(options)  # type: ignore[attr-defined]
        return function

    if fn is not None:
        return mark(fn)  # type: ignore[arg-type]
    return mark
