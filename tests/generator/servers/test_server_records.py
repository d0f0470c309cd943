"""``generate`` records what each server says at initialize, only where two imports agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._shared.format import SERVERS_FILE, check_servers
from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.project import Project, codegen_env
from tests.runtime.run.run_support import INITIALIZED, exchange, initialize, run_command

pytestmark = pytest.mark.process

SERVER = '''
    import os

    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("demo", version=os.environ.get("DEMO_VERSION", "dev"))
    steady = MCPServer("steady", instructions="Always the same.")


    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b


    @steady.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text
    '''


def _records(root: Path) -> dict[str, dict[str, object]]:
    path = root / "generated" / SERVERS_FILE
    values = parse_literal_module(path.read_text(encoding="utf-8"), str(path))
    return {record["object"]: record for record in check_servers(values, str(path))}


@pytest.mark.slow
def test_a_value_from_the_environment_is_not_recorded(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVER)
    project.configure('sources = ["pkg"]\nflavor = "mcp"\n')
    done = project.run("generate", env=codegen_env(DEMO_VERSION="1.2.3"))
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if ": warning: " in line]
    assert len(warnings) == 1, done.stderr
    assert warnings[0].startswith("pkg/server.py:5:1: warning: server pkg.server:mcp: its")
    assert "'1.2.3' vs 'dev'" in warnings[0] and "without the fast path" in warnings[0]
    records = _records(tmp_path)
    assert records["pkg.server:mcp"]["initialize"] is None
    steady = records["pkg.server:steady"]
    assert steady["tools"] == ("echo",) and steady["line"] == 6
    answers = steady["initialize"]
    assert isinstance(answers, dict)
    assert sorted(answers) == ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    assert answers["2025-06-18"]["serverInfo"]["name"] == "steady"
    assert answers["2025-06-18"]["instructions"] == "Always the same."
    assert answers["2025-06-18"]["protocolVersion"] == "2025-06-18"
    # Deterministic: a second build (no cache) writes the same bytes.
    before = project.snapshot()
    again = project.run("generate", "--no-cache", env=codegen_env(DEMO_VERSION="1.2.3"))
    assert again.returncode == 0, again.stderr
    assert project.snapshot() == before


@pytest.mark.slow
def test_a_run_target_that_cannot_be_imported_costs_only_its_own_record(tmp_path: Path) -> None:
    """A run target whose module needs a variable the reduced environment drops fails in one
    probe: it gets one warning and a record without ``initialize``, and the other servers keep
    theirs (every record was dropped, so no server had the fast path), each server recorded
    once (a target that names a server the modules bind was recorded twice)."""
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVER)
    project.write(
        "pkg/other.py",
        """
        import os

        from mcp.server.mcpserver import MCPServer

        TOKEN = os.environ["OTHER_TOKEN"]
        app = MCPServer("other")
        """,
    )
    project.configure(
        'sources = ["pkg"]\nflavor = "mcp"\nrun_targets = ["pkg.server:steady", "pkg.other:app"]\n'
    )
    done = project.run("generate", env=codegen_env(OTHER_TOKEN="t"))
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if ": warning: " in line]
    assert warnings == [
        "pyproject.toml: warning: run target pkg.other:app: cannot record what it answers at "
        "initialize (importing pkg.other raised KeyError: 'OTHER_TOKEN'); `mcp-codegen run` "
        "serves it without the fast path"
    ]
    path = tmp_path / "generated" / SERVERS_FILE
    objects = [
        record["object"]
        for record in check_servers(parse_literal_module(path.read_text(), str(path)), str(path))
    ]
    assert sorted(objects) == ["pkg.other:app", "pkg.server:mcp", "pkg.server:steady"]
    records = _records(tmp_path)
    assert records["pkg.other:app"]["initialize"] is None
    assert records["pkg.server:steady"]["tools"] == ("echo",)
    assert isinstance(records["pkg.server:steady"]["initialize"], dict)


BUILT_IN_MAIN = '''
    from mcp.server.mcpserver import MCPServer


    def main() -> None:
        mcp = MCPServer("built")

        @mcp.tool()
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b

        mcp.run()
    '''


@pytest.mark.slow
def test_a_main_that_builds_its_server_is_pointed_at_its_call(tmp_path: Path) -> None:
    """``run_targets = ["pkg.server:main"]`` where ``main()`` builds the server: generate said
    "binds 0 server objects at top level; name one as module:object", and ``run pkg.server:main``
    asked to add the target already in run_targets. Both now point at the call ``main()``,
    which ``factories`` records (awslabs-aws-dataprocessing-mcp-server)."""
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", BUILT_IN_MAIN)
    project.configure(
        'sources = ["pkg"]\nflavor = "mcp"\nfactories = ["pkg.server:main()"]\n'
        'run_targets = ["pkg.server:main"]\n'
    )
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert (
        "pyproject.toml: warning: run target pkg.server:main: cannot record what it answers at "
        "initialize (pkg.server binds no server object at top level, so main() must build it "
        'when it runs: list the call, "pkg.server:main()", in run_targets instead)'
    ) in done.stderr
    assert _records(tmp_path)["pkg.server:main()"]["initialize"] is not None
    answers, _, stderr = exchange(
        run_command("generated", "pkg.server:main"),
        [initialize(), INITIALIZED],
        {1},
        cwd=tmp_path,
        env=codegen_env(PYTHONPATH=str(tmp_path)),
    )
    assert set(answers) == {1}, stderr
    assert 'run `mcp-codegen run "pkg.server:main()"` for the fast path' in stderr
