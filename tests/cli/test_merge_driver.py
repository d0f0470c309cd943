"""The merge driver masks only what derives from the source text (digest, recorded lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._cli.merge_driver import mask, merge

ROOT = Path(__file__).resolve().parents[2]


def test_mask_zeroes_source_derived_values_only() -> None:
    text = (ROOT / "generated/examples/bookshop/catalog.py").read_text(encoding="utf-8")
    masked = mask(text)
    assert "# Source sha256: " + "0" * 64 in masked and 'SOURCE_SHA256 = "' + "0" * 64 in masked
    assert '"parameters": {' in text and '"parameters": {' not in masked
    assert '"fields": (' in text and '"fields": (' not in masked  # model field lines
    assert '"line": 0,' in masked and '"line": 30,' not in masked
    kept = [line for line in text.splitlines() if "sha256" not in line.lower()]
    schema_lines = [line for line in kept if '"description"' in line or '"enum"' in line]
    assert all(line in masked.splitlines() for line in schema_lines)


@pytest.mark.process
def test_merge_is_clean_when_only_derived_values_differ() -> None:
    base = 'SOURCE_SHA256 = "' + "a" * 64 + '"\nTOOLS = (\n    {\n        "line": 3,\n    },\n)\n'
    ours = base.replace("a" * 64, "b" * 64).replace('"line": 3', '"line": 9')
    theirs = base.replace("a" * 64, "c" * 64)
    merged, clean = merge(base, ours, theirs)
    assert clean and '"line": 0,' in merged
    conflicting = theirs.replace("TOOLS = (", "TOOLS = (\n    {'name': 'x'},")
    ours_conflict = ours.replace("TOOLS = (", "TOOLS = (\n    {'name': 'y'},")
    assert merge(base, ours_conflict, conflicting)[1] is False
