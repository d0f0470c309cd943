"""``mcp-codegen run "pkg.server:create_server(...)"``: the fast path answers a recorded factory
call without its parser's imports (``ast``, ``inspect``, ``typing``: ~30 ms before the first
answer), and a call that does not parse is still refused with exit 2, with or without the fast
path."""

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


def create_server(namespace: str = "") -> FastMCP:
    server = FastMCP(f"{namespace}notes")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return server
'''
CALL = "pkg.server:create_server(namespace='team_')"
RUN = [sys.executable, "-X", "importtime", "-m", "mcp_codegen", "run"]
HEAVY = {"mcp", "fastmcp", "pydantic", "typing", "argparse", "ast", "inspect"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = Project(tmp_path_factory.mktemp("factory-front"))
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVER)
    project.configure(f'sources = ["pkg"]\nflavor = "fastmcp"\nfactories = ["{CALL}"]\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    return project.root


def _run(root: Path, target: str, *options: str) -> subprocess.CompletedProcess[bytes]:
    opening = [initialize(), INITIALIZED, request(2, "tools/list")]
    return subprocess.run(
        [*RUN, *options, "--generated", "generated", target],
        input=b"".join(line(message) for message in opening),
        capture_output=True,
        cwd=root,
        env=codegen_env(PYTHONPATH=str(root), MCP_CODEGEN_FAST_PATH_PRELOAD="0"),
        timeout=120,
    )


@pytest.mark.slow
def test_a_recorded_factory_call_is_answered_without_the_parser(built: Path) -> None:
    for attempt in ("shaped", "stored"):
        done = _run(built, CALL)
        assert done.returncode == 0, done.stderr
        answers = [json.loads(answer) for answer in done.stdout.splitlines()]
        assert [answer["id"] for answer in answers] == [1, 2], attempt
        assert [tool["name"] for tool in answers[1]["result"]["tools"]] == ["add"]
        modules = {
            entry.rsplit("|", 1)[-1].strip()
            for entry in done.stderr.decode().splitlines()
            if entry.startswith("import time:")
        }
        assert "mcp_codegen.runtime._stdio.front" in modules  # the control
        assert HEAVY & modules == set(), attempt
        if attempt == "stored":  # the registry is not even loaded
            assert "mcp_codegen.runtime._load.registry" not in modules


@pytest.mark.parametrize("options", [(), ("--no-fast-path",)])
def test_a_factory_call_that_does_not_parse_is_refused(built: Path, options: tuple[str]) -> None:
    done = _run(built, "pkg.server:create_server(namespace=open('x'))", *options)
    assert done.returncode == 2
    assert done.stdout == b""
    errors = [
        entry for entry in done.stderr.decode().splitlines() if not entry.startswith("import time:")
    ]
    assert len(errors) == 1 and errors[0].startswith("mcp-codegen run: TARGET "), errors
