"""``mcp-codegen verify --against module:object`` through the real command line.

Each run imports a real server object of one of the frameworks in a child process and compares its
tools/list with the generated modules of the corpus (built once, in conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._generator.verify import ABSENT, Mismatch, compare_tools
from tests.helpers.corpus import PUBLISHED, build_flavor
from tests.helpers.project import run_codegen

pytestmark = pytest.mark.process


def _verify(build: dict[str, Any], target: str, *extra: str) -> Any:
    root: Path = build["root"]
    return run_codegen(
        root, "--config", str(root / "pyproject.toml"), "verify", "--against", target, *extra
    )


@pytest.mark.parametrize(
    ("package", "target", "framework"),
    [
        ("sdk2", "published.sdk2.server:mcp", "an MCP SDK 2.x MCPServer"),
        ("sdk2", "published.sdk2.server:make_server()", "an MCP SDK 2.x MCPServer"),
        ("sdk1", "published.sdk1.server:mcp", "an MCP SDK 2.x MCPServer"),
        ("fastmcp_style", "published.fastmcp_style.server:mcp", "a fastmcp.FastMCP"),
        ("fastmcp_style", "published.fastmcp_style.server:create_server()", "a fastmcp.FastMCP"),
    ],
)
def test_verify_passes_when_the_generated_tools_equal_the_server(
    corpus: dict[str, dict[str, Any]], package: str, target: str, framework: str
) -> None:
    done = _verify(corpus[package], target)
    assert done.returncode == 0, done.stdout + done.stderr
    count = len(corpus[package]["wire"])
    assert done.stdout.strip() == (
        f"mcp-codegen verify: the {count} generated tools equal what {target} ({framework}) serves"
    )


def test_verify_reports_every_mismatch_as_tool_pointer_theirs_ours(
    corpus: dict[str, dict[str, Any]],
) -> None:
    done = _verify(corpus["sdk2"], "published.sdk2_next.server:make_server()")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    # A changed docstring, a changed default, a new parameter, a renamed function.
    assert (
        'list_tables -> /description -> theirs: "Names of the tables and views in a schema." '
        '/ ours: "Names of the tables in a schema."'
    ) in lines
    assert (
        'list_tables -> /inputSchema/properties/schema/default -> theirs: "main" / ours: "public"'
        in lines
    )
    assert (
        'list_tables -> /inputSchema/properties/include_views -> theirs: {"default": false, '
        '"title": "Include Views", "type": "boolean"} / ours: (absent)'
    ) in lines
    assert (
        'list_tables -> /inputSchema/title -> theirs: "list_tables_v2Arguments" '
        '/ ours: "list_tablesArguments"'
    ) in lines
    assert (
        'list_tables -> /outputSchema/title -> theirs: "list_tables_v2Output" '
        '/ ours: "list_tablesOutput"'
    ) in lines
    # A tool only the server has, and the generated tools the server no longer has.
    assert 'shell_exec -> (whole tool) -> theirs: "listed" / ours: (absent)' in lines
    assert 'add_note -> (whole tool) -> theirs: (absent) / ours: "listed"' in lines
    # The two database tools that did not change are not mentioned.
    assert not [line for line in lines if line.startswith(("query ", "describe_table "))]
    assert len(lines) == 5 + 1 + (len(corpus["sdk2"]["wire"]) - 3)
    assert "difference(s) in" in done.stderr


def test_verify_against_a_clean_build_hints_at_the_flavor(
    tmp_path: Path, corpus: dict[str, dict[str, Any]]
) -> None:
    _, output = build_flavor(tmp_path, "clean", [PUBLISHED / "sdk1"])
    done = _verify({"root": tmp_path, "output": output}, "published.sdk1.server:mcp")
    assert done.returncode == 1
    # Clean drops the titles the SDK adds; each one is reported.
    assert (
        'get_alerts -> /inputSchema/properties/state/title -> theirs: "State" / ours: (absent)'
        in (done.stdout.splitlines())
    )
    assert 'hint: the generated modules use flavor "clean"; set flavor = "mcp"' in done.stderr


def test_verify_accepts_a_low_level_server_such_as_the_codegen_runtime(
    corpus: dict[str, dict[str, Any]],
) -> None:
    build = corpus["fastmcp_style"]
    (build["root"] / "serve_generated.py").write_text(
        "from mcp_codegen.runtime import load_tools\n"
        "from mcp_codegen.runtime._serve.server import build_server\n"
        "server = build_server(load_tools('generated'))\n",
        encoding="utf-8",
    )
    done = _verify(build, "serve_generated:server")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(a low-level MCP SDK Server)" in done.stdout


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("published.sdk2.server", "write module:object"),
        ("published.sdk2.server:nothing_here", "has no attribute 'nothing_here'"),
        ("published.sdk2.constants:MAX_RESULTS", "builtins.int is not an MCP server object"),
        ("published.no_such_module:mcp", "ModuleNotFoundError: No module named"),
    ],
)
def test_verify_usage_errors_exit_2(
    corpus: dict[str, dict[str, Any]], target: str, message: str
) -> None:
    done = _verify(corpus["sdk2"], target)
    assert done.returncode == 2
    assert done.stderr.startswith("mcp-codegen verify: ")
    assert message in done.stderr


def test_compare_tools_uses_json_equality_and_rfc6901_pointers() -> None:
    theirs = [{"name": "t", "a/b": {"x~y": True}, "n": 1, "items": [1, 2]}]
    ours = [{"name": "t", "a/b": {"x~y": 1}, "n": 1.0, "items": [1]}]
    assert compare_tools(theirs, ours) == [
        Mismatch("t", "/a~1b/x~0y", True, 1),  # true is not 1 in JSON
        Mismatch("t", "/items/1", 2, ABSENT),  # 1 and 1.0 are the same number
    ]
    assert (
        str(Mismatch("t", "/items/1", 2, ABSENT)) == "t -> /items/1 -> theirs: 2 / ours: (absent)"
    )
    assert json.loads(json.dumps(theirs)) == theirs
