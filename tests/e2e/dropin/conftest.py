"""Generated outputs shared by the drop-in tests: one build per corpus package, made once per
test process (``PROCESS_BUILDS``, which the flavored-runtime, hook and profile tests share)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.corpus import PACKAGES, PROCESS_BUILDS, PUBLISHED


@pytest.fixture(scope="session")
def corpus() -> dict[str, dict[str, Any]]:
    """``package -> {"wire", "generated", "root", "output"}``, generated in its flavor."""
    # Both frameworks are test dependencies: a missing one must fail, never skip.
    import fastmcp  # noqa: F401
    import mcp.server.mcpserver  # noqa: F401

    built = {}
    for package, flavor in PACKAGES.items():
        tools, output = PROCESS_BUILDS.get(flavor, [PUBLISHED / package])
        built[package] = {**tools, "root": output.parent, "output": output}
    return built
