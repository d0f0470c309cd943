"""The runtime package's shape: no import cycle between its modules, none over ~500 lines.

Imports are read with ``ast`` (not by importing), including those inside functions and under
``TYPE_CHECKING``: a lazy import that closes a cycle is still a cycle for a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import codegen.runtime

RUNTIME = Path(codegen.runtime.__file__).parent
PACKAGE = "codegen.runtime"
MAX_LINES = 500


def _imports(path: Path) -> set[str]:
    """The ``codegen.runtime`` modules ``path`` imports, by their name inside the package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            module = node.module
            if node.level:  # relative: resolve against the package
                module = f"{PACKAGE}.{module}" if node.level == 1 else module
            names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            if name.startswith(PACKAGE + "."):
                leaf = name.removeprefix(PACKAGE + ".").split(".")[0]
                if (RUNTIME / f"{leaf}.py").exists():
                    found.add(leaf)
    found.discard(path.stem)
    return found


def _graph() -> dict[str, set[str]]:
    return {
        path.stem: _imports(path)
        for path in sorted(RUNTIME.glob("*.py"))
        if path.stem not in {"__init__", "__main__"}
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in ``graph`` as a path ``a -> b -> a``, or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_import_walker_sees_lazy_imports() -> None:
    seen = _imports(RUNTIME / "_invoke.py")
    assert "_flavors" in seen  # imported inside a method: still an edge
    assert "_registry" in seen


def test_no_import_cycle_in_the_runtime() -> None:
    graph = _graph()
    assert len(graph) >= 10, graph  # the walker found the package's modules
    cycle = _cycle(graph)
    assert cycle is None, "import cycle in codegen/runtime: " + " -> ".join(cycle or [])


def test_no_runtime_module_over_the_line_limit() -> None:
    sizes = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in RUNTIME.glob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
