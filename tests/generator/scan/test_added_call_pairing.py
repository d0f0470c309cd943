"""The scanner reads registration calls twice, with libcst (what the call says) and with ``ast``
(where it is): ``added_call`` and ``located_calls`` must pick the same statements, or the
scanner pairs a call with another's position (a file with ``ctx.set(None)`` failed to scan
as a whole: libcst reads ``None`` as a name, ``ast`` as a constant)."""

from __future__ import annotations

import ast

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.scan.added_tools import added_call, located_calls
from tests.helpers.project import REPO


def _picked(text: str) -> tuple[int, int]:
    """How many statements each reading picks."""
    picked = 0

    class Statements(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            nonlocal picked
            picked += sum(added_call(small) is not None for small in node.body)

    cst.parse_module(text).visit(Statements())
    return picked, len(located_calls(ast.parse(text)))


ARGUMENTS = st.sampled_from(
    [
        "fn",
        "mod.fn",
        "self.method",
        "None",
        "True",
        "False",
        "1",
        "'name'",
        "b'x'",
        "f'{x}'",
        "wrap(fn)",
        "wrap(None)",
        "wrap(fn, 1)",
        "wrap(*fns)",
        "*fns",
        "**options",
        "lambda: 0",
        "[fn]",
        "(fn)",
        "fn()",
        "name='x'",
        "fn=fn",
    ]
)
STATEMENTS = st.sampled_from(["{}", "x = {}", "x: int = {}", "a = b = {}"])
CALLEES = st.sampled_from(["mcp.tool", "mcp.add_tool", "ctx.set", "mcp.tool()", "obj.a.b", "f"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(STATEMENTS, CALLEES, st.lists(ARGUMENTS, max_size=3)), min_size=1, max_size=6
    )
)
def test_both_readings_pick_the_same_statements(
    statements: list[tuple[str, str, list[str]]],
) -> None:
    lines = []
    for form, callee, arguments in statements:
        text = f"{callee}({', '.join(arguments)})"
        try:
            ast.parse(text)
        except SyntaxError:  # positional after keyword: not Python
            continue
        lines.append(form.format(text))
    source = "\n".join(lines) + "\n"
    cst_count, ast_count = _picked(source)
    assert cst_count == ast_count, source


@pytest.mark.slow
def test_both_readings_agree_on_every_fixture_and_the_package() -> None:
    """Real code: every test fixture and the package's own modules."""
    files = sorted(
        [*(REPO / "tests" / "fixtures").rglob("*.py"), *(REPO / "mcp_codegen").rglob("*.py")]
    )
    assert len(files) > 200
    differ = [
        path.relative_to(REPO).as_posix()
        for path in files
        if (counts := _picked(path.read_text(encoding="utf-8")))[0] != counts[1]
    ]
    assert differ == []
