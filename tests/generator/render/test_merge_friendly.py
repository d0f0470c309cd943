"""A generated tree that merges: two branches that each add a tool, one to an existing module and
one in a new module, merge in git without conflicts, and ``check`` passes on the merge."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.project import Project

TOOL = '''

@tool
def {name}(text: str) -> str:
    """{name}."""
    return text
'''
HEADER = "from mcp_codegen.decorators import tool\n"


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


def commit(project: Project, message: str) -> None:
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert git(project.root, "add", "-A").returncode == 0
    assert git(project.root, "commit", "-q", "-m", message).returncode == 0


@pytest.mark.process
def test_branches_adding_tools_in_different_modules_merge(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.configure()
    project.write(".gitattributes", "generated/** linguist-generated=true\n")
    project.write("pkg/__init__.py", "")
    project.write("pkg/alpha.py", HEADER + TOOL.format(name="first"))
    project.write("pkg/omega.py", HEADER + TOOL.format(name="last"))
    assert git(tmp_path, "init", "-q", "-b", "main").returncode == 0
    commit(project, "two modules")

    git(tmp_path, "checkout", "-q", "-b", "grow-alpha")
    project.write("pkg/alpha.py", HEADER + TOOL.format(name="first") + TOOL.format(name="second"))
    commit(project, "a tool in an existing module")

    git(tmp_path, "checkout", "-q", "main")
    git(tmp_path, "checkout", "-q", "-b", "new-module")
    project.write("pkg/beta.py", HEADER + TOOL.format(name="beta_tool"))
    commit(project, "a tool in a new module")

    merged = git(tmp_path, "merge", "-q", "--no-edit", "grow-alpha")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert git(tmp_path, "diff", "--name-only", "--diff-filter=U").stdout == ""
    done = project.run("check")
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = (tmp_path / "generated" / "__init__.py").read_text()
    assert '    "pkg/beta.py",\n' in manifest and "TOOL_COUNT" not in manifest
    # generate prints no .gitattributes hint: the project has the line.
    assert "linguist-generated" not in project.run("generate").stderr


@pytest.mark.process
def test_generate_prints_the_gitattributes_line_when_missing(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.configure('sources = ["pkg"]\noutput = "schemas/generated"\n')
    project.write("pkg/__init__.py", "")
    project.write("pkg/alpha.py", HEADER + TOOL.format(name="first"))
    done = project.run("generate")
    assert done.returncode == 0
    assert "schemas/generated/** linguist-generated=true" in done.stderr


@pytest.mark.process
def test_same_module_additions_conflict_only_where_the_source_does(tmp_path: Path) -> None:
    """With the merge driver (mcp_codegen._cli.merge_driver), tools added at both ends of one module
    merge cleanly, as the source does; ``generate`` then makes ``check`` pass."""
    project = Project(tmp_path)
    project.configure()
    project.write(".gitattributes", "generated/** linguist-generated=true merge=mcp-codegen\n")
    project.write("pkg/__init__.py", "")
    middle = TOOL.format(name="middle")
    project.write("pkg/alpha.py", HEADER + middle)
    assert git(tmp_path, "init", "-q", "-b", "main").returncode == 0
    driver = f"{sys.executable} -m mcp_codegen merge-driver %O %A %B"
    assert git(tmp_path, "config", "merge.mcp-codegen.driver", driver).returncode == 0
    commit(project, "one tool")

    git(tmp_path, "checkout", "-q", "-b", "top")
    project.write("pkg/alpha.py", HEADER + TOOL.format(name="top") + "\n" + middle)
    commit(project, "a tool above")
    git(tmp_path, "checkout", "-q", "main")
    git(tmp_path, "checkout", "-q", "-b", "bottom")
    project.write("pkg/alpha.py", HEADER + middle + "\n" + TOOL.format(name="bottom"))
    commit(project, "a tool below")

    merged = git(tmp_path, "merge", "-q", "--no-edit", "top")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert project.run("check").returncode == 1  # the merged module records no digest yet
    assert project.run("generate").returncode == 0
    assert project.run("check").returncode == 0
    names = re.findall(
        r'^        "name": "(\w+)",$', (tmp_path / "generated/pkg/alpha.py").read_text(), re.M
    )
    assert names == ["top", "middle", "bottom"]

    # Without the driver the same merge conflicts in the generated module only.
    git(tmp_path, "reset", "-q", "--hard", "HEAD^1")  # bottom, before the merge
    git(tmp_path, "config", "--unset", "merge.mcp-codegen.driver")
    conflicted = git(tmp_path, "merge", "-q", "--no-edit", "top")
    assert conflicted.returncode != 0
    assert git(tmp_path, "diff", "--name-only", "--diff-filter=U").stdout.split() == [
        "generated/pkg/alpha.py"
    ]
