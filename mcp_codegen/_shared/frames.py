"""Where running code is in its source: the line and column of the call a frame is making.

The one reading of ``co_positions`` in the tree: a registration's call site (the recording app,
``mcp_codegen._registration.registrar``), the frames a framework registration is recorded with
(``_generator.inspection.registrations``) and the user line a registration function raised at
(``_generator.inspection.resolve``) agree on lines and columns. Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType, FrameType, TracebackType


def position(code: CodeType, offset: int, line: int | None) -> tuple[int, int]:
    """``(line, column)`` of the instruction at byte ``offset`` in ``code``: its first line and
    0-based UTF-8 byte column, or ``line`` and 0 when the interpreter records no positions
    (``-X no_debug_ranges``)."""
    positions = list(code.co_positions())
    index = offset // 2
    start, _, column, _ = positions[index] if 0 <= index < len(positions) else (None,) * 4
    if start is None:
        return line or 0, 0
    return start, column or 0


def frame_position(frame: FrameType) -> tuple[int, int]:
    """``position`` of the call ``frame`` is making."""
    return position(frame.f_code, frame.f_lasti, frame.f_lineno)


def traceback_position(entry: TracebackType) -> tuple[int, int]:
    """``position`` of the instruction a traceback entry was at when it raised."""
    return position(entry.tb_frame.f_code, entry.tb_lasti, entry.tb_lineno)
