"""Installing a test's npm packages (the TypeScript clients, the conformance suite)."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path


def npm_ci(project: Path, required: Sequence[Path], purpose: str) -> None:
    """Install ``project``'s npm packages from its committed lockfile unless every ``required``
    file is there already; node and npm (Node 20+) must be on the machine: fail, never skip."""
    import pytest

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(f"node and npm (Node 20+) are required {purpose}")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    major = int(version.stdout.strip().lstrip("v").split(".")[0])
    assert major >= 20, f"Node 20+ is required, found {version.stdout.strip()}"
    # pytest-xdist workers share the directory: one installs, the others wait for it (``npm ci``
    # starts by deleting node_modules, so two at once would break each other).
    lock = Path(tempfile.gettempdir()) / f"mcp-codegen-npm-{_digest(project)}.lock"
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        if not all(path.exists() for path in required):
            command = [npm, "ci", "--no-audit", "--no-fund"]
            subprocess.run(command, cwd=project, check=True, timeout=600)


def _digest(path: Path) -> str:
    return hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
