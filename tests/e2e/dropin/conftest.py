"""Generated outputs shared by the drop-in tests: one build per corpus package, made once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.corpus import PACKAGES, PUBLISHED, build_flavor


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """``package -> {"wire", "generated", "root", "output"}``, generated in its flavor."""
    # Both frameworks are test dependencies: a missing one must fail, never skip.
    import fastmcp  # noqa: F401
    import mcp.server.mcpserver  # noqa: F401

    built = {}
    for package, flavor in PACKAGES.items():
        root: Path = tmp_path_factory.mktemp(package)
        tools, output = build_flavor(root, flavor, [PUBLISHED / package])
        built[package] = {**tools, "root": root, "output": output}
    return built
