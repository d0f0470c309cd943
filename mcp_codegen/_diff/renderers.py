"""Render a ``DiffReport`` for a terminal, a pull-request comment, a program, or GitHub Actions."""

from __future__ import annotations

import json
from collections.abc import Mapping

from mcp_codegen._diff.changes import Change, Level, Severity
from mcp_codegen._diff.growth import SizeReport, percent, signed
from mcp_codegen._diff.report import DiffReport, escape_markdown

_COLOURS = {
    Severity.BREAKING: "\033[1;31m",  # bold red
    Severity.UNKNOWN: "\033[1;35m",  # bold magenta
    Severity.COMPATIBLE: "\033[32m",  # green
    Severity.NOTABLE: "\033[36m",  # cyan
}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"
_MARKS = {
    Severity.BREAKING: "❌",
    Severity.UNKNOWN: "❓",
    Severity.COMPATIBLE: "✅",
    Severity.NOTABLE: "📝",
}
_ANNOTATION_LEVEL = {Level.ERROR: "error", Level.WARN: "warning", Level.INFO: "notice"}


def _annotation_level(change: Change) -> str:
    """An unacknowledged change's gate level; an acknowledged one is only a notice."""
    if change.acknowledged is not None:
        return "notice"
    return _ANNOTATION_LEVEL.get(change.effective_level, "notice")


def _ack_note(change: Change) -> str:
    return f" [acknowledged: {change.acknowledged}]" if change.acknowledged is not None else ""


def _stale_lines(report: DiffReport) -> list[str]:
    return [
        f"stale acknowledgement: {a.rule} of {a.tool!r} at {a.pointer or '/'} matches no change"
        for a in report.stale
    ]


def _summary(report: DiffReport) -> str:
    counts = report.counts
    parts = [f"{counts[s]} {s.value}" for s in Severity]
    tools = len(report.changed_tools())
    return f"{', '.join(parts)} in {tools} of {report.head_tools} tool(s)"


def _version_line(report: DiffReport) -> str:
    proposed = report.proposed_version
    if proposed is None:
        return "schema-set version: not recorded"
    if report.base_version is None:
        return f"schema-set version: {proposed} (first release; BASE has no generated tree)"
    line = f"schema-set version: {report.base_version} -> {proposed}"
    line += f" ({report.bump} bump)" if report.bump else " (unchanged)"
    if report.head_version_ok is False:
        line += f"; HEAD still records {report.head_version}"
    return line


def _dependency_line(report: DiffReport) -> str | None:
    """``dependencies: pydantic 2.11.0 -> 2.12.3, ...`` when the recorded versions differ."""
    moved = report.dependency_changes()
    if not moved:
        return None
    shown = ", ".join(f"{name} {old or 'none'} -> {new or 'none'}" for name, old, new in moved)
    return f"inference dependencies: {shown}"


def _where(change: Change) -> str:
    if change.path is None:
        return ""
    return f"{change.path}:{change.line}" if change.line else change.path


def render_terminal(report: DiffReport, colour: bool = False) -> str:
    """Grouped by tool, most severe first; ANSI colours when ``colour``."""

    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    lines = [
        paint(f"mcp-codegen diff: {report.base_label} -> {report.head_label}", _BOLD),
        f"  {_version_line(report)}",
    ]
    if (dependencies := _dependency_line(report)) is not None:
        lines.append(f"  {dependencies}")
    current, header_path, header_line = None, None, 0
    for change in report.changes:
        if change.tool != current:
            current, header_path, header_line = change.tool, change.path, change.line
            where = _where(change)
            lines += ["", paint(change.tool, _BOLD) + (f"  {paint(where, _DIM)}" if where else "")]
        label = change.severity.value
        if change.severity in (Severity.BREAKING, Severity.UNKNOWN):
            label = label.upper()
        badge = paint(f"{label:<10}", _COLOURS[change.severity])
        pointer = paint(change.pointer or "/", _DIM)
        # A change on another line than the tool's first one (another parameter or field) says
        # where; in another file (a model's module), with the file.
        at = ""
        if change.path != header_path and change.line:
            at = paint(f"  {_where(change)}", _DIM)
        elif change.line not in (0, header_line):
            at = paint(f"  line {change.line}", _DIM)
        lines.append(f"  {badge} {change.message}  {pointer}{at}{_ack_note(change)}")
    lines += ["", _summary(report) if report.changes else "no schema changes"]
    lines += _stale_lines(report)
    if report.size is not None:
        lines += _size_terminal(report.size)
    return "\n".join(lines) + "\n"


def _size_line(size: SizeReport) -> str:
    return (
        f"tools/list size: {size.base_bytes:,} -> {size.head_bytes:,} bytes "
        f"({signed(size.delta_bytes)}, {percent(size.delta_bytes, size.base_bytes)}); "
        f"~{size.base_tokens:,} -> ~{size.head_tokens:,} tokens ({signed(size.delta_tokens)}, "
        f"{size.tokenizer})"
    )


