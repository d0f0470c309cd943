"""The stored tools/list answers are keyed on the sources that make them: every one must exist.

A source missing from the key (a path left behind by a move) makes ``entry_path`` fail, which
the fast path takes as "no stored answer": every run a miss, with no word. This reads the key's
source list as the package has it now.
"""

from __future__ import annotations

from pathlib import Path

from mcp_codegen.runtime._stdio import listing_cache

PACKAGE = Path(listing_cache.__file__).resolve().parents[2]


def test_every_source_the_key_reads_exists() -> None:
    missing = [name for name in listing_cache._DERIVING if not (PACKAGE / name).is_file()]
    assert missing == []


def test_the_key_covers_the_one_reader_of_the_generated_format() -> None:
    assert {"_shared/format.py", "_shared/reader.py"} <= set(listing_cache._DERIVING)


def test_a_tree_gets_an_entry_path(tmp_path: Path) -> None:
    tree = tmp_path / "generated"
    tree.mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-codegen]\n", encoding="utf-8")
    for name in ("__init__.py", "_servers.py", "tools.py"):
        (tree / name).write_text("X = 1\n", encoding="utf-8")
    path = listing_cache.entry_path(str(tree), "pkg.server:mcp", ["tools.py"], "_servers.py")
    assert path.startswith(str(tmp_path / ".mcp-codegen-cache" / "listings"))
    assert path != listing_cache.entry_path(str(tree), "pkg.other:mcp", ["tools.py"], "_servers.py")
