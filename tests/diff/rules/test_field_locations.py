"""A change inside a model points at the field's line, in the file that defines the model
(``x-codegen.fields``), not at the parameter or the tool's ``def``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.project import Project

MODELS = """
from pydantic import BaseModel, Field


class Street(BaseModel):
    name: str
    number: int = Field(le={number_max})


class Address(BaseModel):
    street: Street
    city: str = Field(max_length={city_max})
    others: list[Street] = []


class Stamped(BaseModel):
    stamp: str


class Receipt(Stamped):
    total: {total_type}
{note}
"""

EXTRA = """
from dataclasses import dataclass


@dataclass
class Parcel:
    weight: {weight_type}
"""

TOOLS = '''
from typing import Annotated

from pydantic import Field
from typing_extensions import TypedDict

from mcp_codegen.decorators import tool
from pkg.extra import Parcel
from pkg.models import Address, Receipt


class Window(TypedDict):
    start: Annotated[int, Field(ge={start_min})]


@tool
def ship(
    address: Address,
    backup: Address | None = None,
    parcels: list[Parcel] | None = None,
    window: Window | None = None,
) -> Receipt:
    """Ship a parcel."""
    raise NotImplementedError
'''

BASE = {
    "number_max": 9999,
    "city_max": 100,
    "total_type": "float",
    "note": "    note: str\n",
    "weight_type": "float",
    "start_min": 0,
}
HEAD = {
    "number_max": 999,  # a field of a model nested in a model: tightened
    "city_max": 50,  # a field of a parameter's model: tightened
    "total_type": "float | None",  # an output model field: widened
    "note": "",  # an output model field: removed
    "weight_type": "int",  # a dataclass field: narrowed
    "start_min": 1,  # a TypedDict key, in the tool's own file: tightened
}


def _write(project: Project, values: dict[str, object]) -> None:
    project.write("pkg/models.py", MODELS.format(**values))
    project.write("pkg/extra.py", EXTRA.format(**values))
    project.write("pkg/tools.py", TOOLS.format(**values))


def _line(project: Project, relative: str, starts: str) -> int:
    lines = (project.root / relative).read_text().splitlines()
    found = [n for n, line in enumerate(lines, 1) if line.strip().startswith(starts)]
    assert len(found) == 1, (relative, starts, found)
    return found[0]


@pytest.mark.process
def test_changes_inside_models_point_at_the_field_line(tmp_path: Path) -> None:
    project = Project(tmp_path / "project")
    project.configure()
    project.write("pkg/__init__.py", "")
    _write(project, BASE)
    assert project.run("generate").returncode == 0
    shutil.copytree(project.root / "generated", tmp_path / "base")
    _write(project, HEAD)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    generated = (project.root / "generated/pkg/tools.py").read_text()
    assert str(tmp_path) not in generated  # relative paths only

    done = project.run("diff", str(tmp_path / "base"), "generated", "--format", "json")
    assert done.returncode == 1, done.stderr
    changes = json.loads(done.stdout)["changes"]
    found = {(c["rule"], c["pointer"]): (c["path"], c["line"]) for c in changes}
    models, extra, tools = "pkg/models.py", "pkg/extra.py", "pkg/tools.py"
    city = (models, _line(project, models, "city:"))
    number = (models, _line(project, models, "number:"))
    weight = (extra, _line(project, extra, "weight:"))
    tightened = "input-constraint-tightened"
    address, backup = "/inputSchema/properties/address", "/inputSchema/properties/backup/anyOf/0"
    parcel = "/inputSchema/properties/parcels/anyOf/0/items"
    assert found == {
        # a field of a parameter's model, also through an anyOf branch (``Address | None``)
        (tightened, f"{address}/properties/city/maxLength"): city,
        (tightened, f"{backup}/properties/city/maxLength"): city,
        # a field of a model nested in a model, directly and in a list of models
        (tightened, f"{address}/properties/street/properties/number/maximum"): number,
        (tightened, f"{address}/properties/others/items/properties/number/maximum"): number,
        (tightened, f"{backup}/properties/street/properties/number/maximum"): number,
        (tightened, f"{backup}/properties/others/items/properties/number/maximum"): number,
        # a dataclass field in another module of the project: that module's line
        ("input-type-narrowed", f"{parcel}/properties/weight/type"): weight,
        # a TypedDict key in the tool's own module
        (tightened, "/inputSchema/properties/window/anyOf/0/properties/start/minimum"): (
            tools,
            _line(project, tools, "start:"),
        ),
        # an output model field changed: its line; removed: no longer in the head source, so
        # the line of the model's class
        ("output-type-changed", "/outputSchema/properties/total/type"): (
            models,
            _line(project, models, "total:"),
        ),
        ("output-field-removed", "/outputSchema/properties/note"): (
            models,
            _line(project, models, "class Receipt("),
        ),
    }
    # A field inherited from a base class keeps the base's line.
    fields = _tool_fields(project)
    assert fields["/outputSchema/properties/stamp"] == (models, _line(project, models, "stamp:"))

    # Every report carries the field's file and line: terminal, markdown, GitHub, SARIF.
    done = project.run("diff", str(tmp_path / "base"), "generated")
    assert f"{models}:{city[1]}" in done.stdout and f"{extra}:{weight[1]}" in done.stdout
    done = project.run("diff", str(tmp_path / "base"), "generated", "--format", "markdown")
    assert f"`{models}:{city[1]}`" in done.stdout, done.stdout
    done = project.run("diff", str(tmp_path / "base"), "generated", "--format", "github")
    assert f"::error file={models},line={city[1]}," in done.stdout, done.stdout
    done = project.run("diff", str(tmp_path / "base"), "generated", "--format", "sarif")
    regions = {
        (
            location["physicalLocation"]["artifactLocation"]["uri"],
            location["physicalLocation"]["region"]["startLine"],
        )
        for result in json.loads(done.stdout)["runs"][0]["results"]
        for location in result["locations"]
    }
    assert {city, number, weight} <= regions, regions


def _tool_fields(project: Project) -> dict[str, tuple[str, int]]:
    from mcp_codegen._shared.reader import parse_literal_module

    path = project.root / "generated/pkg/tools.py"
    (tool,) = parse_literal_module(path.read_text(), str(path))["TOOLS"]
    return {pointer: (path, line) for pointer, path, line in tool["x-codegen"]["fields"]}


@pytest.mark.process
def test_installed_models_keep_the_parameter_line(tmp_path: Path) -> None:
    """A model from an installed package is not recorded: its changes keep the parameter's line."""
    project = Project(tmp_path / "project")
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write(
        "pkg/tools.py",
        '''
        from mcp.types import Implementation

        from mcp_codegen.decorators import tool


        @tool
        def hello(client: Implementation) -> str:
            """Greet a client."""
            return client.name
        ''',
    )
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    path = project.root / "generated/pkg/tools.py"
    from mcp_codegen._shared.reader import parse_literal_module

    (tool,) = parse_literal_module(path.read_text(), str(path))["TOOLS"]
    assert "$defs" in tool["inputSchema"] or "properties" in tool["inputSchema"]
    assert "fields" not in tool["x-codegen"], tool["x-codegen"]


