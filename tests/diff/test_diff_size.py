"""``diff`` reports how much tools/list grows or shrinks, per tool and in total, in every format."""

from __future__ import annotations

import json

from mcp_codegen._diff.renderers import render_github, render_json, render_markdown, render_terminal
from mcp_codegen._diff.report import build_report
from tests.diff.diff_support import INT, STR, side, tool

A = tool("a", {"q": STR}, ("q",), line=5)
B = tool("b", {"n": INT}, ("n",), line=9)
A2 = tool("a", {"q": {**STR, "description": "Text to find."}}, ("q",), line=5)
C = tool("c", line=20)


def _wire(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k != "x-codegen"}


def _bytes(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def test_sizes_per_tool_and_total() -> None:
    report = build_report(side(A, B), side(A2, C))
    size = report.size
    assert size is not None
    # A2 adds exactly `,"description":"Text to find."` (30 bytes) to A.
    assert _bytes(_wire(A2)) - _bytes(_wire(A)) == len(',"description":"Text to find."') == 30
    rows = {row.tool: row for row in size.tools}
    assert sorted(rows) == ["a", "b", "c"]
    assert (rows["a"].base_bytes, rows["a"].head_bytes) == (_bytes(_wire(A)), _bytes(_wire(A2)))
    assert rows["a"].delta_bytes == 30
    assert rows["b"].head_bytes is None and rows["b"].delta_bytes == -_bytes(_wire(B))
    assert rows["c"].base_bytes is None and rows["c"].head_bytes == _bytes(_wire(C))
    assert size.base_bytes == _bytes({"tools": [_wire(A), _wire(B)]})
    assert size.head_bytes == _bytes({"tools": [_wire(A2), _wire(C)]})
    assert size.base_tokens == -(-size.base_bytes // 4)
    assert rows["a"].path == "pkg/tools.py" and rows["a"].line == 5


def test_every_format_shows_the_size_change() -> None:
    report = build_report(side(A, B), side(A2, B))
    size = report.size
    assert size is not None and size.delta_bytes == 30
    terminal = render_terminal(report)
    assert f"tools/list size: {size.base_bytes:,} -> {size.head_bytes:,} bytes (+30, " in terminal
    assert "  a: " in terminal and "(+30; " in terminal
    markdown = render_markdown(report)
    assert "| Tool | Base bytes | Head bytes | Δ bytes | Δ tokens |" in markdown
    assert f"| `a` | {size.tools[0].base_bytes:,} | {size.tools[0].head_bytes:,} | +30 |" in (
        markdown
    )
    document = json.loads(render_json(report))
    assert document["size"]["delta"] == {"bytes": 30, "tokens": size.delta_tokens}
    assert document["size"]["tools"][0]["tool"] == "a"
    github = render_github(report).splitlines()
    assert any(
        line.startswith("::notice file=pkg/tools.py,line=5,title=MCP tools/list size::a: ")
        for line in github
    )
    assert "tools/list size:" in github[-1]


def test_unchanged_sides_have_no_size_rows() -> None:
    report = build_report(side(A), side(A))
    assert report.size is not None and report.size.tools == () and report.size.delta_bytes == 0
    assert "tools/list size: " in render_terminal(report)
    assert "(±0, +0.0%)" in render_terminal(report)
