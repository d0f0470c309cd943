"""Versioning (seed 004), the changelog, exit decisions and the four output formats."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from mcp_codegen._diff.changes import Severity
from mcp_codegen._diff.renderers import render_github, render_json, render_markdown, render_terminal
from mcp_codegen._diff.report import (
    DiffReport,
    build_report,
    bump_version,
    escape_markdown,
    write_changelog,
)
from tests.diff.diff_support import INT, NUM, STR, obj, side, tool

BASE = side(
    tool("search", {"q": STR, "genre": {"enum": ["fiction", "poetry"]}}, ("q",), line=12),
    tool("stats", output=obj({"count": INT}, ("count",)), line=30),
    tool("legacy", {"id": INT}, ("id",), line=44),
    version="1.4.2",
    path="shop/catalog.py",
)


def report_for(*tools: dict, version: str | None = "1.4.2") -> DiffReport:
    return build_report(BASE, side(*tools, version=version, path="shop/catalog.py"))


@pytest.mark.parametrize(
    ("version", "bump", "expected"),
    [
        ("1.4.2", "major", "2.0.0"),
        ("1.4.2", "minor", "1.5.0"),
        ("1.4.2", "patch", "1.4.3"),
        ("0.1.0", "major", "1.0.0"),
        ("2.0.0-rc.1", "major", "2.0.0"),
        ("2.1.0-rc.1", "major", "3.0.0"),
        ("2.1.0-rc.1", "minor", "2.1.0"),
        ("2.1.3-rc.1", "patch", "2.1.3"),
        ("1.0.0+build.5", "patch", "1.0.1"),
    ],
)
def test_bump_version(version: str, bump: str, expected: str) -> None:
    assert bump_version(version, bump) == expected


def test_bump_rejects_non_semver() -> None:
    with pytest.raises(ValueError, match="not a semantic version"):
        bump_version("1.2", "patch")


def test_breaking_proposes_major_and_fails() -> None:
    report = report_for(
        tool("search", {"q": STR, "genre": {"enum": ["fiction"]}}, ("q",), line=12),
        tool("stats", output=obj({"count": INT}, ("count",)), line=30),
        tool("legacy", {"id": INT}, ("id",), line=44),
    )
    assert report.bump == "major"
    assert report.proposed_version == "2.0.0"
    assert report.head_version_ok is False  # HEAD still records 1.4.2
    assert report.fails("breaking") and report.fails("any") and not report.fails("never")


def test_additions_propose_minor_and_pass_by_default() -> None:
    report = report_for(
        tool("search", {"q": STR, "genre": {"enum": ["fiction", "poetry"]}, "n": INT}, ("q",)),
        tool("stats", output=obj({"count": INT, "mean": NUM}, ("count",)), line=30),
        tool("legacy", {"id": INT}, ("id",), line=44),
        tool("new_tool", line=50),
        version="1.5.0",
    )
    assert {c.severity for c in report.changes} == {Severity.COMPATIBLE}
    assert (report.bump, report.proposed_version, report.head_version_ok) == (
        "minor",
        "1.5.0",
        True,
    )
    assert not report.fails("breaking")
    assert report.fails("any")


def test_documentation_only_proposes_patch() -> None:
    report = report_for(
        tool("search", {"q": STR, "genre": {"enum": ["fiction", "poetry"]}}, ("q",), line=12),
        tool("stats", output=obj({"count": INT}, ("count",)), line=30, description="Counts."),
        tool("legacy", {"id": INT}, ("id",), line=44),
    )
    assert [c.kind.slug for c in report.changes] == ["description_changed"]
    assert (report.bump, report.proposed_version) == ("patch", "1.4.3")


def test_unknown_counts_as_failing_and_major() -> None:
    base_pattern = side(tool("p", {"q": {**STR, "pattern": "^a"}}), version="1.0.0")
    head_pattern = side(tool("p", {"q": {**STR, "pattern": "^b"}}), version="1.0.0")
    unknown = build_report(base_pattern, head_pattern)
    assert [c.severity for c in unknown.changes] == [Severity.UNKNOWN]
    assert (unknown.bump, unknown.proposed_version) == ("major", "2.0.0")
    assert unknown.fails("breaking")
    assert not unknown.fails("never")


def test_no_changes() -> None:
    report = build_report(BASE, BASE)
    assert (report.changes, report.bump, report.proposed_version) == ((), None, "1.4.2")
    assert not report.fails("any")
    assert "no schema changes" in render_terminal(report)


def test_first_release_takes_heads_version() -> None:
    empty = side(version=None)
    report = build_report(empty, side(tool("a"), version="0.1.0"))
    assert [c.kind.slug for c in report.changes] == ["tool_added"]
    assert report.proposed_version == "0.1.0"


# --- changelog ---------------------------------------------------------------------------------

MIXED = (
    tool("search", {"q": STR, "genre": {"enum": ["fiction"]}}, ("q",), line=12),
    tool("stats", output=obj({"count": INT, "mean": NUM}, ("count",)), line=30),
    tool("legacy", {"id": INT}, ("id",), line=44, description="Old."),
)


def test_changelog_created_then_replaced_idempotently(tmp_path: Path) -> None:
    path = tmp_path / "CHANGELOG.md"
    report = report_for(*MIXED)
    write_changelog(path, report)
    first = path.read_text()
    assert first.startswith("# Changelog\n")
    assert "## [2.0.0]\n" in first  # no date unless given
    sections = re.findall(r"^### (.+)$", first, flags=re.M)
    assert sections == ["Breaking", "Compatible", "Notable"]
    assert "- `search`: input 'genre' no longer accepts \"poetry\"" in first
    write_changelog(path, report)
    assert path.read_text() == first


def test_changelog_new_version_goes_above_older_entries(tmp_path: Path) -> None:
    path = tmp_path / "CHANGELOG.md"
    path.write_text("# Changelog\n\nIntro.\n\n## [1.4.2] - 2026-01-01\n\n- old entry\n")
    write_changelog(path, report_for(*MIXED), date="2026-11-20")
    text = path.read_text()
    assert text.index("## [2.0.0] - 2026-11-20") < text.index("## [1.4.2] - 2026-01-01")
    assert text.startswith("# Changelog\n\nIntro.\n\n## [2.0.0]")
    assert text.endswith("- old entry\n")


# --- formats -----------------------------------------------------------------------------------


def test_json_format() -> None:
    document = json.loads(render_json(report_for(*MIXED)))
    assert document["version"] == {"bump": "major", "proposed": "2.0.0", "head_satisfies": False}
    assert document["summary"] == {"breaking": 1, "unknown": 0, "compatible": 1, "notable": 1}
    removed = next(c for c in document["changes"] if c["kind"] == "input_enum_value_removed")
    assert removed == {
        "kind": "input_enum_value_removed",
        "rule": "input-enum-value-removed",
        "severity": "breaking",
        "tool": "search",
        "pointer": "/inputSchema/properties/genre/enum",
        "message": "input 'genre' no longer accepts \"poetry\"",
        "old": "poetry",
        "path": "shop/catalog.py",
        "line": 12,
        "level": "error",
        "acknowledged": None,
    }


def test_github_annotations_point_at_the_tool_source() -> None:
    lines = render_github(report_for(*MIXED), path_prefix="app/").splitlines()
    error = next(line for line in lines if line.startswith("::error "))
    assert error.startswith(
        "::error file=app/shop/catalog.py,line=12,title=MCP schema input-enum-value-removed::"
    )
    assert any(line.startswith("::notice file=app/shop/catalog.py,line=30,") for line in lines)
    assert lines[-1].startswith("::notice title=mcp-codegen diff::1 breaking")


def test_github_escapes_properties_and_data() -> None:
    base = side(tool("a", description="x"), path="dir,with:odd/file.py")
    head = side(tool("a", description="y\nz"), path="dir,with:odd/file.py")
    line = render_github(build_report(base, head)).splitlines()[0]
    assert line.startswith("::notice file=dir%2Cwith%3Aodd/file.py,line=10,")
    assert "\n" not in line


def test_markdown_format() -> None:
    text = render_markdown(report_for(*MIXED))
    assert text.startswith("### MCP tool schema changes: `test` → `test`\n")
    assert "| ❌ | breaking | 1 |" in text
    assert "#### ❌ Breaking (1)" in text
    assert "<details><summary>✅ Compatible (1)</summary>" in text
    row = next(line for line in text.splitlines() if "no longer accepts" in line)
    assert row.count(" | ") == 3 and "`shop/catalog.py:12`" in row
    assert "**Schema-set version: 1.4.2 -> 2.0.0 (major bump); HEAD still records 1.4.2**" in text
    odd = {**STR, "title": "a|b<script>"}
    cell = render_markdown(build_report(side(tool("a", {"q": STR})), side(tool("a", {"q": odd}))))
    assert "a\\|b\\<script>" in cell and " <script>" not in cell


TRICKY = [
    'pattern of input \'slug\' changed: "^[a-z0-9]+(-[a-z0-9]+)*$" -> "^[a-z]+([-_][a-z]+)*$"',
    "a|b<script>x</script> `c` *d* _e_ [f](g) ~~h~~ &amp; back\\slash",
    "input 'in_stock_only' removed; _private_ and snake_case_ and __dunder__",
    "output 'result[].tags[]' added; [x]: http://example.com [y][x] [z]:",
]


def test_escape_markdown_is_plain_backslash_escaping() -> None:
    assert escape_markdown("x*y|<a>`&~\\") == "x\\*y\\|\\<a>\\`\\&\\~\\\\"
    assert escape_markdown("in_stock _x_ [-_] a[] [l](u) [r][s]") == (
        "in_stock \\_x\\_ [-\\_] a[] [l\\](u) [r\\][s]"
    )


@pytest.mark.parametrize("text", TRICKY)
def test_escaped_markdown_renders_as_the_original_text(text: str) -> None:
    import markdown_it  # a test dependency (extra `test`), never skipped

    renderer = markdown_it.MarkdownIt("commonmark").enable("table")
    for source in (f"- {escape_markdown(text)}", f"| h |\n|---|\n| {escape_markdown(text)} |"):
        rendered = html.unescape(re.sub(r"<[^>]+>", "", renderer.render(source)))
        assert rendered.strip().splitlines()[-1].strip() == text


def test_terminal_colours_only_when_asked() -> None:
    report = report_for(*MIXED)
    plain, coloured = render_terminal(report), render_terminal(report, colour=True)
    assert "\033[" not in plain
    assert "\033[1;31mBREAKING" in coloured
    assert re.sub(r"\033\[[0-9;]*m", "", coloured) == plain
    assert "shop/catalog.py:12" in plain
    assert "schema-set version: 1.4.2 -> 2.0.0 (major bump); HEAD still records 1.4.2" in plain
