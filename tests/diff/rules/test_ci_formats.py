"""SARIF 2.1.0 (validated against the official OASIS schema), JUnit XML, and the published JSON
Schema of the JSON report, each from real ``mcp-codegen diff`` runs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcp_codegen._cli.diff_options import main
from mcp_codegen._diff.changes import ChangeKind
from mcp_codegen._diff.json_schema import REPORT_SCHEMA, render_schema
from tests.diff.rules.trees import tool, write_tree

FIXTURES = Path(__file__).parent / "fixtures"
S = {"type": "string"}
BASE = [
    tool("search", {"q": S, "genre": {"enum": ["a", "b"]}}, ("q",)),
    tool("stats", {}),
    tool("experimental_magic", {"x": S}),
]
HEAD = [
    tool("search", {"q": S, "genre": {"enum": ["a"]}, "limit": {"type": "integer"}}, ("q",)),
    tool("stats", {}, description="Now documented."),
]
ACK = """\
[[change]]
tool = "search"
rule = "input-enum-value-removed"
pointer = "/inputSchema/properties/genre/enum"
reason = "genre b is discontinued"

[[change]]
tool = "gone"
rule = "tool-removed"
pointer = ""
reason = "stale on purpose"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_tree(tmp_path / "base", BASE)
    write_tree(tmp_path / "head", HEAD)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["pkg"]\n\n[tool.mcp-codegen.diff]\n'
        'exclude = ["experimental_*"]\n'
    )
    (tmp_path / "mcp-schema-changes.toml").write_text(ACK)
    return tmp_path


def run(project: Path, capsys: Any, *extra: str) -> tuple[int, str]:
    argv = [
        str(project / "base"),
        str(project / "head"),
        "--config",
        str(project / "pyproject.toml"),
    ]
    code = main([*argv, *extra])
    return code, capsys.readouterr().out


def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


@pytest.mark.process
def test_sarif_is_valid_and_carries_rules_results_and_suppressions(
    project: Path, capsys: Any
) -> None:
    code, out = run(project, capsys, "--format", "sarif")
    assert code == 0  # the only error-level change is acknowledged
    document = json.loads(out)
    validator = sarif_validator()
    assert list(validator.iter_errors(document)) == []
    run_ = document["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [kind.rule for kind in ChangeKind]
    # No address is invented: without docs_url each rule's documentation travels inline.
    assert all("helpUri" not in rule for rule in rules)
    assert all(rule["help"]["markdown"].startswith("**Severity:**") for rule in rules)
    results = {(r["ruleId"], r["properties"]["tool"]): r for r in run_["results"]}
    assert set(results) == {
        ("input-enum-value-removed", "search"),
        ("input-optional-added", "search"),
        ("description-changed", "stats"),
    }
    enum = results[("input-enum-value-removed", "search")]
    assert enum["level"] == "error"
    assert rules[enum["ruleIndex"]]["id"] == "input-enum-value-removed"
    assert enum["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "genre b is discontinued"}
    ]
    physical = enum["locations"][0]["physicalLocation"]
    assert physical == {
        "artifactLocation": {"uri": "pkg/tools.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 5},
    }
    assert results[("input-optional-added", "search")]["level"] == "note"
    # The oracle is real: it rejects what SARIF forbids.
    enum["level"] = "fatal"
    assert list(validator.iter_errors(document))


def test_junit_has_one_test_case_per_tool(project: Path, capsys: Any) -> None:
    (project / "mcp-schema-changes.toml").unlink()
    code, out = run(project, capsys, "--format", "junit")
    assert code == 1
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    assert suite is not None
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert sorted(cases) == ["experimental_magic", "search", "stats"]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    failure = cases["search"].find("failure")
    assert failure is not None and failure.get("type") == "input-enum-value-removed"
    assert "no longer accepts" in (failure.text or "")
    assert cases["stats"].find("failure") is None
    assert "description-changed" in (cases["stats"].findtext("system-out") or "")
    assert cases["experimental_magic"].find("skipped") is not None


def test_json_schema_is_published_and_real_reports_validate(project: Path, capsys: Any) -> None:
    code, out = run(project, capsys, "--json-schema")
    assert code == 0 and json.loads(out) == REPORT_SCHEMA and out == render_schema()
    jsonschema.Draft202012Validator.check_schema(REPORT_SCHEMA)
    validator = jsonschema.Draft202012Validator(REPORT_SCHEMA)
    reports = [json.loads(run(project, capsys, "--format", "json")[1])]
    (project / "mcp-schema-changes.toml").unlink()
    reports.append(json.loads(run(project, capsys, "--format", "json")[1]))
    same = [str(project / "base")] * 2 + ["--config", str(project / "pyproject.toml")]
    assert main([*same, "--format", "json"]) == 0  # no changes at all
    reports.append(json.loads(capsys.readouterr().out))
    for report in reports:
        assert list(validator.iter_errors(report)) == []
    assert reports[0]["stale_acknowledgements"] and reports[0]["changes"]
    reports[0]["changes"][0]["surprise"] = 1  # closed objects: drift between the two fails
    assert list(validator.iter_errors(reports[0]))


@pytest.mark.process
def test_sarif_links_each_rule_to_its_section_of_the_configured_rules_page(
    project: Path, capsys: Any
) -> None:
    config = project / "pyproject.toml"
    page = "https://docs.example.org/mcp-codegen/diff-rules/"
    config.write_text(config.read_text() + f'docs_url = "{page}"\n')
    code, out = run(project, capsys, "--format", "sarif")
    assert code == 0
    document = json.loads(out)
    assert list(sarif_validator().iter_errors(document)) == []
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == page
    assert [rule["helpUri"] for rule in driver["rules"]] == [
        f"{page}#{kind.rule}" for kind in ChangeKind
    ]


def test_a_docs_url_that_is_not_an_address_is_a_config_error(project: Path, capsys: Any) -> None:
    config = project / "pyproject.toml"
    config.write_text(config.read_text() + 'docs_url = "docs/diff-rules.md"\n')
    code = main([str(project / "base"), str(project / "head"), "--config", str(config)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{config}:6:1: docs_url must be the https:// address of the rules page" in err
