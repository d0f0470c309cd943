"""The scanner's libcst parse without per-node validation (``scan.syntax.parse_module``) builds
the same tree as ``libcst.parse_module``, and leaves validation on for everything else."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import libcst as cst
import pytest

from mcp_codegen._generator.scan.syntax import parse_module
from tests.helpers.project import REPO


def _write_package(root: Path, tools: int) -> Path:
    spec = importlib.util.spec_from_file_location("bench_synthetic", REPO / "bench/synthetic.py")
    assert spec is not None and spec.loader is not None
    synthetic = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synthetic)
    return synthetic.write_package(root, tools)


#: Sources of every kind the repository holds: the generator, the examples, the test fixtures.
CORPUS = sorted(
    path
    for folder in ("mcp_codegen/_generator", "examples", "tests/fixtures")
    for path in (REPO / folder).rglob("*.py")
    if "__pycache__" not in path.parts
)


@pytest.mark.process
@pytest.mark.parametrize("chunk", range(4))
def test_same_tree_as_libcst(chunk: int) -> None:
    paths = CORPUS[chunk::4]
    assert len(paths) > 20
    for path in paths:
        text = path.read_text(encoding="utf-8")
        tree = parse_module(text)
        assert tree.deep_equals(cst.parse_module(text)), path
        assert tree.code == text, path


@pytest.mark.process
def test_same_tree_for_the_synthetic_tools(tmp_path: Path) -> None:
    package = _write_package(tmp_path, 120)
    for path in sorted(package.glob("tools_*.py")):
        text = path.read_text()
        assert parse_module(text).deep_equals(cst.parse_module(text))


def test_validation_is_back_after_a_parse_and_after_a_syntax_error() -> None:
    before = cst.CSTNode.__post_init__
    parse_module("x = 1\n")
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def (:\n")
    assert cst.CSTNode.__post_init__ is before
    with pytest.raises(cst.CSTValidationError):  # a node built outside the parser is validated
        cst.Name("not a name")
