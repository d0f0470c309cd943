"""``ModuleScope.read`` looks for ``global`` statements without walking expressions: it finds
the same ones, in the same order, as ``ast.walk`` over the whole tree."""

from __future__ import annotations

import ast

import pytest

from mcp_codegen._generator.constants.module_scope import _statements
from tests.helpers.project import REPO

NESTED = """
global a
def f():
    global b
    class C:
        def g(self):
            global c
    try:
        global d
    except E:
        global e
    else:
        global f
    finally:
        global g
    match x:
        case 1:
            global h
    with y:
        for i in z:
            while w:
                if v:
                    global i
                else:
                    global j
    async def h():
        async with q:
            global k
    lambda: 0
    try:
        pass
    except* E:
        global l
"""


def _globals(nodes: object) -> list[tuple[int, tuple[str, ...]]]:
    return [(n.lineno, tuple(n.names)) for n in nodes if isinstance(n, ast.Global)]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "path",
    [None, *sorted((REPO / "mcp_codegen").rglob("*.py"))[:400]],
    ids=lambda p: "nested" if p is None else str(p.relative_to(REPO)),
)
def test_the_same_globals_in_the_same_order_as_ast_walk(path: object) -> None:
    source = NESTED if path is None else path.read_text(encoding="utf-8")  # type: ignore[attr-defined]
    tree = ast.parse(source)
    expected = _globals(ast.walk(tree))
    assert _globals(_statements(tree)) == expected
    if path is None:
        assert len(expected) == 12
