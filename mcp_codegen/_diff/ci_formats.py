"""Render a ``DiffReport`` for CI systems: SARIF 2.1.0 (code scanning) and JUnit XML (test
reports). Both are deterministic: no timestamps, no absolute paths."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET

from mcp_codegen import __version__
from mcp_codegen._diff.changes import Change, Level
from mcp_codegen._diff.policy import FAIL_ON, FAIL_ON_ALIASES, fails
from mcp_codegen._diff.report import DiffReport
from mcp_codegen._diff.rules import all_rules, render_rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Level.ERROR: "error", Level.WARN: "warning", Level.INFO: "note", Level.OFF: "none"}


def _fingerprint(change: Change) -> str:
    """Stable across runs and line moves: the tool, the rule and the pointer."""
    key = f"{change.tool}\0{change.kind.rule}\0{change.pointer}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _pascal(rule_id: str) -> str:
    return "".join(part.capitalize() for part in rule_id.split("-"))


def render_sarif(report: DiffReport, path_prefix: str = "", docs_url: str | None = None) -> str:
    """One SARIF run: every rule's metadata (its documentation inline, and its ``helpUri`` on the
    rules page at ``docs_url`` when one is known), one result per change.

    An acknowledged change carries an accepted external suppression with its reason, so code
    scanning shows it as dismissed rather than open.
    """
    rules = list(all_rules().values())
    index = {rule.id: i for i, rule in enumerate(rules)}
    driver: dict[str, object] = {
        "name": "mcp-codegen",
        "semanticVersion": __version__,
        "rules": [
            {
                "id": rule.id,
                "name": _pascal(rule.id),
                "shortDescription": {"text": rule.doc.summary},
                "fullDescription": {"text": f"{rule.doc.summary} {rule.doc.why}"},
                **({"helpUri": rule.help_uri(docs_url)} if docs_url else {}),
                "help": {"text": rule.doc.why, "markdown": render_rule(rule)},
                "defaultConfiguration": {"level": _SARIF_LEVEL[rule.default_level]},
                "properties": {
                    "severity": rule.kind.severity.value,
                    "tags": ["mcp", "schema", rule.kind.severity.value],
                },
            }
            for rule in rules
        ],
    }
    if docs_url:
        driver["informationUri"] = docs_url
    results = []
    for change in report.changes:
        result: dict[str, object] = {
            "ruleId": change.kind.rule,
            "ruleIndex": index[change.kind.rule],
            "level": _SARIF_LEVEL[change.effective_level],
            "message": {"text": f"{change.tool}: {change.message} ({change.pointer or '/'})"},
            "partialFingerprints": {"mcpSchemaChange/v1": _fingerprint(change)},
            "properties": {
                "tool": change.tool,
                "pointer": change.pointer,
                "severity": change.severity.value,
            },
        }
        location: dict[str, object] = {
            "logicalLocations": [
                {
                    "name": change.tool,
                    "fullyQualifiedName": f"{change.tool}{change.pointer}",
                    "kind": "member",
                }
            ]
        }
        if change.path is not None:
            physical: dict[str, object] = {
                "artifactLocation": {"uri": path_prefix + change.path, "uriBaseId": "%SRCROOT%"}
            }
            if change.line:
                physical["region"] = {"startLine": change.line}
            location["physicalLocation"] = physical
        result["locations"] = [location]
        if change.acknowledged is not None:
            result["suppressions"] = [
                {"kind": "external", "status": "accepted", "justification": change.acknowledged}
            ]
        results.append(result)
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "automationDetails": {"id": "mcp-codegen/diff/"},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_junit(report: DiffReport, fail_on: str = "error") -> str:
    """One test case per tool: failed when an unacknowledged change of the tool fails the gate,
    skipped when ``exclude`` leaves it out, passed otherwise; every change is in its output."""
    threshold = FAIL_ON[FAIL_ON_ALIASES.get(fail_on, fail_on)]
    by_tool: dict[str, list[Change]] = {}
    for change in report.changes:
        by_tool.setdefault(change.tool, []).append(change)
    names = sorted(set(report.tools) | set(by_tool) | set(report.excluded))
    suite = ET.Element("testsuite", name="mcp-codegen diff")
    failures = skipped = 0
    for name in names:
        case = ET.SubElement(suite, "testcase", classname="mcp.tools", name=name)
        changes = by_tool.get(name, [])
        if name in report.excluded:
            skipped += 1
            ET.SubElement(case, "skipped", message="excluded by [tool.mcp-codegen.diff] exclude")
            continue
        failing = [c for c in changes if fails([c], threshold)]
        if failing:
            failures += 1
            failure = ET.SubElement(
                case,
                "failure",
                message=f"{len(failing)} change(s) fail --fail-on {fail_on}",
                type=failing[0].kind.rule,
            )
            failure.text = "\n".join(_line(c) for c in failing)
        if changes:
            ET.SubElement(case, "system-out").text = "\n".join(_line(c) for c in changes)
    suite.set("tests", str(len(names)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    root = ET.Element("testsuites", name="mcp-codegen diff")
    root.set("tests", str(len(names)))
    root.set("failures", str(failures))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _line(change: Change) -> str:
    where = f" at {change.path}:{change.line}" if change.path and change.line else ""
    note = f" [acknowledged: {change.acknowledged}]" if change.acknowledged is not None else ""
    return (
        f"{change.effective_level.value} {change.kind.rule}: {change.message} "
        f"({change.pointer or '/'}){where}{note}"
    )
