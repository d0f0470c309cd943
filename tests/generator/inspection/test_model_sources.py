"""The worker's record of where a tool's model classes and their fields are written."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_codegen._generator.inspection.model_sources import SourceIndex, tool_models

BASE = """
from pydantic import BaseModel


class Stamped(BaseModel):
    stamp: str
"""

MODELS = """
from typing import Generic, TypeVar

from pydantic import BaseModel, Field, computed_field

from {package}.base import Stamped


class Receipt(Stamped):
    total: float = Field(alias="grandTotal")

    @computed_field
    @property
    def doubled(self) -> float:
        return self.total * 2


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
"""


def _line(source: str, starts: str) -> int:
    lines = textwrap.dedent(source).splitlines()
    (found,) = [n for n, line in enumerate(lines, 1) if line.strip().startswith(starts)]
    return found


@pytest.fixture
def package(tmp_path: Path) -> Iterator[str]:
    name = f"models_{tmp_path.name.replace('-', '_')}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "base.py").write_text(textwrap.dedent(BASE))
    (root / "models.py").write_text(textwrap.dedent(MODELS.format(package=name)))
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def test_fields_aliases_inherited_and_computed(package: str, tmp_path: Path) -> None:
    receipt = importlib.import_module(f"{package}.models").Receipt
    found = tool_models([receipt], receipt, SourceIndex(str(tmp_path)))
    (model,) = found.models
    assert found.output == model
    models = f"{package}/models.py"
    assert (model.path, model.line) == (models, _line(MODELS, "class Receipt("))
    total = (models, _line(MODELS, "total:"))
    assert model.fields == {
        "stamp": (f"{package}/base.py", _line(BASE, "stamp:")),  # inherited: the base's file
        "total": total,
        "grandTotal": total,
        "doubled": (models, _line(MODELS, "def doubled")),  # the def line, below its decorators
    }
    assert model.size == 3 and model.optional == 1  # the computed field is output-only
    assert set(model.properties) == {"stamp", "total", "grandTotal", "doubled"}


def test_classes_outside_the_project_are_not_recorded(package: str, tmp_path: Path) -> None:
    receipt = importlib.import_module(f"{package}.models").Receipt
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert tool_models([receipt], None, SourceIndex(str(elsewhere))).models == ()
    from mcp.types import Implementation  # an installed package

    assert tool_models([Implementation], None, SourceIndex("/")).models == ()


def test_a_parametrized_generic_is_found_where_its_origin_is(package: str, tmp_path: Path) -> None:
    module = importlib.import_module(f"{package}.models")
    page = module.Page[module.Receipt]
    found = tool_models([page], page, SourceIndex(str(tmp_path)))
    assert found.output is not None and found.output.names[0] == "Page_Receipt_"
    items = (f"{package}/models.py", _line(MODELS, "items:"))
    assert (found.output.line, found.output.fields["items"]) == (
        _line(MODELS, "class Page("),
        items,
    )
    assert {model.names[0] for model in found.models} == {"Page_Receipt_", "Receipt"}


def test_classes_are_found_by_qualified_name_without_inspect() -> None:
    import ast

    from mcp_codegen._generator.inspection.model_sources import _class_index

    source = textwrap.dedent(
        """
        class Outer:
            class Inner:
                x: int


        def make():
            class Local:
                y: int
            return Local


        if True:
            class Maybe:
                z: int
        else:
            class Maybe:
                w: int
        """
    )
    found = {name: node.lineno for name, node in _class_index(ast.parse(source)).items()}
    assert found == {
        "Outer": _line(source, "class Outer"),
        "Outer.Inner": _line(source, "class Inner"),
        "make.<locals>.Local": _line(source, "class Local"),
        "Maybe": source.splitlines().index("    class Maybe:") + 1,  # the first of the two
    }


ENUMS = """
from enum import Enum
from typing import Literal

from pydantic import BaseModel


class Color(str, Enum):
    RED = "red"


Size = Literal["s", "m"]


class Shirt(BaseModel):
    size: Size
"""

# another module of the project with an equal Literal: typing caches subscriptions, so it is the
# very same object as Size
OTHER = """
from typing import Literal

Cut = Literal["s", "m"]
"""

USER = """
from {package}.enums import Color, Size as Sized
"""


def test_enums_and_literal_aliases_are_found_from_where_they_are_written(
    package: str, tmp_path: Path
) -> None:
    root = tmp_path / package
    (root / "enums.py").write_text(textwrap.dedent(ENUMS))
    (root / "other.py").write_text(textwrap.dedent(OTHER))
    (root / "user.py").write_text(USER.format(package=package))
    other = importlib.import_module(f"{package}.other")  # imported first: first in sys.modules
    enums = importlib.import_module(f"{package}.enums")
    importlib.import_module(f"{package}.user")
    assert other.Cut is enums.Size
    sources = SourceIndex(str(tmp_path))
    path = f"{package}/enums.py"
    size = (path, _line(ENUMS, "Size ="))
    # a parameter written in user.py (imported under another name), and a model's field
    for written, home in (([enums.Size], f"{package}.user"), ([enums.Shirt], None)):
        found = tool_models([*written, enums.Color], None, sources, home)
        places = {(m.path, m.line): m.values for m in found.models if m.values is not None}
        assert places == {(path, _line(ENUMS, "class Color(")): ("red",), size: ("s", "m")}
    found = tool_models([other.Cut], None, sources, f"{package}.other")
    assert [(m.path, m.line) for m in found.models] == [(f"{package}/other.py", 4)]
