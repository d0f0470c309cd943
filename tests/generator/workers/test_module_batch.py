"""Describing a module's tools in one pydantic pass gives exactly the one-by-one schemas.

The worker describes every tool of a module with one ``TypeAdapter`` (``schema.describe_module``)
and falls back to one adapter per tool when that pass fails or would rename a definition. These
tests run both paths on every example and fixture module and require equal results after the
transforms, and they check the fallbacks end to end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.inspection.resolve import ResolveFailure, import_module, resolve_tool
from mcp_codegen._generator.scan.files import scan_file
from mcp_codegen._generator.schema import describe as schema
from mcp_codegen._shared.schema_transforms import Memo, clean
from tests.helpers.project import REPO, Project

CONFIG = load_config(REPO / "pyproject.toml")
PUBLISHED = REPO / "tests" / "fixtures" / "published"
FORMS_LAYOUT = PUBLISHED / "forms_layout"
INJECTED = frozenset(CONFIG.injected_types)
SOURCES = [
    path
    for path in sorted(
        [
            *(REPO / "examples" / "bookshop").glob("*.py"),
            *(REPO / "tests" / "fixtures" / "seed000").glob("*.py"),
            *PUBLISHED.rglob("*.py"),
        ]
    )
    if (found := scan_file(path, CONFIG)) is not None and found.tools
]


def test_the_corpus_is_not_empty() -> None:
    assert len(SOURCES) >= 25


def _resolved(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[Any]]:
    if PUBLISHED in path.parents:  # these import their siblings as ``published.*``
        monkeypatch.syspath_prepend(str(PUBLISHED.parent))
    if FORMS_LAYOUT in path.parents:  # a project whose top-level package is named ``src``
        monkeypatch.syspath_prepend(str(FORMS_LAYOUT))
    module = scan_file(path, CONFIG)
    assert module is not None
    loaded = import_module(module)
    tools = []
    for tool in module.tools:
        try:
            tools.append(resolve_tool(module, loaded, tool))
        except ResolveFailure:
            continue  # registration functions of other flavors; covered by the drop-in tests
    return module, tools


def _one_by_one_input(module: Any, tool: Any) -> Any:
    raw, defaults = schema.input_schema(tool, INJECTED, [], module.relative_path)
    for name, value in defaults.items():
        raw["properties"][name]["default"] = value
    return clean(raw)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_module_pass_equals_one_by_one(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, tools = _resolved(path, monkeypatch)
    schema._OUTPUT_CACHE.clear()
    batch = schema.describe_module(module, tools, INJECTED)
    described = [t for t in tools if "input_schema" not in t.scanned.options]
    memo = Memo()
    for tool in described:
        inspected = schema.inspect_tool(module, tool, INJECTED, False, batch)
        expected = _one_by_one_input(module, tool)
        assert clean(inspected.input_schema, memo) == expected, tool.scanned.name
        assert clean(inspected.input_schema) == expected, tool.scanned.name
    batched_outputs = {t.scanned.name: schema.output_schema(t) for t in tools}
    schema._OUTPUT_CACHE.clear()
    for tool in tools:
        single = schema.output_schema(tool)
        batched = batched_outputs[tool.scanned.name]
        assert (single is None) == (batched is None), tool.scanned.name
        if single is not None:
            assert clean(batched, memo) == clean(single), tool.scanned.name
    if len(described) > 1 and path.parent.name == "bookshop":
        # The example package must take the fast path for every inferred tool, not the fallback.
        assert {id(t) for t in described} <= batch.inputs.keys()


SAME_NAME = '''
from __future__ import annotations

from pydantic import BaseModel

from mcp_codegen.decorators import tool


class Node(BaseModel):
    label: str
    children: list[Node] = []


def _other():
    class Node(BaseModel):
        weight: float
        next: Node | None = None

    return Node


OtherNode = _other()


@tool
def first(tree: Node) -> Node:
    """First."""
    return tree


@tool
def second(chain: OtherNode) -> OtherNode:
    """Second."""
    return chain
'''


@pytest.mark.process
def test_two_types_with_one_short_name_keep_their_short_names(project: Project) -> None:
    """Described together, pydantic would qualify both ``Node`` definitions; each tool described
    alone names its own ``Node`` plainly, and that is what the generator must write."""
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write("pkg/trees.py", SAME_NAME)
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    tools = {t["name"]: t for t in json.loads(project.run("export").stdout)["tools"]}
    first, second = tools["first"], tools["second"]
    assert first["inputSchema"]["properties"]["tree"] == {"$ref": "#/$defs/Node"}
    assert first["inputSchema"]["$defs"]["Node"]["properties"]["children"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/Node"},
        "default": [],
    }
    assert second["inputSchema"]["properties"]["chain"] == {"$ref": "#/$defs/Node"}
    assert second["inputSchema"]["$defs"]["Node"]["properties"]["next"] == {
        "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}],
        "default": None,
    }
    assert set(first["outputSchema"]["$defs"]) == {"Node"}
    assert set(second["outputSchema"]["$defs"]) == {"Node"}


BROKEN_ONE = '''
from mcp_codegen.decorators import tool


class Opaque:
    pass


@tool
def fine(count: int = 1) -> int:
    """Fine."""
    return count


@tool
def broken(thing: Opaque) -> int:
    """Broken."""
    return 0
'''


@pytest.mark.process
def test_a_type_pydantic_cannot_describe_is_still_reported_at_its_tool(project: Project) -> None:
    """The module pass fails as a whole; the one-by-one fallback names the tool and its line."""
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write("pkg/mixed.py", BROKEN_ONE)
    result = project.run("generate")
    assert result.returncode == 2
    assert (
        "pkg/mixed.py:15:12: parameter 'thing' of tool 'broken' is annotated Opaque, which "
        "pydantic cannot make a JSON Schema of" in result.stderr
    )
    assert "'fine'" not in result.stderr
    assert not (project.root / "generated").exists()
