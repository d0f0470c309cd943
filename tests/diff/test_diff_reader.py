"""Reading sides: directories and git revisions, with ast only (nothing is imported or run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._diff.revisions import parse_module, read_directory, read_revision
from mcp_codegen._shared.diagnostics import CodegenError
from tests.diff.diff_support import INT, STR, git, manifest_text, module_text, tool, write_tree


def test_directory_side_reads_manifest_modules(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    write_tree(
        out,
        {
            "pkg/a.py": [tool("one", {"q": STR}, line=3), tool("two", line=9)],
            "pkg/sub/b.py": [tool("three", {"n": INT}, line=5)],
        },
        version="2.1.0",
    )
    side = read_directory(out)
    assert side.version == "2.1.0"
    assert sorted(side.tools) == ["one", "three", "two"]
    three = side.tools["three"]
    assert (three.source_path, three.line, three.module) == ("pkg/sub/b.py", 5, "pkg/sub/b.py")
    # tuples in the module text come back as JSON lists
    assert isinstance(side.tools["one"].tool["inputSchema"]["properties"], dict)


def test_missing_directory_is_an_empty_side(tmp_path: Path) -> None:
    side = read_directory(tmp_path / "nope")
    assert (side.exists, dict(side.tools), side.version) == (False, {}, None)


def test_manifest_listing_a_missing_module_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    out.mkdir()
    (out / "__init__.py").write_text(manifest_text(["pkg/gone.py"], "1.0.0", 1))
    with pytest.raises(CodegenError, match=r"pkg/gone\.py"):
        read_directory(out)


def test_non_literal_module_is_rejected_without_running_it(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = module_text("pkg/a.py", []) + f"open({str(marker)!r}, 'w').close()\n"
    with pytest.raises(CodegenError, match="edited by hand") as caught:
        parse_module(text, "pkg/a.py")
    assert caught.value.diagnostics[0].line == text.count("\n")
    evil = module_text("pkg/a.py", []).replace(
        "TOOLS = ()", f"TOOLS = open({str(marker)!r}, 'w').close()"
    )
    with pytest.raises(CodegenError, match="TOOLS is not a literal"):
        parse_module(evil, "pkg/a.py")
    assert not marker.exists()


def test_duplicate_tool_names_keep_the_first_and_warn(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    write_tree(out, {"pkg/a.py": [tool("x", line=1)], "pkg/b.py": [tool("x", line=2)]}, "1.0.0")
    side = read_directory(out)
    assert side.tools["x"].source_path == "pkg/a.py"
    assert [w.severity for w in side.warnings] == ["warning"]


@pytest.mark.process
def test_revision_side_reads_git_objects_not_the_work_tree(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    out = tmp_path / "gen"
    write_tree(out, {"pkg/a.py": [tool("old_name", {"q": STR}, line=7)]}, "1.0.0")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "one")
    write_tree(out, {"pkg/a.py": [tool("new_name", line=8)]}, "1.1.0")  # not committed
    side = read_revision(tmp_path, "HEAD", "gen")
    assert sorted(side.tools) == ["old_name"]
    assert side.version == "1.0.0"
    assert side.tools["old_name"].line == 7
    assert side.label.startswith("HEAD (")


@pytest.mark.process
def test_revision_without_the_output_directory_is_empty(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "README").write_text("x")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "one")
    side = read_revision(tmp_path, "HEAD", "generated")
    assert (side.exists, dict(side.tools)) == (False, {})


@pytest.mark.process
def test_unknown_revision_is_a_usage_error(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    with pytest.raises(CodegenError, match="neither a directory nor a git revision"):
        read_revision(tmp_path, "no-such-branch", "generated")
