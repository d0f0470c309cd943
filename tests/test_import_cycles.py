"""No import cycles in ``codegen.diff`` or ``codegen.profiles``: an ``ast`` walk over every
import, function-level ones included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CODEGEN = Path(__file__).resolve().parents[1] / "codegen"


def _imports(package: str) -> dict[str, set[str]]:
    """``module -> modules of the same package it imports``, anywhere in its body."""
    directory = CODEGEN / package.split(".", 1)[1]
    modules = {f"{package}.{p.stem}" for p in directory.glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for module in sorted(modules):
        tree = ast.parse((directory / f"{module.rsplit('.', 1)[1]}.py").read_text())
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[module] = found & modules - {module}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target] if target in path else [node, target]
            if target not in state and (found := visit(target, [*path, target])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


@pytest.mark.parametrize("package", ["codegen.diff", "codegen.profiles"])
def test_no_import_cycle(package: str) -> None:
    graph = _imports(package)
    assert len(graph) >= 3
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_walk_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_diff_cli_and_options_import_one_way() -> None:
    graph = _imports("codegen.diff")
    assert "codegen.diff.cli" in graph["codegen.diff.options"]
    assert "codegen.diff.options" not in graph["codegen.diff.cli"]
