"""Client-aware rules through the CLI: profiles, the name budget and the size limit come from
``[tool.mcp-codegen]``; without profiles or limits only the (default) name budget applies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_codegen._cli.diff_options import main
from tests.diff.rules.trees import tool, write_tree

S = {"type": "string"}


def run(root: Path, capsys: Any) -> tuple[int, dict[str, Any]]:
    argv = [str(root / "base"), str(root / "head"), "--config", str(root / "pyproject.toml")]
    code = main([*argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_profiles_budget_and_size_from_the_config(tmp_path: Path, capsys: Any) -> None:
    write_tree(tmp_path / "base", [tool("search", {"q": S})])
    long_name = "find_" + "x" * 60
    write_tree(
        tmp_path / "head",
        [tool("search", {"q": S, "filters": {"type": "object"}}), tool(long_name, {"q": S})],
    )
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    code, document = run(tmp_path, capsys)
    # No profiles or size limits configured; name_budget defaults to 60.
    rules = {c["rule"] for c in document["changes"]}
    assert rules == {"input-optional-added", "tool-added", "name-over-budget"}
    assert code == 1

    config.write_text(
        '[tool.mcp-codegen]\nsources = ["pkg"]\nprofiles = ["openai-strict"]\n'
        "max_total_bytes = 200\n"
    )
    code, document = run(tmp_path, capsys)
    found = {(c["rule"], c["tool"], c["pointer"]): c for c in document["changes"]}
    fails = found[
        ("client-profile-fails", "search", "/inputSchema/properties/filters/additionalProperties")
    ]
    assert fails["severity"] == "breaking" and "openai-strict" in fails["message"]
    assert fails["line"] == 5 and fails["path"] == "pkg/tools.py"
    assert ("name-over-budget", long_name, "/name") in found
    assert ("size-limit-exceeded", "(all tools)", "") in found
    assert code == 1
