"""Flavor ``"clean"``: what a tool's return value becomes on the wire, and checks any result passes.

Serialises by the return annotation, boxes non-object values, adds the TextContent copy, passes
content blocks and ``CallToolResult`` through, and validates structured output when strict.
"""

from __future__ import annotations

import contextlib
import json
import typing
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pydantic_core
from mcp import types
from mcp.server.mcpserver.utilities.types import Audio, Image

from mcp_codegen.runtime._call.failures import (
    MAX_QUOTED_INPUT,
    MAX_TOOL_MESSAGE,
    ToolCallError,
    clip,
    describe,
    format_path,
)
from mcp_codegen.runtime._call.plan import PreparedTool

_CONTENT_BLOCKS = typing.get_args(types.ContentBlock)


class CleanRules:
    """Flavor ``"clean"``: mcp-codegen's own rules (docs/runtime.md, docs/schema-rules.md)."""

    materializes_generators = False

    def __init__(self, prepared: PreparedTool, *, strict_output: bool) -> None:
        self._prepared = prepared
        self._strict_output = strict_output

    def convert(self, value: Any) -> types.CallToolResult:
        """The result for ``value``: see the module docstring."""
        return normalize(self._prepared, value, strict_output=self._strict_output)

    def failure(self, error: BaseException, describe: Callable[[BaseException], str]) -> str:
        """``Tool 'NAME' raised Type: message``."""
        message = describe(error)
        raised = f"{type(error).__name__}: {message}" if message else type(error).__name__
        return f"Tool {self._prepared.binding.name!r} raised {raised}"

    def scope(self, request: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        """Nothing to set up around a call."""
        return contextlib.nullcontext()


def normalize(prepared: PreparedTool, value: Any, *, strict_output: bool) -> types.CallToolResult:
    """The clean-flavor result for a tool's return ``value``."""
    name = prepared.binding.name
    box = prepared.box_field
    if isinstance(value, types.CallToolResult):
        if not value.is_error:
            check_output(prepared, value.structured_content, strict_output=strict_output)
        return _checked_for_the_wire(name, value)
    blocks = _content_blocks(value)
    if blocks is not None:
        return _checked_for_the_wire(name, types.CallToolResult(content=blocks))
    if value is None and box is None and prepared.output_schema is None:
        return types.CallToolResult(content=[])
    if isinstance(value, Iterator | AsyncIterator):
        # Serializing would drain it, on the event loop and with no bound: it may never end.
        raise _unserializable(
            name, f"it is an iterator ({type(value).__name__}); return a list instead"
        )
    data = serialize(prepared, value)
    if box is not None:
        structured: Any = {box: data}
    elif isinstance(data, dict) or _natural_root(prepared.output_schema):
        structured = data  # from 2026-07-28 any JSON value, as its schema describes
    elif prepared.output_schema is not None:
        raise ToolCallError(
            f"Tool {name!r} returned {type(value).__name__}, but its outputSchema describes a "
            "JSON object and the tool is not boxed; fix the tool or its return annotation"
        )
    else:
        if isinstance(value, str):
            _check_encodable(name, value)
            text = value
        else:
            text = _json_text(name, data)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    check_output(prepared, structured, strict_output=strict_output)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=_json_text(name, structured))],
        structured_content=structured,
    )


def _natural_root(schema: dict[str, Any] | None) -> bool:
    """An output schema whose root is not an object: served only from 2026-07-28, unboxed."""
    return schema is not None and schema.get("type") != "object"


def serialize(prepared: PreparedTool, value: Any) -> Any:
    """``value`` as JSON-compatible Python, by the tool's return annotation when it has one."""
    try:
        adapter = prepared.return_adapter()
        if adapter is not None:
            return adapter.dump_python(value, mode="json", by_alias=True, warnings="none")
        return pydantic_core.to_jsonable_python(value, by_alias=True)
    except RecursionError:
        raise _unserializable(prepared.binding.name, "it is nested too deeply") from None
    except Exception as exc:  # unknown types, cycles, depth, undecodable bytes, a raising hook
        raise _unserializable(prepared.binding.name, describe(exc, MAX_TOOL_MESSAGE)) from exc


