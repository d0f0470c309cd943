"""``mcp-codegen run`` on the drop-in corpus: with and without the fast path, the same bytes.

Each corpus package is generated in its flavor with its server as the run target, then run
twice through ``mcp-codegen run`` with every message sent at once (so the calls arrive before
the server has loaded): initialize, ping, tools/list, a tools/call of every listed tool with no
arguments (invalid for most, valid or raising for the rest), an unknown tool, resources/list,
prompts/list and an unknown method. The oracle is ``--no-fast-path``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.project import codegen_env
from tests.runtime.run.run_support import REPO, assert_same_answers

pytestmark = pytest.mark.slow

FIXTURES = REPO / "tests" / "fixtures"
PACKAGES = {
    "sdk2": "mcp",
    "sdk1": "mcp",
    "fastmcp_style": "fastmcp",
}
# patterns_sdk2 / patterns_fastmcp (a server assembled by registration functions, and one built by
# a factory): test_run_fastpath_patterns.py.


def _build(root: Path, package: str, flavor: str) -> str:
    target = f"published.{package}.server:mcp"
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f"sources = {json.dumps([str(FIXTURES / 'published' / package)])}\n"
        'output = "generated"\n'
        f'flavor = "{flavor}"\n'
        f"python_path = {json.dumps([str(REPO), str(FIXTURES)])}\n"
        f"run_targets = {json.dumps([target])}\n",
        encoding="utf-8",
    )
    env = codegen_env(PYTHONPATH=f"{REPO}:{FIXTURES}")
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "generate"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    servers = (root / "generated" / "__servers__.py").read_text()
    assert f'"object": "{target}"' in servers
    return target


@pytest.mark.parametrize("package", list(PACKAGES))
def test_corpus_same_answers(package: str, tmp_path: Path) -> None:
    target = _build(tmp_path, package, PACKAGES[package])
    assert_same_answers(target, cwd=tmp_path, env=codegen_env(PYTHONPATH=f"{REPO}:{FIXTURES}"))
