"""How much a diff grows or shrinks tools/list: wire bytes and approximate tokens, per tool and
in total (``mcp_codegen._profiles.budget`` measures; this module compares two sides)."""

from __future__ import annotations

from dataclasses import dataclass

from mcp_codegen._diff.revisions import Side, ToolEntry
from mcp_codegen._profiles.budget import BYTES_PER_TOKEN, payload_bytes, token_counter, wire_bytes
from mcp_codegen._shared.format import PRIVATE_KEY


@dataclass(frozen=True)
class ToolSize:
    """One tool whose wire size differs; None on the side that lacks the tool."""

    tool: str
    base_bytes: int | None
    head_bytes: int | None
    base_tokens: int | None
    head_tokens: int | None
    path: str | None
    line: int

    @property
    def delta_bytes(self) -> int:
        return (self.head_bytes or 0) - (self.base_bytes or 0)

    @property
    def delta_tokens(self) -> int:
        return (self.head_tokens or 0) - (self.base_tokens or 0)


@dataclass(frozen=True)
class SizeReport:
    """Totals of both sides' tools/list payloads, and every tool whose size changed."""

    tokenizer: str
    base_bytes: int
    head_bytes: int
    base_tokens: int
    head_tokens: int
    tools: tuple[ToolSize, ...]

    @property
    def delta_bytes(self) -> int:
        return self.head_bytes - self.base_bytes

    @property
    def delta_tokens(self) -> int:
        return self.head_tokens - self.base_tokens

    def to_json(self) -> dict[str, object]:
        """Fixed keys; tools in report order."""
        return {
            "tokenizer": self.tokenizer,
            "base": {"bytes": self.base_bytes, "tokens": self.base_tokens},
            "head": {"bytes": self.head_bytes, "tokens": self.head_tokens},
            "delta": {"bytes": self.delta_bytes, "tokens": self.delta_tokens},
            "tools": [
                {
                    "tool": row.tool,
                    "base_bytes": row.base_bytes,
                    "head_bytes": row.head_bytes,
                    "delta_bytes": row.delta_bytes,
                    "base_tokens": row.base_tokens,
                    "head_tokens": row.head_tokens,
                    "delta_tokens": row.delta_tokens,
                }
                for row in self.tools
            ],
        }


def _wire(entry: ToolEntry) -> dict[str, object]:
    return {key: value for key, value in entry.tool.items() if key != PRIVATE_KEY}


def size_report(base: Side, head: Side, tokenizer: str = BYTES_PER_TOKEN) -> SizeReport:
    """Compare the tools/list sizes of two sides; tools ordered by name."""
    count = token_counter(tokenizer)
    base_wire = {name: _wire(entry) for name, entry in base.tools.items()}
    head_wire = {name: _wire(entry) for name, entry in head.tools.items()}
    rows = []
    for name in sorted(base_wire.keys() | head_wire.keys()):
        old, new = base_wire.get(name), head_wire.get(name)
        old_bytes = None if old is None else wire_bytes(old)
        new_bytes = None if new is None else wire_bytes(new)
        if old_bytes == new_bytes:
            continue
        entry = head.tools.get(name) or base.tools[name]
        rows.append(
            ToolSize(
                tool=name,
                base_bytes=old_bytes,
                head_bytes=new_bytes,
                base_tokens=None if old is None else count(old),
                head_tokens=None if new is None else count(new),
                path=entry.source_path,
                line=entry.line,
            )
        )
    old_payload, new_payload = list(base_wire.values()), list(head_wire.values())
    return SizeReport(
        tokenizer=tokenizer,
        base_bytes=payload_bytes(old_payload),
        head_bytes=payload_bytes(new_payload),
        base_tokens=count({"tools": old_payload}),
        head_tokens=count({"tools": new_payload}),
        tools=tuple(rows),
    )


def signed(number: int) -> str:
    """``+12`` / ``-3`` / ``±0``, with thousands separators."""
    return f"{number:+,}" if number else "±0"


def percent(delta: int, base: int) -> str:
    """The change relative to ``base``, or ``new`` when BASE was empty."""
    return f"{delta / base:+.1%}" if base else "new"
