"""``mcp_codegen._generator.constants.evaluate``: which decorator arguments are constant, read from source alone."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._generator.constants.evaluate import Constructed, Evaluator, Unresolved
from mcp_codegen._generator.constants.module_scope import Enclosing, ModuleScope


def evaluate(
    tmp_path: Path, files: dict[str, str], expression: str, module: str = "pkg.tools"
) -> Any:
    for relative, text in {"pkg/__init__.py": "", **files}.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    path = tmp_path / (module.replace(".", "/") + ".py")
    scope = ModuleScope.read(ast.parse(path.read_text()), module, path, (tmp_path,))
    node = ast.parse(expression, mode="eval").body
    return Evaluator(scope, "pkg/tools.py").evaluate(node)


@pytest.mark.parametrize(
    ("source", "expression", "expected"),
    [
        ("A = 'x'\nB = A + '_y'\n", "f'{B}-{1 + 2:03d}'", "x_y-003"),
        ("T = ('a',)\n", "[*T, *['b'], 'c']", ["a", "b", "c"]),
        ("D = {'k': 1}\n", "{**D, 'j': D['k'] * 2}", {"k": 1, "j": 2}),
        ("", "dict(a=1, b=[True, None])", {"a": 1, "b": [True, None]}),
        (
            "from mcp.types import Icon\nI = Icon(src='s', mime_type='t')\n",
            "[I]",
            [Constructed("Icon", (("src", "s"), ("mime_type", "t")))],
        ),
        ("from pkg import base\n", "base.NAME + '!'", "deep!"),
        ("from .base import NAME as N\n", "N", "deep"),
        ("import enum\nclass K(str, enum.Enum):\n    A = 'a' + '1'\n", "K.A.value", "a1"),
        ("from pkg.kinds import Kind\n", "[Kind.READ.value, Kind.READ.name]", ["read", "READ"]),
        (
            "from mcp.types import ToolAnnotations as TA\nB = {'title': 'b'}\n",
            "TA(**B, readOnlyHint=True)",
            Constructed("ToolAnnotations", (("title", "b"), ("readOnlyHint", True))),
        ),
        (
            "from mcp import types\n",
            "types.ToolAnnotations(title='t')",
            Constructed("ToolAnnotations", (("title", "t"),)),
        ),
    ],
)
def test_constant_expressions_are_evaluated(
    tmp_path: Path, source: str, expression: str, expected: Any
) -> None:
    files = {
        "pkg/tools.py": source,
        "pkg/base.py": "from pkg.deeper import ROOT\nNAME = ROOT\n",
        "pkg/deeper.py": "ROOT = 'deep'\n",
        "pkg/kinds.py": "from enum import StrEnum\n\nclass Kind(StrEnum):\n    READ = 'read'\n",
    }
    assert evaluate(tmp_path, files, expression) == expected


@pytest.mark.parametrize(
    ("source", "expression", "part", "why"),
    [
        ("A = 1\nA = 2\n", "A", "A", "is assigned more than once at module level"),
        ("try:\n    A = 1\nexcept Exception:\n    A = 2\n", "A", "A", "is bound inside a block"),
        ("A = 1\ndef f():\n    global A\n    A = 2\n", "A", "A", "is rebound by a function"),
        ("A = [1]\n", "{**A}", "A", "is splatted with ** but is a list"),
        ("A = 1\n", "A + 'x'", "A + 'x'", "combines int and str"),
        ("class Icon:\n    pass\n", "Icon(src='x')", "Icon(...)", "calls a function"),
        ("from mylib import Icon\n", "Icon(src='x')", "Icon(...)", "calls a function"),
        ("import os\n", "os.environ['X']", "os.environ", "reads the environment"),
        ("from pkg.cycle import B\nA = B\n", "A", "A", "defined in terms of itself"),
        ("class K:\n    A = 1\n", "K.A", "K", "is a function or class, not a value"),
        (
            "from enum import Enum\nclass K(Enum):\n    A = f()\n",
            "K.A.value",
            "K.A",
            "whose value is not constant",
        ),
        (
            "from enum import Enum\nclass K(Enum):\n    A = 1\n",
            "K.B",
            "K.B",
            "is not a member of enum K",
        ),
        (
            "from thirdparty import A\n",
            "A",
            "A",
            "is imported from thirdparty, which is not a source file",
        ),
    ],
)
def test_run_time_values_are_refused_with_the_part_and_why(
    tmp_path: Path, source: str, expression: str, part: str, why: str
) -> None:
    files = {"pkg/tools.py": source, "pkg/cycle.py": "from pkg.tools import A\nB = A\n"}
    with pytest.raises(Unresolved) as raised:
        evaluate(tmp_path, files, expression)
    assert raised.value.part == part
    assert why in raised.value.why


def test_parameters_and_locals_of_enclosing_functions_are_run_time(tmp_path: Path) -> None:
    function = ast.parse(
        "def make(prefix, *, n=1):\n"
        "    local = 2\n"
        "    local += 1\n"
        "    for looped in range(3):\n"
        "        pass\n"
        "    DESCRIPTION = 'Made by ' + SUFFIX\n"
        "    NAME = prefix + '_x'\n"
    ).body[0]
    assert isinstance(function, ast.FunctionDef)
    enclosing = (Enclosing.of(function),)
    (tmp_path / "pkg").mkdir()
    path = tmp_path / "pkg" / "tools.py"
    path.write_text("prefix = 'module'\nlocal = 1\nSUFFIX = 'make'\n")
    scope = ModuleScope.read(ast.parse(path.read_text()), "pkg.tools", path, (tmp_path,))
    evaluator = Evaluator(scope, "pkg/tools.py")
    for name, why in [
        ("prefix", "is a parameter of make()"),
        ("n", "is a parameter of make()"),
        ("local", "is a local variable of make()"),
        ("looped", "is a local variable of make()"),
        ("NAME", "is a local constant of make(), but its value is not constant: `prefix` is a "),
    ]:
        with pytest.raises(Unresolved) as raised:
            evaluator.evaluate(ast.Name(name), enclosing)
        assert raised.value.why.startswith(why), raised.value.why
    # bound once by a plain assignment in the function's own block: a local constant
    assert evaluator.evaluate(ast.Name("DESCRIPTION"), enclosing) == "Made by make"
    assert evaluator.evaluate(ast.Name("prefix")) == "module"


@pytest.mark.parametrize(
    ("source", "expression", "expected"),
    [
        ("D = '  Search.  '\n", "D.strip() + ' ' + ', '.join(['a', 'b'])", "Search. a, b"),
        ("from textwrap import dedent\nT = '\\n    a\\n    b\\n'\n", "dedent(T)", "\na\nb\n"),
        ("import inspect\n", "inspect.cleandoc('  x\\n  y')", "x\ny"),
        ("N = 3\n", "'{} of {n}'.format('one', n=N)", "one of 3"),
        # sorted() is the fix the hash-seed warning suggests for a set, so it evaluates too;
        # a set joined as it is follows the hash seed (the workers pin it).
        ("S = {'b', 'c', 'a'}\n", "', '.join(sorted(S))", "a, b, c"),
        ("S = frozenset({'b', 'a'})\n", "sorted(S, reverse=True)", ["b", "a"]),
        ("S = {'only'}\n", "'-'.join(S)", "only"),
    ],
)
def test_text_functions_over_constants_are_evaluated(
    tmp_path: Path, source: str, expression: str, expected: Any
) -> None:
    assert evaluate(tmp_path, {"pkg/tools.py": source}, expression) == expected


@pytest.mark.parametrize(
    ("source", "expression", "part", "why"),
    [
        ("from mylib import dedent\n", "dedent('x')", "dedent(...)", "calls a function"),
        ("D = {'a': 1}\n", "'{}'.format(D)", "'{}'.format(...)", "strings and numbers only"),
        ("", "', '.join('ab')", "', '.join(...)", "not a list, tuple or set"),
        ("import os\n", "os.getcwd().strip()", "os.getcwd(...)", "calls a function"),
        ("S = {'a'}\n", "sorted(S, key=len)", "sorted(...)", "reverse= only"),
        ("S = {'a', 1}\n", "sorted(S)", "sorted(...)", "fails"),
        ("import os\n", "sorted(os.environ)", "os.environ", "environment"),
    ],
)
def test_other_calls_stay_run_time(
    tmp_path: Path, source: str, expression: str, part: str, why: str
) -> None:
    with pytest.raises(Unresolved) as raised:
        evaluate(tmp_path, {"pkg/tools.py": source}, expression)
    assert raised.value.part == part
    assert why in raised.value.why
