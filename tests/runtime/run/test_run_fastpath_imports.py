"""``mcp-codegen run``'s front answers the opening with the standard library's light modules:
no framework, and none of the modules that cost milliseconds before the first answer
(``typing`` through the hook's import patcher, ``argparse`` through the command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.project import Project, codegen_env
from tests.runtime.run.run_support import INITIALIZED, initialize, line, request

pytestmark = pytest.mark.process

SERVER = '''
from fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''
COMMAND = ["-m", "mcp_codegen", "run", "--generated", "generated", "pkg.server:mcp"]
HEAVY = {"mcp", "mcp_types", "fastmcp", "pydantic", "anyio", "asyncio", "typing", "argparse"}


def _opening(root: Path) -> tuple[list[int], set[str]]:
    """Answer ids and imported modules of one fast-path opening (the server is never needed:
    input ends after tools/list, and the import waits for the handover)."""
    opening = [initialize(), INITIALIZED, request(2, "tools/list"), request(3, "ping")]
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", *COMMAND],
        input=b"".join(line(message) for message in opening),
        capture_output=True,
        cwd=root,
        env=codegen_env(PYTHONPATH=str(root), MCP_CODEGEN_FAST_PATH_PRELOAD="0"),
        timeout=120,
        check=True,
    )
    modules = {
        entry.rsplit("|", 1)[-1].strip()
        for entry in completed.stderr.decode().splitlines()
        if entry.startswith("import time:")
    }
    return [json.loads(answer)["id"] for answer in completed.stdout.splitlines()], modules


def _generate(tmp_path: Path) -> None:
    """The fastmcp server of this file, generated in ``tmp_path``."""
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVER)
    project.configure('sources = ["pkg"]\nflavor = "fastmcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr


def test_the_front_answers_without_heavy_imports(tmp_path: Path) -> None:
    _generate(tmp_path)
    ids, modules = _opening(tmp_path)
    assert ids == [1, 2, 3]  # answered by the front: nothing of the framework was imported
    assert HEAVY & modules == set()
    assert "mcp_codegen.runtime._stdio.front" in modules  # the control: importtime saw the front


#: What a stored listing's opening does not need either: ``json`` and ``re`` (the front reads and
#: writes JSON with ``_json`` directly: _stdio/wire_json.py), the hook's index (it loads with the
#: server) and the registry loader (the listing is read, not shaped).
STORED_HEAVY = HEAVY | {
    "re",
    "json",
    "enum",
    "mcp_codegen.runtime._hook.entries",
    "mcp_codegen._registration.import_patch",
    "mcp_codegen.runtime._load.registry",
}


def test_a_stored_listing_is_answered_without_json_re_or_the_hook(tmp_path: Path) -> None:
    _generate(tmp_path)
    first_ids, first = _opening(tmp_path)  # shapes the listing and stores it
    ids, modules = _opening(tmp_path)
    assert first_ids == ids == [1, 2, 3]
    assert "mcp_codegen.runtime._load.registry" in first  # the control: the first one shaped
    assert STORED_HEAVY & modules == set()
    assert "mcp_codegen.runtime._stdio.front" in modules
