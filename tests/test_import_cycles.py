"""No import cycles in ``codegen.diff`` or ``codegen.profiles``: an ``ast`` walk over every
import, function-level ones included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CODEGEN = Path(__file__).resolve().parents[1] / "codegen"


def _imports(package: str) -> dict[str, set[str]]:
    """``module -> modules of the same package it imports``, anywhere in its body.

    Subpackages count too: a subpackage's ``__init__`` is the module named after it.
    """
    directory = CODEGEN / package.split(".", 1)[1].replace(".", "/")
    files: dict[str, Path] = {}
    for path in directory.rglob("*.py"):
        parts = path.relative_to(directory).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:  # the package's own __init__ only re-exports
            files[".".join((package, *parts))] = path
    modules = set(files)
    graph: dict[str, set[str]] = {}
    for module in sorted(modules):
        tree = ast.parse(files[module].read_text())
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


def test_the_walk_covers_the_classify_subpackage() -> None:
    graph = _imports("codegen.diff")
    assert "codegen.diff.classify.walk" in graph["codegen.diff.classify.tools"]
    assert "codegen.diff.classify.walk" not in graph["codegen.diff.classify.unions"]


def test_diff_cli_and_options_import_one_way() -> None:
    graph = _imports("codegen.diff")
    assert "codegen.cli.diff_command" in graph["codegen.cli.diff_options"]
    assert "codegen.cli.diff_options" not in graph["codegen.cli.diff_command"]
