"""How a ``tools/call`` fails: the two exceptions the call machinery raises, and safe messages.

Standard library only: every other call module and both flavor rule sets import this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.shared.exceptions import MCPError

#: How much of a client's input an argument error quotes back, per problem (characters).
MAX_QUOTED_INPUT = 1_000
#: How much of a tool's exception message an error result carries (characters).
MAX_TOOL_MESSAGE = 20_000


class ToolCallError(Exception):
    """A failure reported to the client as an ``isError`` result, never as a protocol error."""


class ProtocolFailure(Exception):
    """An ``MCPError`` a tool raised that its flavor's framework answers as a JSON-RPC error."""

    def __init__(self, error: MCPError) -> None:
        super().__init__(str(error))
        self.error = error


def describe(exc: BaseException, limit: int = MAX_TOOL_MESSAGE) -> str:
    """An exception's message, safe to print: clipped, even if ``__str__`` itself fails."""
    try:
        message = str(exc)
    except Exception:
        message = f"<{type(exc).__name__}.__str__ failed>"
    return clip(message, limit)


def describe_exception(exc: BaseException) -> str:
    """``describe`` with the limit for a tool's own message: what the flavor rules are given."""
    return describe(exc, MAX_TOOL_MESSAGE)


def clip(text: str, limit: int) -> str:
    """``text``, cut at ``limit`` characters with a note of how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def format_path(parts: Sequence[str | int], root: str = "arguments") -> str:
    """A JSON location as ``root.key[0].other``."""
    path = root
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path
