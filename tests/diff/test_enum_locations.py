"""``diff`` points an enum change at the ``Enum`` class or ``Literal`` alias that lists the values,
for every tool that uses it: as a parameter, inside a model, and as an output."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.helpers.project import Project

MODELS = """
from enum import Enum
from typing import Literal


class Color(str, Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


Size = Literal["s", "m", "l"]
"""

TOOLS = """
from pydantic import BaseModel

from mcp_codegen.decorators import tool
from pkg.models import Color, Size


class Paint(BaseModel):
    color: Color
    size: Size = "m"


@tool
def paint(color: Color, size: Size) -> str:
    return color.value


@tool
def repaint(job: Paint) -> str:
    return job.color.value


@tool
def favourite() -> Color:
    return Color.RED
"""


def _git(root, *args: str) -> None:  # type: ignore[no-untyped-def]
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.mark.process
def test_an_enum_change_points_at_its_definition_for_every_tool(project: Project) -> None:
    project.write("pkg/models.py", MODELS)
    project.write("pkg/tools.py", TOOLS)
    assert project.run("generate").returncode == 0
    _git(project.root, "init", "-q")
    _git(project.root, "add", "-A")
    _git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    models = project.root / "pkg" / "models.py"
    changed = (
        models.read_text().replace('    BLUE = "blue"\n', "").replace('"s", "m", "l"', '"s", "m"')
    )
    models.write_text(changed)
    assert project.run("generate").returncode == 0
    done = project.run("diff", "HEAD", "--format", "json")
    changes = json.loads(done.stdout)["changes"]
    lines = changed.splitlines()
    color = lines.index("class Color(str, Enum):") + 1
    size = lines.index('Size = Literal["s", "m"]') + 1
    found = {
        (change["tool"], change["pointer"]): (change["path"], change["line"])
        for change in changes
        if change["pointer"].endswith("/enum")
    }
    assert found == {
        ("paint", "/inputSchema/properties/color/enum"): ("pkg/models.py", color),
        ("repaint", "/inputSchema/properties/job/properties/color/enum"): ("pkg/models.py", color),
        ("favourite", "/outputSchema/properties/result/enum"): ("pkg/models.py", color),
        ("paint", "/inputSchema/properties/size/enum"): ("pkg/models.py", size),
        ("repaint", "/inputSchema/properties/job/properties/size/enum"): ("pkg/models.py", size),
    }
    # a change beside the enum still points at the model's field, not at the enum
    tools = project.root / "pkg" / "tools.py"
    tools.write_text(
        tools.read_text().replace("    color: Color\n", "    color: Color | None = None\n")
    )
    assert project.run("generate").returncode == 0
    changes = json.loads(project.run("diff", "HEAD", "--format", "json").stdout)["changes"]
    field_line = tools.read_text().splitlines().index("    color: Color | None = None") + 1
    assert {
        (change["path"], change["line"])
        for change in changes
        if change["tool"] == "repaint"
        and "/properties/color" in change["pointer"]
        and not change["pointer"].endswith("/enum")
    } == {("pkg/tools.py", field_line)}, changes
