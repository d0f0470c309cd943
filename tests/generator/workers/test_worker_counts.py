"""The output does not depend on how many workers share the modules, nor on which are cached.

Workers inspect; the generator assembles, renders and checks each module as its inspection
arrives (``mcp_codegen._generator.render.module_output``). With one, two and four workers the
bookshop example must render to the committed ``generated/`` tree, byte for byte; and a cached
rebuild of one edited module must equal a build without the cache.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import mcp_codegen._generator.workers.pool
from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import build
from tests.helpers.project import REPO

pytestmark = pytest.mark.process  # starts real worker processes

CONFIG = (
    "[tool.mcp-codegen]\n"
    'sources = ["examples/bookshop"]\n'
    'injected_types = ["examples.bookshop.deps.Settings", "examples.bookshop.deps.ConfigPaths"]\n'
    'version = "0.1.0"\n'
    'regenerate_command = "nox -s codegen"\n'  # as this repository's pyproject.toml
)


def _committed_tree() -> dict[str, str]:
    return {
        p.relative_to(REPO / "generated").as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((REPO / "generated").rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _project(root: Path) -> Path:
    shutil.copytree(
        REPO / "examples" / "bookshop",
        root / "examples" / "bookshop",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (root / "examples" / "__init__.py").write_text(
        (REPO / "examples" / "__init__.py").read_text(encoding="utf-8")
    )
    (root / "pyproject.toml").write_text(CONFIG)
    return root / "pyproject.toml"


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_output_does_not_depend_on_the_worker_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(mcp_codegen._generator.workers.pool, "worker_count", lambda: workers)
    config = load_config(_project(tmp_path / "proj"))
    result = build(config, use_cache=False)
    assert not result.errors, "\n".join(map(str, result.errors))
    assert {f.relative_path: f.content for f in result.files} == _committed_tree()
    assert {d.source.relative_path for d in result.rebuilt} == {
        "examples/bookshop/catalog.py",
        "examples/bookshop/members.py",
        "examples/bookshop/orders.py",
        "examples/bookshop/reports.py",
    }


@pytest.mark.slow
def test_one_edited_module_rebuilt_equals_a_build_without_cache(tmp_path: Path) -> None:
    config = load_config(_project(tmp_path / "proj"))
    first = build(config)  # every module inspected, rendered, and stored
    assert not first.errors, "\n".join(map(str, first.errors))
    edited = tmp_path / "proj" / "examples" / "bookshop" / "orders.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    again = build(config)  # only orders.py is inspected again; the others come from the cache
    cold = build(config, use_cache=False)
    assert not again.errors and not cold.errors
    assert [d.source.relative_path for d in again.rebuilt] == ["examples/bookshop/orders.py"]
    assert {f.relative_path: f.content for f in again.files} == {
        f.relative_path: f.content for f in cold.files
    }
    assert again.files != first.files  # the edit changed the recorded source digest
