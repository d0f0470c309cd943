"""The parameter whose annotation pydantic cannot make a JSON Schema of, located at that parameter.

Used after describing a tool failed: at ``generate`` (the tool's parameters as one ``TypedDict``)
or while importing a module whose framework infers at registration (``MCPServer``, fastmcp),
where pydantic's error names neither the tool nor the parameter.

Runs in: worker, parent. (The parent imports it with ``mcp_codegen._generator.schema.inputs``
and never calls it.)
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp_codegen._generator.model import ScannedTool
from mcp_codegen._shared.diagnostics import Diagnostic

#: Why pydantic has no schema, in the user's terms, by the core schema its error names.
_WHY = {
    "CallableSchema": "a function cannot be passed as JSON",
    "IsInstanceSchema": "an arbitrary class has no JSON form",
    "IsSubclassSchema": "a class object cannot be passed as JSON",
    "GeneratorSchema": "a generator cannot be passed as JSON",
}
_VARIADIC = ("VAR_POSITIONAL", "VAR_KEYWORD")


def schema_errors() -> tuple[type[BaseException], ...]:
    """The exceptions pydantic raises for a type it cannot describe."""
    # pydantic (~60 ms to import): the parent imports this module with schema.inputs and never calls it
    import pydantic

    return (
        pydantic.PydanticSchemaGenerationError,
        pydantic.PydanticUserError,
        pydantic.errors.PydanticInvalidForJsonSchema,
        TypeError,
    )


def pydantic_message(exc: BaseException) -> str:
    """Pydantic's first line, without its "For further information" link."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.split("For further information")[0].strip()


def pydantic_reason(exc: BaseException) -> str:
    """Pydantic's first line, without its link, and why in plain words when it names a kind."""
    text = pydantic_message(exc).rstrip(".")
    kind = text.rpartition("core_schema.")[2]
    return f"{text}: {_WHY[kind]}" if kind in _WHY else text


def unsupported_parameter(
    tool: ScannedTool, annotations: dict[str, Any], path: str, fix: str
) -> Diagnostic | None:
    """An error at the first parameter of ``tool`` whose annotation (from ``annotations``,
    parameter name -> resolved type) pydantic cannot describe, naming it, why, and ``fix``;
    ``None`` when each describes on its own (the failure is elsewhere)."""
    # pydantic (~60 ms to import): the parent imports this module with schema.inputs and never calls it
    from pydantic import TypeAdapter

    for parameter in tool.parameters:
        if parameter.kind in _VARIADIC or parameter.name not in annotations:
            continue
        try:
            TypeAdapter(annotations[parameter.name]).json_schema(mode="validation")
        except schema_errors() as exc:
            written = parameter.annotation_source or _type_name(annotations[parameter.name])
            return Diagnostic(
                path,
                parameter.position.line,
                parameter.position.column,
                f"parameter {parameter.name!r} of tool {tool.name!r} is annotated {written}, "
                f"which pydantic cannot make a JSON Schema of ({pydantic_reason(exc)}); {fix}",
            )
    return None


def registered_function(frames: Iterable[types.FrameType], path: str, tools: Iterable[ScannedTool]):  # type: ignore[no-untyped-def]
    """``(scanned tool, function)`` for a function of the file ``path`` that a frame of a failed
    import held (the framework's decorator had received it), else ``None``."""
    by_qualname = {tool.qualname: tool for tool in tools}
    for frame in frames:
        for value in list(frame.f_locals.values()):
            code = getattr(value, "__code__", None)
            tool = by_qualname.get(getattr(value, "__qualname__", None) or "")
            if tool is not None and code is not None and Path(code.co_filename) == Path(path):
                return tool, value
    return None


def resolved_annotations(function: Any) -> dict[str, Any]:
    """``function``'s parameter annotations as types (``{}`` when they do not resolve)."""
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception:
        return {}
    hints.pop("return", None)
    return hints


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__qualname__", None) or repr(annotation)
