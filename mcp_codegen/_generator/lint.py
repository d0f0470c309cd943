"""``mcp-codegen lint``: what each client profile changes or loses, name limits, size budget.

Reads the generated tree without importing it (``mcp_codegen._shared.reader``) and reports one line per
finding: ``source:line:col: kind: tool -> JSON pointer: message [profile]``. Without
``--strict`` it only reports; with ``--strict`` any finding other than ``changed`` exits 1.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_codegen._generator.config import Config
from mcp_codegen._profiles import Finding, apply_profile
from mcp_codegen._profiles.budget import check_budget, payload_bytes, token_counter, tool_sizes
from mcp_codegen._profiles.name_limits import check_names
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import PRIVATE_KEY
from mcp_codegen._shared.reader import read_tree, wire_tools


@dataclass(frozen=True)
class LintResult:
    """The served tools, where each one's source is, and every finding."""

    tools: list[dict[str, Any]]
    where: dict[str, tuple[str, int, int]]
    findings: list[Finding]

    def failures(self) -> list[Finding]:
        """What fails ``--strict``: everything but faithful changes."""
        return [f for f in self.findings if f.kind != "changed"]


def read_served(output: Path) -> tuple[list[dict[str, Any]], dict[str, tuple[str, int, int]]]:
    """The tools/list entries of a generated tree and ``name -> (source, line, column)``."""
    _, modules = read_tree(output)
    where: dict[str, tuple[str, int, int]] = {}
    for module in modules:
        for tool in module.get("TOOLS", ()):
            meta = tool.get(PRIVATE_KEY) or {}
            where[tool["name"]] = (
                str(module.get("SOURCE_PATH", "")),
                int(meta.get("line", 0) or 0),
                int(meta.get("column", 0) or 0),
            )
    return wire_tools(modules), where


def lint(config: Config, output: Path, profiles: tuple[str, ...]) -> LintResult:
    """Every finding for the generated tree at ``output``."""
    tools, where = read_served(output)
    findings: list[Finding] = []
    for profile in profiles:
        findings += apply_profile(tools, profile).findings
    findings += check_names([t["name"] for t in tools], config.server_name, config.name_budget)
    findings += check_budget(tools, config.max_tool_bytes, config.max_total_bytes, config.tokenizer)
    return LintResult(tools, where, findings)


def diagnostic(finding: Finding, where: dict[str, tuple[str, int, int]]) -> Diagnostic:
    """A finding as a ``path:line:col`` diagnostic at its tool's source."""
    path, line, column = where.get(finding.tool, ("(tools/list)", 0, 0))
    pointer = f" -> {finding.pointer}" if finding.pointer else ""
    kind = "" if finding.kind == "warning" else f"{finding.kind}: "  # said once, as severity
    return Diagnostic(
        path or "(tools/list)",
        line,
        column,
        f"{kind}{finding.tool}{pointer}: {finding.message} [{finding.profile}: "
        f"{finding.transform}]",
        severity="warning" if finding.kind != "changed" else "note",
    )


def render_text(result: LintResult, strict: bool, tokenizer: str, sizes: bool = False) -> str:
    """One line per finding, then (with ``sizes``) each tool's size, largest first, then a
    summary with the payload size."""
    lines = [str(diagnostic(f, result.where)) for f in result.findings]
    if sizes:
        measured = tool_sizes(result.tools, tokenizer)
        for name, (size, tokens) in sorted(
            measured.items(), key=lambda item: (-item[1][0], item[0])
        ):
            lines.append(f"{size:>9,} bytes  ~{tokens:>7,} tokens  {name}")
    counts: dict[str, int] = {}
    for finding in result.findings:
        counts[finding.kind] = counts.get(finding.kind, 0) + 1
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "no findings"
    size = payload_bytes(result.tools)
    tokens = token_counter(tokenizer)({"tools": result.tools})
    verdict = ""
    if strict:
        failing = len(result.failures())
        verdict = f"; --strict: {failing} failing" if failing else "; --strict: pass"
    lines.append(
        f"mcp-codegen lint: {len(result.tools)} tools, {size} bytes (~{tokens} tokens, "
        f"{tokenizer}); {summary}{verdict}"
    )
    return "\n".join(lines) + "\n"


def render_json(result: LintResult, tokenizer: str) -> str:
    """A stable JSON document: findings with their source, and the payload size."""
    document = {
        "tools": len(result.tools),
        "bytes": payload_bytes(result.tools),
        "tokens": token_counter(tokenizer)({"tools": result.tools}),
        "tokenizer": tokenizer,
        "sizes": {
            name: {"bytes": size, "tokens": tokens}
            for name, (size, tokens) in tool_sizes(result.tools, tokenizer).items()
        },
        "findings": [
            {
                **finding.to_json(),
                "source": dict(
                    zip(
                        ("path", "line", "column"),
                        result.where.get(finding.tool, ("", 0, 0)),
                        strict=True,
                    )
                ),
            }
            for finding in result.findings
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
