"""The writer's last line of defence: only modules that bind names to literals are written.

``verify_literal_module`` first compiles the text and reads its bytecode (constants, containers,
name binding); whatever that does not vouch for is parsed assignment by assignment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._generator.write.output import builds_literals_only, verify_literal_module
from mcp_codegen._shared.reader import GeneratedModuleError
from tests.helpers.project import REPO

COMMITTED = sorted((REPO / "generated").rglob("*.py"))

#: Each would run code (or read a name) when imported.
CODE = {
    "import": "X = 1\nimport os\n",
    "call": "X = print(1)\n",
    "f-string": 'X = f"{1}"\n',
    "attribute": "X = (1).real\n",
    "subscript": 'X = {"a": 1}["a"]\n',
    "name": "X = Y\n",
    "operator": "X = [1] * 3\n",
    "function": "def f():\n    pass\n",
    "lambda": "X = lambda: 0\n",
    "class": "class X:\n    pass\n",
    "del": "X = 1\ndel X\n",
    "annotation": "X: int = 1\n",
    "comprehension": "X = [i for i in ()]\n",
    "walrus": "X = (Y := 1)\n",
    "starred": "X = [*range(3)]\n",
}


def test_the_committed_modules_take_the_fast_path() -> None:
    assert COMMITTED
    for path in COMMITTED:
        assert builds_literals_only(path.read_text(encoding="utf-8"), str(path)), path


@pytest.mark.parametrize("name", sorted(CODE))
def test_code_is_refused_by_both_checks(name: str) -> None:
    content = CODE[name]
    assert not builds_literals_only(content, "<m>")
    with pytest.raises(GeneratedModuleError):
        verify_literal_module(content, "<m>")


def test_a_literal_the_fast_check_does_not_know_is_parsed_instead() -> None:
    content = "X = 1j\nY = (1, (2.5, None))\n"  # complex constants are literals too
    assert not builds_literals_only(content, "<m>")
    verify_literal_module(content, "<m>")  # accepted by the literal-by-literal parse


def test_a_syntax_error_names_its_position(tmp_path: Path) -> None:
    with pytest.raises(GeneratedModuleError) as caught:
        verify_literal_module("X = 1\nY = (\n", "gen/m.py")
    assert caught.value.path == "gen/m.py" and caught.value.line == 2
