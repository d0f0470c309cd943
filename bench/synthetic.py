"""Write a synthetic tool package of N varied tools (shared by the benchmarks).

Tools cycle through a fixed set of signature shapes (primitives, containers, Literal, Optional,
TypedDict, dataclasses, pydantic models with constraints, enums, datetimes, recursive models,
async tools, scalar and object returns), spread over modules of ``per_module`` tools each.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HEADER = '''\
from __future__ import annotations

import datetime as dt
import enum
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, Field
from typing_extensions import NotRequired, TypedDict

from mcp_codegen.decorators import tool


class Colour(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Query(TypedDict):
    text: str
    limit: NotRequired[int]


@dataclass
class Point:
    x: float
    y: float
    label: Optional[str] = None


@dataclass
class Shape:
    points: list[Point] = field(default_factory=list)
    closed: bool = False


class Item(BaseModel):
    """An item."""

    sku: str = Field(min_length=3, max_length=12, pattern=r"^[A-Z0-9-]+$")
    price: Decimal = Field(ge=0)
    tags: set[str] = set()


class Node(BaseModel):
    name: str
    children: list[Node] = []
'''

SHAPES = [
    '''
@tool
def {name}(text: str, count: int, ratio: float = 0.5, flag: bool = False) -> str:
    """Echo the text.

    Args:
        text: Text to echo.
        count: How many times.
    """
    return text * count
''',
    '''
@tool(title="List {name}", read_only=True)
def {name}(values: list[int], weights: dict[str, float], pair: tuple[int, str]) -> dict[str, float]:
    """Summarise values."""
    return {{"sum": float(sum(values))}}
''',
    '''
@tool
async def {name}(mode: Literal["fast", "slow"], limit: Optional[int] = None) -> list[str]:
    """Search in a mode."""
    return [mode]
''',
    """
@tool(description="Query things")
def {name}(query: Query, colour: Colour = Colour.RED) -> Optional[Item]:
    return None
""",
    '''
@tool
def {name}(shape: Shape, when: dt.datetime, day: dt.date, ident: uuid.UUID) -> Shape:
    """Move a shape."""
    return shape
''',
    '''
@tool(annotations={{"destructiveHint": False, "idempotentHint": True}})
def {name}(item: Item, qty: Annotated[int, Field(ge=1, le=100, description="Quantity")] = 1) -> Item:
    """Store an item."""
    return item
''',
    '''
@tool
def {name}(root: Node, depth: int = Field(2, ge=0, description="Depth")) -> Node:
    """Walk a tree.

    Parameters
    ----------
    root
        The root node.
    """
    return root
''',
    '''
@tool
def {name}(price: Decimal, tags: set[str], note: str | None = None) -> None:
    """Record a price.

    :param price: The price.
    :param tags: Tags.
    """
''',
]


def write_package(
    directory: Path, count: int, per_module: int = 50, package: str = "synth"
) -> Path:
    """Create ``directory/package`` with ``count`` tools; returns the package path."""
    root = directory / package
    root.mkdir(parents=True, exist_ok=True)
    (root / "__init__.py").write_text("")
    for start in range(0, count, per_module):
        body = [HEADER]
        for index in range(start, min(start + per_module, count)):
            body.append(SHAPES[index % len(SHAPES)].format(name=f"tool_{index:05d}"))
        (root / f"tools_{start // per_module:03d}.py").write_text("\n".join(body))
    (directory / "pyproject.toml").write_text(
        f'[tool.mcp-codegen]\nsources = ["{package}"]\noutput = "generated"\n'
    )
    return root


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--per-module", type=int, default=50)
    options = parser.parse_args()
    write_package(options.directory, options.count, options.per_module)
