"""``mcp-codegen run --strict`` on a composed package (issue 19 item 4): the fast path answers a
mounted server's tools/list from its own entries (another server has a tool of the same name),
the composing server's from the framework; every answer equals ``--no-fast-path``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.dropin.test_composed_servers import FASTMCP_SOURCES, make
from tests.helpers.project import codegen_env
from tests.runtime.run.run_support import INITIALIZED, exchange, initialize, request, run_command

pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = make(tmp_path_factory.mktemp("run-composed"), "fastmcp", FASTMCP_SOURCES)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    return project.root


MESSAGES = [
    initialize(),
    INITIALIZED,
    request(2, "tools/list"),
    request(3, "tools/call", {"name": "search", "arguments": {"text": "x"}}),
    request(4, "tools/list"),
]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["pkg.wiki:wiki", "pkg.jira:jira", "pkg.main:main"])
def test_run_strict_answers_as_the_plain_server(root: Path, target: str) -> None:
    def run(*options: str) -> dict[object, bytes]:
        answers, _, err = exchange(
            run_command("generated", target, "--strict", *options),
            MESSAGES,
            {1, 2, 3, 4},
            cwd=root,
            env=codegen_env(PYTHONPATH=str(root)),
            timeout=90,
        )
        assert set(answers) == {1, 2, 3, 4}, err
        return answers

    fast, plain = run(), run("--no-fast-path")
    assert fast == plain
    if target == "pkg.wiki:wiki":  # its `search` (text), not jira's (query, limit)
        assert b'"text"' in fast[2] and b'"limit"' not in fast[2]


MOUNTED_WHEN_RUN = {
    "pkg/__init__.py": "",
    "pkg/sub.py": '''
        from fastmcp import FastMCP

        sub = FastMCP("sub")


        @sub.tool()
        def ping(host: str) -> str:
            """Ping a host."""
            return host
        ''',
    "pkg/app.py": """
        from fastmcp import FastMCP

        from pkg.sub import sub

        app = FastMCP("app")


        def main() -> None:
            app.mount(sub)
            app.run()
        """,
}


@pytest.mark.slow
def test_a_function_target_that_mounts_when_it_runs_lists_what_it_serves(
    tmp_path: Path,
) -> None:
    """``run_targets = ["pkg.app:main"]``, as ``run``'s own note says to write it: the module's
    server is ``app`` (``sub`` is only imported), so the target is recorded; ``main()`` mounts
    ``sub`` when it runs, so its tools/list is the framework's, never the import's empty one."""
    project = make(tmp_path, "fastmcp", MOUNTED_WHEN_RUN)
    project.configure('sources = ["pkg"]\nflavor = "fastmcp"\nrun_targets = ["pkg.app:main"]\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    assert "pkg.app:main" in (tmp_path / "generated" / "__servers__.py").read_text()

    def run(*options: str) -> dict[object, bytes]:
        answers, _, err = exchange(
            run_command("generated", "pkg.app:main", *options),
            [initialize(), INITIALIZED, request(2, "tools/list")],
            {1, 2},
            cwd=tmp_path,
            env=codegen_env(PYTHONPATH=str(tmp_path)),
            timeout=90,
        )
        assert set(answers) == {1, 2}, err
        return answers

    fast, plain = run(), run("--no-fast-path")
    assert b'"ping"' in plain[2]
    assert fast == plain
