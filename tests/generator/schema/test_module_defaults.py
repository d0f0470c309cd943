"""Defaults that need pydantic are checked for a whole module at once (``module_defaults``);
a module where one of them is wrong still reports it at its own parameter, and the others come
out as each tool's own adapter would write them."""

from __future__ import annotations

import pytest

from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import Project

TOOLS = """
import enum
from typing import Annotated

from pydantic import Field

from mcp_codegen.decorators import tool


class Colour(str, enum.Enum):
    RED = "red"


@tool
def a(colour: Colour = Colour.RED, tags: set[str] = {"b", "a"}) -> int:
    return 1


@tool
def b(n: Annotated[int, Field(ge=0)] = 1, colour: Colour = Colour.RED) -> int:
    return 1


@tool
def c(n: Annotated[int, Field(ge=0)] = {bad}) -> int:
    return 1
"""


@pytest.mark.process
def test_defaults_checked_together_come_out_as_alone(project: Project) -> None:
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write("pkg/tools.py", TOOLS.replace("{bad}", "2"))
    result = project.run("generate", "--no-cache")
    assert result.returncode == 0, result.stderr
    _, modules = read_tree(project.root / "generated")
    properties = {
        tool["name"]: {k: v.get("default") for k, v in tool["inputSchema"]["properties"].items()}
        for tool in modules[0]["TOOLS"]
    }
    assert properties == {
        "a": {"colour": "red", "tags": ["a", "b"]},
        "b": {"n": 1, "colour": "red"},
        "c": {"n": 2},
    }


@pytest.mark.process
def test_one_wrong_default_among_others_is_reported_at_its_parameter(project: Project) -> None:
    project.configure()
    project.write("pkg/__init__.py", "")
    path = project.write("pkg/tools.py", TOOLS.replace("{bad}", "-1"))
    line = path.read_text().splitlines().index("def c(n: Annotated[int, Field(ge=0)] = -1) -> int:")
    result = project.run("generate", "--no-cache")
    assert result.returncode == 2
    assert (
        f"pkg/tools.py:{line + 1}:7: default of 'n' violates its own type: Input should be "
        "greater than or equal to 0" in result.stderr
    ), result.stderr
    assert "'a'" not in result.stderr and "of 'colour'" not in result.stderr
