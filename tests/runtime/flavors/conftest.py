"""Generated outputs and call answers shared by the flavored-runtime tests, each made once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.framework_calls import PACKAGES, Answers, build


@pytest.fixture(scope="session")
def outputs() -> dict[str, Path]:
    """``package -> generated output directory``, each package in its framework's flavor."""
    # Both frameworks are test dependencies: a missing one must fail, never skip.
    import fastmcp  # noqa: F401
    import mcp.server.mcpserver  # noqa: F401

    return {package: build(flavor, sources) for package, (flavor, sources, _) in PACKAGES.items()}


@pytest.fixture(scope="session")
def answers(outputs: dict[str, Path]) -> Answers:
    return Answers(outputs)
