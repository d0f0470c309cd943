"""Golden schema case files: one ``.py`` per case holding its source and, after it, the expected
schemas (docs/testing.md, "Golden cases").

A case file is an ordinary importable module (the generator builds it as it is) that ends with a
comment block::

    # expected schema:
    # {"inputSchema": {...}, "outputSchema": {...} or null}

every line of the JSON prefixed with ``# ``. Nothing follows the block.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers.project import REPO

MARK = "# expected schema:"
SEED000 = REPO / "tests" / "fixtures" / "seed000"


def read_case(path: Path) -> tuple[str, dict[str, Any]]:
    """A case file's source (everything before the mark) and its expected schemas."""
    text = path.read_text(encoding="utf-8")
    source, found, block = text.partition(f"\n{MARK}\n")
    if not found:
        raise ValueError(f"{path}: no {MARK!r} line; add the expected schemas (docs/testing.md)")
    lines = block.splitlines()
    if not all(line == "#" or line.startswith("# ") for line in lines):
        raise ValueError(f"{path}: every line after {MARK!r} must start with '# '")
    return source + "\n", json.loads("\n".join(line[2:] for line in lines))


def seed_cases() -> list[Path]:
    """Seed 000's case files (every module but the package and its ``openmcp`` stand-in)."""
    return sorted(p for p in SEED000.glob("*.py") if p.stem not in ("__init__", "openmcp"))
