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
from tests.runtime.run.run_support import INITIALIZED, REPO, exchange, initialize, request

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
        [sys.executable, "-m", "codegen", "generate"],
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
    env = codegen_env(PYTHONPATH=f"{REPO}:{FIXTURES}")
    command = [sys.executable, "-m", "codegen", "run", "--generated", "generated", target]
    opening = [initialize(), INITIALIZED, request(2, "ping"), request(3, "tools/list")]
    listed, _, err = exchange(command, opening, {1, 2, 3}, cwd=tmp_path, env=env)
    assert set(listed) == {1, 2, 3}, err
    names = [tool["name"] for tool in json.loads(listed[3])["result"]["tools"]]
    assert names
    calls = [
        request(10 + index, "tools/call", {"name": name, "arguments": {}})
        for index, name in enumerate(names)
    ]
    tail = [
        request(4, "tools/call", {"name": "no_such_tool", "arguments": {}}),
        request(5, "resources/list"),
        request(6, "prompts/list"),
        request(7, "no/such/method"),
    ]
    messages = [*opening, *calls, *tail]
    expect = {1, 2, 3, 4, 5, 6, 7, *range(10, 10 + len(names))}
    fast, fast_notes, fast_err = exchange(command, messages, expect, cwd=tmp_path, env=env)
    plain, plain_notes, plain_err = exchange(
        [*command[:4], "--no-fast-path", *command[4:]], messages, expect, cwd=tmp_path, env=env
    )
    assert set(plain) == expect, plain_err
    assert set(fast) == expect, fast_err
    different = [i for i in sorted(expect) if fast[i] != plain[i]]
    assert not different, [(fast[i], plain[i]) for i in different[:3]]
    assert fast_notes == plain_notes
