"""End to end: a temporary git repository with two commits of generated modules, diffed by the CLI."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._cli.diff_options import add_parser
from tests.diff.diff_support import INT, NUM, STR, git, obj, tool, write_tree

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = """\
[project]
name = "shop"
version = "0.0.0"

[tool.mcp-codegen]
sources = ["shop"]
output = "generated"
version = "{version}"
"""
GENRE = {"type": "string", "enum": ["fiction", "poetry", "science"]}
V1 = {
    "shop/catalog.py": [
        tool("search_books", {"query": STR, "genre": GENRE}, ("query",), line=14),
        tool(
            "reserve_book",
            {"isbn": STR},
            ("isbn",),
            function="shop.catalog:reserve_book",
            annotations={"readOnlyHint": False, "destructiveHint": False},
            line=40,
        ),
    ],
    "shop/reports.py": [tool("stats", output=obj({"count": INT}, ("count",)), line=8)],
}
V2 = {
    "shop/catalog.py": [
        tool(
            "search_books",
            {"query": STR, "genre": {**GENRE, "enum": ["fiction", "science"]}, "limit": INT},
            ("query",),
            line=14,
        ),
        tool(
            "hold_book",
            {"isbn": STR},
            ("isbn",),
            function="shop.catalog:reserve_book",
            annotations={"readOnlyHint": False, "destructiveHint": False},
            line=41,
        ),
        tool("recommend", {"isbn": STR}, ("isbn",), line=60),
    ],
    "shop/reports.py": [tool("stats", output=obj({"count": INT, "mean": NUM}, ("count",)), line=8)],
}
EXPECTED_V1_TO_V2 = {
    ("search_books", "input_enum_value_removed"),
    ("search_books", "input_optional_added"),
    ("hold_book", "tool_renamed"),
    ("recommend", "tool_added"),
    ("stats", "output_field_added"),
}


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: the project with generated tree V1; feature (checked out): V2."""
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(version="1.0.0"))
    _commit(tmp_path, "project without generated modules")
    write_tree(tmp_path / "generated", V1, version="1.0.0")
    _commit(tmp_path, "generate v1")
    git(tmp_path, "checkout", "-q", "-b", "feature")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(version="2.0.0"))
    write_tree(tmp_path / "generated", V2, version="2.0.0")
    _commit(tmp_path, "generate v2")
    return tmp_path