FRAMEWORK_SERVERS = {
    "mcp": "from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer('demo')\n",
    "fastmcp": "from fastmcp import FastMCP\n\nmcp = FastMCP('demo')\n",
}

FRAMEWORK_TOOLS = '''
{server}

from pkg.models import Address, Receipt


@mcp.tool()
def ship(address: Address, backup: Address | None = None) -> Receipt:
    """Ship a parcel."""
    raise NotImplementedError
'''


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize("flavor", ["mcp", "fastmcp"])
def test_framework_flavors_point_at_the_field_line(tmp_path: Path, flavor: str) -> None:
    """The frameworks keep models in ``$defs`` (or inline them): either way, the field's line."""
    project = Project(tmp_path / "project")
    project.configure(f'sources = ["pkg"]\nflavor = "{flavor}"\n')
    project.write("pkg/__init__.py", "")
    server = FRAMEWORK_TOOLS.format(server=FRAMEWORK_SERVERS[flavor])
    project.write("pkg/server.py", server)
    project.write("pkg/models.py", MODELS.format(**BASE))
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    shutil.copytree(project.root / "generated", tmp_path / "base")
    project.write("pkg/models.py", MODELS.format(**HEAD))
    done = project.run("generate")
    assert done.returncode == 0, done.stderr

    done = project.run("diff", str(tmp_path / "base"), "generated", "--format", "json")
    assert done.returncode == 1, done.stderr
    models = "pkg/models.py"
    lines = {
        "city": _line(project, models, "city:"),
        "number": _line(project, models, "number:"),
        "total": _line(project, models, "total:"),
        "note": _line(project, models, "class Receipt("),
    }
    changes = json.loads(done.stdout)["changes"]
    if flavor == "mcp":  # the SDK keeps models in $defs
        assert any("/$defs/Street/properties/number" in c["pointer"] for c in changes), changes
    located = {}
    for change in changes:
        field = change["pointer"].split("/properties/")[-1].split("/")[0]
        located.setdefault(field, set()).add((change["path"], change["line"]))
    assert located == {field: {(models, line)} for field, line in lines.items()}, located