def check_output(prepared: PreparedTool, structured: Any, *, strict_output: bool) -> None:
    """With ``strict_output``, a ``ToolCallError`` when ``structured`` misses the outputSchema."""
    if not strict_output or prepared.output_schema is None:
        return
    try:
        problems = sorted(
            (
                format_path(error.absolute_path, root="structuredContent"),
                clip(error.message, MAX_QUOTED_INPUT),
            )
            for error in prepared.output_validator().iter_errors(structured)
        )
    except RecursionError:
        problems = [("structuredContent", "nested too deeply to validate")]
    if problems:
        raise ToolCallError(
            f"Tool {prepared.binding.name!r} returned structured content that does not match "
            "its outputSchema:\n" + "\n".join(f"- {path}: {msg}" for path, msg in problems)
        )


def serializable_on_the_wire(tool: str, result: types.CallToolResult) -> types.CallToolResult:
    """``result``, once it is known to serialize as the transport will (NaN becomes null there,
    as in the frameworks); a ``ToolCallError`` instead of a response that cannot be written."""
    try:
        result.model_dump_json(by_alias=True, exclude_none=True)
    except RecursionError:
        raise _unserializable(tool, "it is nested too deeply") from None
    except ValueError as exc:  # PydanticSerializationError is a ValueError
        raise _unserializable(tool, describe(exc, MAX_TOOL_MESSAGE)) from None
    return result


def error_result(text: str) -> types.CallToolResult:
    """An ``isError`` result carrying ``text``, made safe to encode as UTF-8."""
    if not text.isascii():  # a tool's message may hold lone surrogates, which UTF-8 cannot encode
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _content_blocks(value: Any) -> list[types.ContentBlock] | None:
    def block(item: Any) -> types.ContentBlock | None:
        if isinstance(item, _CONTENT_BLOCKS):
            return item  # type: ignore[no-any-return]
        if isinstance(item, Image):
            return item.to_image_content()
        if isinstance(item, Audio):
            return item.to_audio_content()
        return None

    single = block(value)
    if single is not None:
        return [single]
    if isinstance(value, list | tuple) and value:
        blocks = [block(item) for item in value]
        if all(item is not None for item in blocks):
            return blocks  # type: ignore[return-value]
    return None


def _unserializable(tool: str, problem: str) -> ToolCallError:
    return ToolCallError(
        f"Tool {tool!r} returned a value that cannot be serialized to JSON: {problem}"
    )


def _json_text(tool: str, data: Any) -> str:
    """``data`` (JSON-compatible Python) as JSON text, or a ``ToolCallError`` saying why not."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:  # NaN or Infinity, a cycle, an integer of more than 4,300 digits
        problem = str(exc)
        if problem.startswith("Out of range float values"):
            problem = "it contains NaN or Infinity, which JSON numbers cannot express"
        raise _unserializable(tool, problem) from None
    except RecursionError:
        raise _unserializable(tool, "it is nested too deeply") from None
    except TypeError as exc:
        raise _unserializable(tool, str(exc)) from None
    _check_encodable(tool, text)
    return text


def _check_encodable(tool: str, text: str) -> None:
    """Reject text with a lone surrogate: the transport could not encode it as UTF-8."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _unserializable(
            tool,
            f"a string in it holds the lone surrogate {text[exc.start]!r}, which is not valid "
            "Unicode (a name decoded with errors='surrogateescape'?)",
        ) from None


def _checked_for_the_wire(tool: str, result: types.CallToolResult) -> types.CallToolResult:
    """A result the tool built itself, once it is known to serialize as the transport will."""
    if result.structured_content is not None:
        _json_text(tool, result.structured_content)  # NaN would silently become null on the wire
    return serializable_on_the_wire(tool, result)
