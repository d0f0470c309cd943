"""The build cache: an unchanged project is not re-inspected; any input change is noticed."""

from __future__ import annotations

import pytest

from tests.helpers.project import Project

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

MODELS = """
from pydantic import BaseModel


class Result(BaseModel):
    total: int
"""

TOOLS = """
from pathlib import Path

from mcp_codegen.decorators import tool
from pkg.models import Result

Path(__file__).with_name("imported.marker").write_text("imported")


@tool
def count(items: list[str]) -> Result:
    return Result(total=len(items))
"""


def _imported(project: Project) -> bool:
    marker = project.root / "pkg" / "imported.marker"
    seen = marker.exists()
    marker.unlink(missing_ok=True)
    return seen


def test_unchanged_project_is_not_reinspected(project: Project) -> None:
    project.write("pkg/models.py", MODELS)
    project.write("pkg/tools.py", TOOLS)
    assert project.run("generate").returncode == 0
    assert _imported(project)
    assert project.run("check").returncode == 0
    assert not _imported(project), "a cache hit must not import user code"
    assert project.run("check", "--no-cache").returncode == 0
    assert _imported(project)


def test_a_change_in_an_imported_module_invalidates_the_cache(project: Project) -> None:
    project.write("pkg/models.py", MODELS)
    project.write("pkg/tools.py", TOOLS)
    assert project.run("generate").returncode == 0
    assert project.run("check").returncode == 0
    _imported(project)
    # models.py is not a tool source, but the output schema comes from it.
    project.write("pkg/models.py", MODELS.replace("total: int", "total: int\n    label: str"))
    stale = project.run("check")
    assert _imported(project)
    assert stale.returncode == 1
    assert '+                    "label",' in stale.stdout or '"label"' in stale.stdout


def test_a_config_change_invalidates_the_cache(project: Project) -> None:
    project.write("pkg/models.py", MODELS)
    project.write(
        "pkg/tools.py",
        TOOLS.replace("-> Result", "-> int").replace("Result(total=len(items))", "len(items)"),
    )
    assert project.run("generate").returncode == 0
    _imported(project)
    project.configure('sources = ["pkg"]\nbox_field = "value"\n')
    stale = project.run("check")
    # box_field is applied in the generator process: the module's inspection is reused.
    assert not _imported(project)
    assert stale.returncode == 1
    assert '"value"' in stale.stdout
    # A key the workers use (permissive_fallback) means inspecting the module again.
    project.configure('sources = ["pkg"]\nbox_field = "value"\npermissive_fallback = true\n')
    assert project.run("check").returncode == 1
    assert _imported(project)
