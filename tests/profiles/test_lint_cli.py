"""``lint``, ``export --profile`` and the name warnings of ``generate``, through the real command
line on a throw-away project."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from mcp_codegen._profiles.budget import payload_bytes, wire_bytes
from mcp_codegen._profiles.name_limits import check_names
from tests.helpers.project import Project

LONG = "fetch_every_open_purchase_order_for_a_supplier_by_region"  # 56 characters
TOOLS = f'''
from typing import Optional

from mcp_codegen.decorators import tool


@tool
def {LONG}(region: str, limit: Optional[int] = None) -> list[str]:
    """List purchase orders."""
    return []


@tool(name="shout")
def upper(text: str) -> str:
    """Upper-case some text."""
    return text.upper()
'''


@pytest.fixture
def built(project: Project) -> Project:
    project.configure('sources = ["pkg"]\nserver_name = "purchasing"\nmax_tool_bytes = 300\n')
    project.write("pkg/tools.py", TOOLS)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    # 10 + 56 = 66 characters: over Cursor's 60, so generate warns (and still succeeds).
    assert (
        "pkg/tools.py:7:1: warning: server name 'purchasing' plus tool name is 66 characters; "
        "clients such as Cursor drop tools past 60 (name_budget); shorten the name"
    ) in done.stderr.splitlines()
    return project


@pytest.mark.process
def test_lint_reports_and_strict_fails(built: Project) -> None:
    plain = built.run("lint", "--profile", "gemini")
    assert plain.returncode == 0, plain.stderr
    strict = built.run("lint", "--profile", "gemini", "--strict")
    assert strict.returncode == 1
    assert strict.stdout.splitlines()[:-1] == plain.stdout.splitlines()[:-1]
    lines = strict.stdout.splitlines()
    assert (
        f"pkg/tools.py:7:1: warning: loosened: {LONG} -> /inputSchema/additionalProperties: "
        "`additionalProperties` dropped: Gemini does not support it, so the client no longer "
        "checks extra keys [gemini: drop_additional_properties]"
    ) in lines
    assert any("max_tool_bytes = 300" in line for line in lines)
    assert lines[-1].endswith("failing")


@pytest.mark.process
def test_lint_json_and_config_profiles(built: Project) -> None:
    built.configure('sources = ["pkg"]\nprofiles = ["openai-strict", "claude"]\n')
    done = built.run("lint", "--format", "json", "--strict")
    assert done.returncode == 1
    document = json.loads(done.stdout)
    exported = json.loads(built.run("export").stdout)
    assert document["bytes"] == payload_bytes(exported["tools"])
    assert document["tokens"] == -(-document["bytes"] // 4)
    for tool in exported["tools"]:
        assert document["sizes"][tool["name"]]["bytes"] == wire_bytes(tool)
    sizes = [
        line for line in built.run("lint", "--sizes").stdout.splitlines() if " bytes  ~" in line
    ]
    assert len(sizes) == 2
    assert sizes[0].endswith(f"tokens  {LONG}")  # the larger of the two tools comes first
    assert sizes[1].endswith("tokens  shout")
    assert {f["profile"] for f in document["findings"]} == {"openai-strict"}
    nullable = next(f for f in document["findings"] if f["kind"] == "changed")
    assert nullable["pointer"] == "/inputSchema/properties/limit"
    assert nullable["source"] == {"path": "pkg/tools.py", "line": 7, "column": 1}


@pytest.mark.process
def test_lint_without_findings_passes_strict(project: Project) -> None:
    project.write(
        "pkg/tools.py",
        TOOLS.replace(LONG, "orders").replace("limit: Optional[int] = None", "limit: int"),
    )
    assert project.run("generate").returncode == 0
    done = project.run("lint", "--strict", "--profile", "claude")
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1].endswith("no findings; --strict: pass")


@pytest.mark.process
def test_export_profile_prints_client_ready_tools(built: Project) -> None:
    done = built.run("export", "--profile", "openai-strict")
    assert done.returncode == 0, done.stderr
    tools = {t["name"]: t for t in json.loads(done.stdout)["tools"]}
    schema = tools[LONG]["inputSchema"]
    assert schema["required"] == ["region", "limit"]
    # Optional[int] already admits null: it only becomes required.
    assert schema["properties"]["limit"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    Draft202012Validator.check_schema(schema)
    assert "lost: `default` dropped" in done.stderr


@pytest.mark.process
def test_bad_profile_config_is_a_positioned_usage_error(project: Project) -> None:
    project.configure('sources = ["pkg"]\nprofiles = ["gemeni"]\nname_budget = 0\n')
    done = project.run("lint")
    assert done.returncode == 2
    assert "pyproject.toml:3:1: unknown profile 'gemeni' in profiles; did you mean 'gemini'?" in (
        done.stderr
    )
    assert "pyproject.toml:4:1: name_budget must be at least 1" in done.stderr


def test_name_limits() -> None:
    found = check_names(["ok_name", "has space", "dotted.name", "x" * 65, "y" * 129], "srv", 60)
    by_tool: dict[str, list[str]] = {}
    for finding in found:
        by_tool.setdefault(finding.tool, []).append(finding.message.split(" ")[0])
    # "dotted.name" is a valid MCP name but not a function name for OpenAI / Gemini.
    assert by_tool == {
        "has space": ["the", "model"],
        "dotted.name": ["model"],
        "x" * 65: ["model", "server"],
        "y" * 129: ["the", "model", "server"],
    }
    assert not check_names(["a" * 60], "", 60)
    assert check_names(["a" * 58], "abc", 60)[0].message.startswith(
        "server name 'abc' plus tool name is 61 characters"
    )


def test_wire_bytes_are_compact_utf8_json() -> None:
    assert wire_bytes({"a": [1, "é"]}) == len('{"a":[1,"é"]}'.encode())  # 14 bytes
    assert wire_bytes({"a": [1, "é"]}) == 14
