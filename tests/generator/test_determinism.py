"""Determinism whatever the order in which source files are found.

tests/cli/test_generate_check.py already proves byte-identical output under five ``PYTHONHASHSEED``
values and five checkout paths. Here the build runs in-process with the discovered file list
shuffled (so every later stage, the worker pool included, sees another order), with files created
on disk in another order, and with ``sources`` listed differently; the rendered tree must equal the
committed ``generated/`` every time.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import mcp_codegen._generator.pipeline
from mcp_codegen._generator.config import load_config
from tests.helpers.project import REPO

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

EXAMPLE = REPO / "examples"
CONFIG = (
    'injected_types = ["examples.bookshop.deps.Settings", "examples.bookshop.deps.ConfigPaths"]\n'
    'version = "0.1.0"\n'
    'regenerate_command = "nox -s codegen"\n'  # as this repository's pyproject.toml
)


def committed_tree() -> dict[str, str]:
    return {
        p.relative_to(REPO / "generated").as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((REPO / "generated").rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def copy_example(root: Path, order: Callable[[list[Path]], list[Path]]) -> None:
    """Copy examples/ into ``root``, creating the files in the order ``order`` gives."""
    files = sorted(p for p in EXAMPLE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for source in order(files):
        target = root / "examples" / source.relative_to(EXAMPLE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def shuffled(seed: int) -> Callable[[list[Path]], list[Path]]:
    def order(items: list[Path]) -> list[Path]:
        items = list(items)
        random.Random(seed).shuffle(items)
        return items

    return order


VARIANTS = {
    # name: (file creation order on disk, order of the discovered list, `sources`)
    "sorted": (sorted, sorted, '["examples/bookshop"]'),
    "reversed": (shuffled(1), lambda files: sorted(files, reverse=True), '["examples/bookshop"]'),
    "shuffled-7": (shuffled(7), shuffled(7), '["examples/bookshop"]'),
    "shuffled-99": (reversed, shuffled(99), '["examples/bookshop"]'),
    "sources-by-file": (
        shuffled(3),
        shuffled(3),
        '["examples/bookshop/reports.py", "examples/bookshop/catalog.py", '
        '"examples/bookshop/orders.py", "examples/bookshop/members.py"]',
    ),
    "sources-overlapping": (
        shuffled(5),
        shuffled(5),
        '["examples/bookshop/orders.py", "examples/bookshop", "examples/bookshop/catalog.py"]',
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_output_does_not_depend_on_discovery_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    creation, discovery, sources = VARIANTS[variant]
    root = tmp_path / "proj"
    copy_example(root, creation)  # type: ignore[arg-type]
    (root / "pyproject.toml").write_text(f"[tool.mcp-codegen]\nsources = {sources}\n{CONFIG}")
    discover = mcp_codegen._generator.pipeline.discover_sources
    seen: list[list[str]] = []

    def discover_in_another_order(config):  # type: ignore[no-untyped-def]
        files, problems = discover(config)
        files = list(discovery(files))  # type: ignore[operator]
        seen.append([p.name for p in files])
        return files, problems

    monkeypatch.setattr(
        mcp_codegen._generator.pipeline, "discover_sources", discover_in_another_order
    )
    result = mcp_codegen._generator.pipeline.build(load_config(root / "pyproject.toml"))

    assert not result.errors, "\n".join(map(str, result.errors))
    assert seen, (
        "the build did not discover sources through mcp_codegen._generator.pipeline.discover_sources"
    )
    if variant != "sorted":
        assert seen[0] != sorted(seen[0]), "this variant must feed the build another order"
    assert {f.relative_path: f.content for f in result.files} == committed_tree()