def run_cli(
    argv: list[str], repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> tuple[int, str, str]:
    """Parse ``diff ARGV`` with the sub-command parser, as ``mcp-codegen`` wires it, and run."""
    parser = argparse.ArgumentParser(prog="mcp-codegen")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diff", *argv])
    monkeypatch.chdir(repo)
    code = int(args.handler(args))
    out, err = capsys.readouterr()
    return code, out, err


def kinds(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(change["tool"], change["kind"]) for change in document["changes"]}


@pytest.mark.process
def test_two_commits_json(repo: Path, capsys: Any, monkeypatch: Any) -> None:
    code, out, _ = run_cli(["main", "feature", "--format", "json"], repo, capsys, monkeypatch)
    document = json.loads(out)
    assert kinds(document) == EXPECTED_V1_TO_V2
    assert code == 1  # an input enum value was removed, and a tool renamed
    assert document["version"] == {"bump": "major", "proposed": "2.0.0", "head_satisfies": True}
    assert (document["base"]["version"], document["head"]["version"]) == ("1.0.0", "2.0.0")
    assert (document["base"]["tools"], document["head"]["tools"]) == (3, 4)
    renamed = next(c for c in document["changes"] if c["kind"] == "tool_renamed")
    assert (renamed["old"], renamed["new"], renamed["line"]) == ("reserve_book", "hold_book", 41)


@pytest.mark.process
def test_defaults_are_merge_base_and_working_tree(
    repo: Path, capsys: Any, monkeypatch: Any
) -> None:
    # An uncommitted edit in the working tree is part of HEAD's side.
    edited = {**V2, "shop/reports.py": [tool("stats", output=obj({"mean": NUM}), line=8)]}
    write_tree(repo / "generated", edited, version="2.0.0")
    code, out, _ = run_cli(["--format", "json"], repo, capsys, monkeypatch)
    document = json.loads(out)
    assert document["base"]["label"].startswith("merge-base of HEAD and main (")
    assert document["head"]["label"] == "working tree (generated)"
    assert kinds(document) == EXPECTED_V1_TO_V2 | {("stats", "output_field_removed")}
    assert code == 1


@pytest.mark.process
def test_origin_head_is_the_default_branch(repo: Path, capsys: Any, monkeypatch: Any) -> None:
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    git(repo, "update-ref", "refs/remotes/origin/trunk", first)
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    code, out, _ = run_cli(["--format", "json", "--fail-on", "any"], repo, capsys, monkeypatch)
    document = json.loads(out)
    # origin/trunk predates the generated tree: every tool is new, and the version is HEAD's.
    assert document["base"]["label"].startswith("merge-base of HEAD and origin/trunk")
    assert kinds(document) == {
        (name, "tool_added") for name in ("search_books", "hold_book", "recommend", "stats")
    }
    assert document["version"]["proposed"] == "2.0.0"
    assert code == 1  # --fail-on any


@pytest.mark.process
def test_fail_on(repo: Path, capsys: Any, monkeypatch: Any) -> None:
    compatible_only = {**V1, "shop/reports.py": V2["shop/reports.py"]}
    write_tree(repo / "generated", compatible_only, version="1.1.0")
    assert run_cli(["main"], repo, capsys, monkeypatch)[0] == 0
    assert run_cli(["main", "--fail-on", "any"], repo, capsys, monkeypatch)[0] == 1
    assert run_cli(["main", "feature", "--fail-on", "never"], repo, capsys, monkeypatch)[0] == 0


def test_two_directories_without_git(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(version="1.0.0"))
    write_tree(tmp_path / "old", V1, version="1.0.0")
    write_tree(tmp_path / "new", V2, version="2.0.0")
    code, out, _ = run_cli(["old", "new", "--format", "json"], tmp_path, capsys, monkeypatch)
    assert kinds(json.loads(out)) == EXPECTED_V1_TO_V2
    assert code == 1


@pytest.mark.process
def test_write_changelog(repo: Path, capsys: Any, monkeypatch: Any) -> None:
    argv = ["main", "feature", "--write-changelog", "--date", "2026-11-20", "--fail-on", "never"]
    code, _, err = run_cli(argv, repo, capsys, monkeypatch)
    text = (repo / "CHANGELOG.md").read_text()
    assert code == 0
    assert "wrote the 2.0.0 entry" in err
    assert "## [2.0.0] - 2026-11-20" in text
    assert "- `hold_book`: tool 'reserve_book' looks renamed to 'hold_book' (`/name`)" in text


@pytest.mark.process
def test_usage_errors_exit_2(repo: Path, capsys: Any, monkeypatch: Any) -> None:
    code, _, err = run_cli(["no-such-rev", "feature"], repo, capsys, monkeypatch)
    assert code == 2 and "neither a directory nor a git revision" in err
    code, _, err = run_cli(["main", "--date", "20 Nov"], repo, capsys, monkeypatch)
    assert code == 2 and "YYYY-MM-DD" in err


@pytest.mark.process
def test_subproject_annotations_use_repository_paths(tmp_path: Path) -> None:
    """The project lives in app/; GitHub wants paths from the repository root."""
    git(tmp_path, "init", "-q", "-b", "main")
    project = tmp_path / "app"
    project.mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT.format(version="1.0.0"))
    write_tree(project / "generated", V1, version="1.0.0")
    _commit(tmp_path, "v1")
    write_tree(project / "generated", V2, version="2.0.0")
    done = _python(["-m", "mcp_codegen.diff", "--format", "github"], cwd=project)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert (
        "::error file=app/shop/catalog.py,line=14,title=MCP schema input-enum-value-removed::"
        "search_books: input 'genre' no longer accepts \"poetry\" "
        "(/inputSchema/properties/genre/enum)"
    ) in lines
    assert any(line.startswith("::error file=app/shop/catalog.py,line=41,") for line in lines)


def _python(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.process
def test_real_entry_points(repo: Path) -> None:
    """``python -m mcp_codegen.diff`` and ``python -m mcp_codegen diff`` (the mcp-codegen CLI)."""
    standalone = _python(["-m", "mcp_codegen.diff", "main", "feature", "--format", "json"], repo)
    assert standalone.returncode == 1, standalone.stderr
    assert kinds(json.loads(standalone.stdout)) == EXPECTED_V1_TO_V2
    wired = _python(["-m", "mcp_codegen", "diff", "main", "feature", "--fail-on", "never"], repo)
    assert wired.returncode == 0, wired.stderr
    assert "\033[" not in wired.stdout  # not a TTY: no colour
    assert "schema-set version: 1.0.0 -> 2.0.0 (major bump)" in wired.stdout
    config = _python(
        ["-m", "mcp_codegen", "--config", str(repo / "pyproject.toml"), "diff", "main", "feature"],
        repo.parent,
    )
    assert config.returncode == 1, config.stderr  # the global --config reaches diff
