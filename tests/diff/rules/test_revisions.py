"""The output schema per protocol revision: a module rebuilt for 2026-07-28 alone stops serving
older clients, and ``diff`` says so under its own rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_codegen._cli.diff_options import main
from tests.diff.rules.trees import tool, write_tree

ALL = ("2025-06-18", "2025-11-25", "2026-07-28")


def test_module_built_for_the_newest_revision_only(tmp_path: Path, capsys: Any) -> None:
    tools = [tool("search", {"q": {"type": "string"}})]
    write_tree(tmp_path / "base", tools, protocols=ALL)
    write_tree(tmp_path / "head", tools, protocols=("2026-07-28",))
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    argv = ["--config", str(tmp_path / "pyproject.toml"), "--format", "json"]
    code = main([str(tmp_path / "base"), str(tmp_path / "head"), *argv])
    (change,) = json.loads(capsys.readouterr().out)["changes"]
    assert code == 1
    assert (change["rule"], change["severity"], change["pointer"]) == (
        "output-revisions-dropped",
        "breaking",
        "/outputSchema",
    )
    assert "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25" in change["message"]
    code = main([str(tmp_path / "head"), str(tmp_path / "base"), *argv])
    (change,) = json.loads(capsys.readouterr().out)["changes"]
    assert (code, change["rule"]) == (0, "output-revisions-added")
