"""A change's source line is its parameter's line (``x-codegen.parameters``), not the ``def``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.project import Project

SOURCE = '''
from mcp_codegen.decorators import tool


@tool
def search(
    query: str,
    limit: {limit_type} = 10,
) -> list[str]:
    """Search."""
    return []
'''


@pytest.mark.process
def test_changes_point_at_the_parameter_line(tmp_path: Path) -> None:
    project = Project(tmp_path / "project")
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write("pkg/tools.py", SOURCE.format(limit_type="float"))
    assert project.run("generate").returncode == 0
    shutil.copytree(project.root / "generated", tmp_path / "base")
    project.write("pkg/tools.py", SOURCE.format(limit_type="int"))
    assert project.run("generate").returncode == 0
    done = project.run("diff", str(tmp_path / "base"), "generated", "--format", "json")
    assert done.returncode == 1, done.stderr
    changes = json.loads(done.stdout)["changes"]
    narrowed = [c for c in changes if c["rule"] == "input-type-narrowed"]
    assert [(c["path"], c["line"]) for c in narrowed] == [("pkg/tools.py", 7)]
    lines = (project.root / "pkg/tools.py").read_text().splitlines()
    assert lines[7 - 1].strip().startswith("limit: int")
