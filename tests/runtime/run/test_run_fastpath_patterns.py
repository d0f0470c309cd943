"""``mcp-codegen run`` on the drop-in corpus's pattern servers (tests/fixtures/published/
patterns_*): with and without the fast path, the same bytes.

Each package is generated once in its flavor (its tool modules and its factory, with
``factories``) with two run targets: the server its ``server.py`` assembles from registration
functions (``published.patterns_sdk2.server:mcp``) and the server its factory builds
(``published.patterns_sdk2.factory:create_server(namespace='team_')``). Both must be recorded
(initialize and tools), and each is run twice through ``mcp-codegen run`` with every message sent
at once, so the calls arrive before the server has loaded: initialize, ping, tools/list, a
tools/call of every listed tool with no arguments, an unknown tool, resources/list, prompts/list
and an unknown method. The oracle is ``--no-fast-path``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen._shared.format import SERVERS_FILE, check_servers
from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.project import codegen_env
from tests.runtime.run.run_support import REPO, assert_same_answers

pytestmark = pytest.mark.process

FIXTURES = REPO / "tests" / "fixtures"
PACKAGES = {"patterns_sdk2": "mcp", "patterns_fastmcp": "fastmcp"}
TOOL_MODULES = (
    "tools_added.py",
    "tools_constants.py",
    "tools_context.py",
    "tools_global.py",
    "tools_state.py",
    "tools_wrapped.py",
    "factory.py",
)


def _targets(package: str) -> list[str]:
    return [
        f"published.{package}.server:mcp",
        f"published.{package}.factory:create_server(namespace='team_')",
    ]


@pytest.fixture(scope="module", params=list(PACKAGES))
def built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    package = request.param
    root = tmp_path_factory.mktemp(package)
    folder = FIXTURES / "published" / package
    targets = _targets(package)
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f"sources = {json.dumps([str(folder / name) for name in TOOL_MODULES])}\n"
        'output = "generated"\n'
        f'flavor = "{PACKAGES[package]}"\n'
        f"python_path = {json.dumps([str(REPO), str(FIXTURES)])}\n"
        f"factories = {json.dumps(targets[1:])}\n"
        f"run_targets = {json.dumps(targets)}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "generate"],
        cwd=root,
        env=codegen_env(PYTHONPATH=f"{REPO}:{FIXTURES}"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert ": warning: " not in done.stderr, done.stderr
    path = root / "generated" / SERVERS_FILE
    values = parse_literal_module(path.read_text(encoding="utf-8"), str(path))
    records = {record["object"]: record for record in check_servers(values, str(path))}
    for target in targets:  # both recorded in full: the fast path answers initialize and tools
        assert records[target]["initialize"] and records[target]["tools"], target
    return root, package


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["registration-functions", "factory"])
def test_pattern_servers_same_answers(built: tuple[Path, str], which: int) -> None:
    root, package = built
    target = _targets(package)[which]
    assert_same_answers(target, cwd=root, env=codegen_env(PYTHONPATH=f"{REPO}:{FIXTURES}"))
