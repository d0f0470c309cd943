"""Generated outputs shared by the drop-in tests: one build per corpus package, made once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dropin_support import PACKAGES, PUBLISHED, build_flavor


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """``package -> {"wire", "generated", "root", "output"}``, generated in its flavor."""
    pytest.importorskip("mcp.server.mcpserver", reason="the corpus builds against mcp>=2")
    pytest.importorskip("fastmcp", reason="flavor fastmcp builds against fastmcp 4.x")
    built = {}
    for package, flavor in PACKAGES.items():
        root: Path = tmp_path_factory.mktemp(package)
        tools, output = build_flavor(root, flavor, [PUBLISHED / package])
        built[package] = {**tools, "root": root, "output": output}
    return built
