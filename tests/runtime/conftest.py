"""Fixtures for the runtime tests: the npm-installed MCP clients."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from runtime_support import NODE_PROJECT


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The npm clients, installed from the committed lockfile on first use."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("node and npm (Node 20+) are required for the TypeScript/Inspector e2e tests")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    major = int(version.stdout.strip().lstrip("v").split(".")[0])
    assert major >= 20, f"Node 20+ is required, found {version.stdout.strip()}"
    modules = NODE_PROJECT / "node_modules"
    if not all(
        (modules / "@modelcontextprotocol" / package / "package.json").is_file()
        for package in ("sdk", "client", "inspector-cli")
    ):
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_PROJECT, check=True, timeout=600
        )
    return modules
