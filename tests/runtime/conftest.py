"""Fixtures for the runtime tests: the npm-installed MCP clients."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.npm import npm_ci
from tests.runtime.runtime_support import NODE_PROJECT


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The npm clients, installed from the committed lockfile on first use."""
    modules = NODE_PROJECT / "node_modules"
    npm_ci(
        NODE_PROJECT,
        [
            modules / "@modelcontextprotocol" / package / "package.json"
            for package in ("sdk", "client", "inspector-cli")
        ],
        "for the TypeScript/Inspector e2e tests",
    )
    return modules
