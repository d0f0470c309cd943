"""Where things are in a TOML file, for ``path:line:col`` diagnostics: ``tomllib`` gives no
positions, so a parse error's is read from its message and a key's or value's is found in the text
of its table (standard library only).

Every lookup falls back to the position of the table's header, then to 1:1: a diagnostic always
has a position, the closest one known.
"""

from __future__ import annotations

from collections.abc import Callable

#: ``(line, column)``, both from 1.
Position = tuple[int, int]


def parse_error_position(message: str) -> Position:
    """Where a ``tomllib.TOMLDecodeError`` points: its message ends ``(at line L, column C)``."""
    _, found, tail = message.rpartition("(at line ")
    line, _sep, column = tail.rstrip(")").partition(", column ")
    if found and line.isdigit() and column.isdigit():
        return int(line), int(column)
    return 1, 1


def _header_name(stripped: str) -> str | None:
    """``a.b`` for a ``[a.b]`` or ``[[a.b]]`` header line (already stripped), else ``None``."""
    return stripped.strip("[]").strip() if stripped.startswith("[") else None


def _find(
    text: str,
    in_table: Callable[[str], bool],
    column_of: Callable[[str], int],
    occurrence: int | None = None,
) -> Position:
    """The first line of the table where ``column_of`` gives a column (from 1; 0: not here).

    The table is every header ``in_table`` accepts, or only the ``occurrence``-th of them (an
    array of tables has one header per entry); the fallback is the first such header."""
    header: Position | None = None
    seen = -1
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        name = _header_name(line.strip())
        if name is not None:
            inside = in_table(name)
            if inside:
                seen += 1
                inside = occurrence is None or seen == occurrence
                if inside and header is None:
                    header = (number, line.index("[") + 1)
            continue
        if inside and (column := column_of(line)):
            return number, column
    return header or (1, 1)


def header_position(text: str, table: str) -> Position:
    """The position of ``[table]``'s header, else 1:1."""
    return _find(text, lambda name: name == table, lambda line: 0)


def key_position(text: str, table: str, key: str, occurrence: int | None = None) -> Position:
    """Best-effort position of ``key = ...`` in ``[table]`` (in its ``occurrence``-th entry, from
    0, when ``[[table]]`` is an array of tables); else the header's position, else 1:1."""

    def column_of(line: str) -> int:
        stripped = line.strip()
        if stripped.split("=", 1)[0].strip().strip("\"'") == key:
            return line.index(stripped[0]) + 1
        return 0

    return _find(text, lambda name: name == table, column_of, occurrence)


def text_position(text: str, needle: str, table: str) -> Position:
    """Position of the first ``needle`` (a key, or a value as written) in ``[table]`` or one of
    its sub-tables; else the header's position, else 1:1."""
    return _find(
        text,
        lambda name: name == table or name.startswith(table + "."),
        lambda line: line.index(needle) + 1 if needle in line else 0,
    )
