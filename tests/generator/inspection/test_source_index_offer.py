"""``SourceIndex.offer``: the scan's ``ast`` tree of a file is reused only while the file still
holds the bytes that were parsed, and the worker's scan offers it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcp_codegen._generator.inspection.model_sources import SourceIndex
from mcp_codegen._generator.model import SourceFile
from mcp_codegen._generator.scan.factory_reach import FactoryReach
from mcp_codegen._generator.workers import inspecting
from mcp_codegen._shared.format import source_digest

TEXT = b"from pydantic import BaseModel\n\n\nclass Order(BaseModel):\n    total: float\n"


class Order:  # stands for the class defined in the file; only its qualname is read
    pass


def _offered(tmp_path: Path, data: bytes) -> tuple[SourceIndex, Path, ast.Module]:
    path = tmp_path / "models.py"
    path.write_bytes(TEXT)
    tree = ast.parse(data)
    index = SourceIndex(str(tmp_path))
    index.offer(str(path), data, tree)
    return index, path, tree


def test_the_offered_tree_is_used_when_the_file_is_unchanged(tmp_path: Path) -> None:
    index, path, tree = _offered(tmp_path, TEXT)
    node = index.class_node(Order, str(path))
    assert node is tree.body[-1]  # the very node of the offered tree: not parsed again
    assert ast.dump(node) == ast.dump(ast.parse(TEXT).body[-1])


def test_a_file_changed_since_the_scan_is_parsed_again(tmp_path: Path) -> None:
    older = b"\n\n" + TEXT  # what the scan saw: the class two lines further down
    index, path, tree = _offered(tmp_path, older)
    node = index.class_node(Order, str(path))
    assert node is not None and node is not tree.body[-1]
    assert node.lineno == ast.parse(TEXT).body[-1].lineno == 4


def test_an_offer_for_another_file_is_not_used(tmp_path: Path) -> None:
    index, _, tree = _offered(tmp_path, TEXT)
    other = tmp_path / "other.py"
    other.write_bytes(TEXT)
    node = index.class_node(Order, str(other))
    assert node is not None and node is not tree.body[-1]


def test_the_worker_scan_offers_its_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = (
        TEXT
        + b"\n\nfrom mcp_codegen.decorators import tool\n\n\n@tool\ndef pay(order: Order) -> None:\n    pass\n"
    )
    path = tmp_path / "shop.py"
    path.write_bytes(data)
    source = SourceFile(str(path), "shop.py", "shop", str(tmp_path), source_digest(data), data)
    module = inspecting.scan_source(
        source, ["tool"], {}, FactoryReach(), str(tmp_path), framework=False
    )
    assert module is not None and [t.name for t in module.tools] == ["pay"]

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was parsed again")

    monkeypatch.setattr(ast, "parse", no_parse)
    node = inspecting.source_index(str(tmp_path)).class_node(Order, str(path))
    assert node is not None and node.lineno == 4
