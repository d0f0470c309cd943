"""``mcp-codegen run`` on the drop-in corpus: with and without the fast path, the same bytes.

Each corpus package is generated in its flavor with its server as the run target, then run
twice through ``mcp-codegen run`` with every message sent at once (so the calls arrive before
the server has loaded): initialize, ping, tools/list, a tools/call of every listed tool with no
arguments (invalid for most, valid or raising for the rest), an unknown tool, resources/list,
prompts/list and an unknown method. The oracle is ``--no-fast-path``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.project import codegen_env
from tests.runtime.run.run_support import (
    FIXTURES,
    REPO,
    assert_same_answers,
    build_published_project,
)

pytestmark = pytest.mark.process

PACKAGES = {
    "sdk2": "mcp",
    "sdk1": "mcp",
    "fastmcp_style": "fastmcp",
}
# patterns_sdk2 / patterns_fastmcp (a server assembled by registration functions, and one built by
# a factory): test_run_fastpath_patterns.py.


@pytest.mark.slow
@pytest.mark.parametrize("package", list(PACKAGES))
def test_corpus_same_answers(package: str, tmp_path: Path) -> None:
    target = build_published_project(tmp_path, package, PACKAGES[package])
    assert_same_answers(target, cwd=tmp_path, env=codegen_env(PYTHONPATH=f"{REPO}:{FIXTURES}"))