def _bytes(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _size_terminal(size: SizeReport) -> list[str]:
    lines = [_size_line(size)]
    for row in size.tools:
        lines.append(
            f"  {row.tool}: {_bytes(row.base_bytes)} -> {_bytes(row.head_bytes)} bytes "
            f"({signed(row.delta_bytes)}; {signed(row.delta_tokens)} tokens)"
        )
    return lines


def _size_markdown(size: SizeReport) -> list[str]:
    lines = [
        "",
        f"**Context cost:** {escape_markdown(_size_line(size))}",
    ]
    if size.tools:
        lines += [
            "",
            "| Tool | Base bytes | Head bytes | Δ bytes | Δ tokens |",
            "|---|---:|---:|---:|---:|",
            *(
                f"| `{row.tool}` | {_bytes(row.base_bytes)} | {_bytes(row.head_bytes)} | "
                f"{signed(row.delta_bytes)} | {signed(row.delta_tokens)} |"
                for row in size.tools
            ),
            f"| **total** | {size.base_bytes:,} | {size.head_bytes:,} | "
            f"{signed(size.delta_bytes)} | {signed(size.delta_tokens)} |",
        ]
    return lines


def render_markdown(report: DiffReport) -> str:
    """A pull-request comment: summary table, then one table per severity."""
    lines = [
        f"### MCP tool schema changes: `{report.base_label}` → `{report.head_label}`",
        "",
    ]
    size = _size_markdown(report.size) if report.size is not None else []
    if (dependencies := _dependency_line(report)) is not None:
        lines += [f"_{escape_markdown(dependencies)}_", ""]
    if not report.changes:
        lines += ["No schema changes.", "", f"_{_version_line(report)}_", *size]
        return "\n".join(lines) + "\n"
    counts = report.counts
    version = _version_line(report)
    lines += [
        "| | Severity | Changes |",
        "|---|---|---:|",
        *(f"| {_MARKS[s]} | {s.value} | {counts[s]} |" for s in Severity),
        "",
        f"**{version[0].upper()}{version[1:]}**",
        *size,
    ]
    if report.stale:
        lines += ["", *(f"- ⚠️ {escape_markdown(line)}" for line in _stale_lines(report))]
    for severity in Severity:
        group = [c for c in report.changes if c.severity is severity]
        if not group:
            continue
        title = f"{_MARKS[severity]} {severity.value.capitalize()} ({len(group)})"
        rows = [
            "| Tool | Change | Pointer | Source |",
            "|---|---|---|---|",
            *(
                f"| `{c.tool}` | {escape_markdown(c.message + _ack_note(c))} | "
                f"`{c.pointer or '/'}` | "
                f"{f'`{_where(c)}`' if _where(c) else ''} |"
                for c in group
            ),
        ]
        if severity in (Severity.BREAKING, Severity.UNKNOWN):
            lines += ["", f"#### {title}", "", *rows]
        else:  # reviewers expand these when they care
            lines += ["", f"<details><summary>{title}</summary>", "", *rows, "", "</details>"]
    return "\n".join(lines) + "\n"


def _dict_or_none(value: Mapping[str, str] | None) -> dict[str, str] | None:
    return dict(value) if value is not None else None


def render_json(report: DiffReport) -> str:
    """A stable JSON document (sorted changes, fixed keys)."""
    document = {
        "base": {
            "label": report.base_label,
            "version": report.base_version,
            "tools": report.base_tools,
            "dependencies": _dict_or_none(report.base_dependencies),
        },
        "head": {
            "label": report.head_label,
            "version": report.head_version,
            "tools": report.head_tools,
            "dependencies": _dict_or_none(report.head_dependencies),
        },
        "summary": {s.value: n for s, n in report.counts.items()},
        "version": {
            "bump": report.bump,
            "proposed": report.proposed_version,
            "head_satisfies": report.head_version_ok,
        },
        "changes": [change.to_json() for change in report.changes],
        "stale_acknowledgements": [
            {"tool": a.tool, "rule": a.rule, "pointer": a.pointer, "reason": a.reason}
            for a in report.stale
        ],
        "size": report.size.to_json() if report.size is not None else None,
    }
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: DiffReport, path_prefix: str = "") -> str:
    """GitHub workflow commands: one annotation per change, at the tool's source line.

    ``path_prefix`` turns project-relative source paths into repository-relative ones.
    """
    lines: list[str] = []
    for change in report.changes:
        properties = []
        if change.path is not None:
            properties.append(f"file={_escape_property(path_prefix + change.path)}")
            if change.line:
                properties.append(f"line={change.line}")
        properties.append(f"title={_escape_property(f'MCP schema {change.kind.rule}')}")
        message = f"{change.tool}: {change.message} ({change.pointer or '/'}){_ack_note(change)}"
        level = _annotation_level(change)
        lines.append(f"::{level} {','.join(properties)}::{_escape_data(message)}")
    if report.size is not None:
        for row in report.size.tools:
            where = [f"file={_escape_property(path_prefix + row.path)}"] if row.path else []
            where += [f"line={row.line}"] if row.path and row.line else []
            where.append(f"title={_escape_property('MCP tools/list size')}")
            message = (
                f"{row.tool}: {_bytes(row.base_bytes)} -> {_bytes(row.head_bytes)} bytes "
                f"({signed(row.delta_bytes)}; {signed(row.delta_tokens)} tokens)"
            )
            lines.append(f"::notice {','.join(where)}::{_escape_data(message)}")
    summary = _summary(report) if report.changes else "no schema changes"
    if report.size is not None:
        summary += f"; {_size_line(report.size)}"
    if (dependencies := _dependency_line(report)) is not None:
        summary += f"; {dependencies}"
    lines.append(
        f"::notice title=mcp-codegen diff::{_escape_data(summary)}; "
        f"{_escape_data(_version_line(report))}"
    )
    return "\n".join(lines) + "\n"
