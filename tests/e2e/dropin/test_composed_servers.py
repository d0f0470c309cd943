"""Composed servers (issue 19 item 4): a package whose servers share tool names generates.

Oracles: each server's own tools/list in a plain process (no hook), against the same server
imported under ``use_generated(strict=True)`` (every tool listed from its generated entry, the
framework applying the composition: fastmcp ``mount`` namespaces and ``tool_names``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._shared.format import PRIVATE_KEY, SERVER_KEY
from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import REPO, Project, codegen_env

pytestmark = pytest.mark.process

FASTMCP_SOURCES = {
    "pkg/__init__.py": "",
    "pkg/jira.py": '''
        from fastmcp import FastMCP

        jira = FastMCP("jira")


        @jira.tool()
        def search(query: str, limit: int = 10) -> list[str]:
            """Search Jira issues."""
            return [query] * limit


        @jira.tool()
        def comment(issue: str, text: str) -> str:
            """Comment on an issue."""
            return issue + text
        ''',
    "pkg/wiki.py": '''
        from fastmcp import FastMCP

        wiki = FastMCP("wiki")


        @wiki.tool()
        def search(text: str) -> str:
            """Search wiki pages."""
            return text
        ''',
    "pkg/main.py": '''
        from fastmcp import FastMCP

        from pkg.jira import jira
        from pkg.wiki import wiki

        main = FastMCP("main")


        @main.tool()
        def search(everywhere: bool = True) -> str:
            """Search everything."""
            return "all"


        main.mount(jira, namespace="jira")
        main.mount(wiki, namespace="wiki", tool_names={"search": "wiki_lookup"})
        ''',
}
FASTMCP_SERVERS = ("pkg.main:main", "pkg.jira:jira", "pkg.wiki:wiki")

SDK_SOURCES = {
    "pkg/__init__.py": "",
    "pkg/alpha.py": '''
        from mcp.server.mcpserver import MCPServer

        alpha = MCPServer("alpha")


        @alpha.tool()
        def lookup(key: str) -> str:
            """Look a key up in alpha."""
            return key
        ''',
    "pkg/beta.py": '''
        from mcp.server.mcpserver import MCPServer

        beta = MCPServer("beta")


        @beta.tool()
        def lookup(key: str, exact: bool = False) -> dict[str, str]:
            """Look a key up in beta."""
            return {"key": key}
        ''',
    # one app in front of both servers (what the SDK's streamable HTTP mounting looks like)
    "pkg/app.py": """
        from starlette.applications import Starlette
        from starlette.routing import Mount

        from pkg.alpha import alpha
        from pkg.beta import beta

        app = Starlette(
            routes=[
                Mount("/alpha", app=alpha.streamable_http_app()),
                Mount("/beta", app=beta.streamable_http_app()),
            ]
        )
        """,
}
SDK_SERVERS = ("pkg.alpha:alpha", "pkg.beta:beta")

PROBE = """
import importlib, json, sys
if sys.argv[1] == "hooked":
    from mcp_codegen.runtime import use_generated
    use_generated("generated", strict=True)
from mcp_codegen._registration.served import list_served_tools
listed = {}
for target in sys.argv[2:]:
    module, _, attribute = target.partition(":")
    listed[target] = list_served_tools(getattr(importlib.import_module(module), attribute))
print(json.dumps(listed))
"""


def make(root: Path, flavor: str, sources: dict[str, str]) -> Project:
    project = Project(root)
    project.configure(f'sources = ["pkg"]\nflavor = "{flavor}"\n')
    for relative, text in sources.items():
        project.write(relative, text)
    return project


def listings(project: Project, mode: str, servers: tuple[str, ...]) -> dict[str, Any]:
    """Each server's tools/list, read in a fresh process, plain or under the strict hook."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode, *servers],
        cwd=project.root,
        capture_output=True,
        text=True,
        env=codegen_env(PYTHONPATH=f"{project.root}:{REPO}"),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def generated_servers(project: Project) -> list[tuple[str, str]]:
    _, modules = read_tree(project.root / "generated")
    return sorted(
        (tool["name"], tool[PRIVATE_KEY].get(SERVER_KEY))
        for module in modules
        for tool in module["TOOLS"]
    )


@pytest.fixture(scope="module")
def fastmcp_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    project = make(tmp_path_factory.mktemp("composed-fastmcp"), "fastmcp", FASTMCP_SOURCES)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    return project


@pytest.fixture(scope="module")
def sdk_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    project = make(tmp_path_factory.mktemp("composed-sdk"), "mcp", SDK_SOURCES)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    return project


@pytest.mark.slow
def test_fastmcp_mounted_servers_sharing_a_name_generate_keyed_per_server(
    fastmcp_project: Project,
) -> None:
    assert generated_servers(fastmcp_project) == [
        ("comment", "pkg.jira:jira"),
        ("search", "pkg.jira:jira"),
        ("search", "pkg.main:main"),
        ("search", "pkg.wiki:wiki"),
    ]


@pytest.mark.slow
def test_fastmcp_strict_hook_serves_the_composed_server_as_the_framework_does(
    fastmcp_project: Project,
) -> None:
    plain = listings(fastmcp_project, "plain", FASTMCP_SERVERS)
    hooked = listings(fastmcp_project, "hooked", FASTMCP_SERVERS)
    assert hooked == plain
    # the composition is the framework's: namespaces and renames applied when listing
    assert [t["name"] for t in plain["pkg.main:main"]] == [
        "search",
        "jira_search",
        "jira_comment",
        "wiki_wiki_lookup",  # fastmcp 4.x: the namespace, then the mount's own rename
    ]


@pytest.mark.slow
def test_sdk_servers_sharing_a_name_generate_and_serve_under_the_strict_hook(
    sdk_project: Project,
) -> None:
    assert generated_servers(sdk_project) == [
        ("lookup", "pkg.alpha:alpha"),
        ("lookup", "pkg.beta:beta"),
    ]
    plain = listings(sdk_project, "plain", SDK_SERVERS)
    assert listings(sdk_project, "hooked", SDK_SERVERS) == plain
    assert plain["pkg.alpha:alpha"] != plain["pkg.beta:beta"]  # two different `lookup` tools


@pytest.mark.slow
def test_export_shows_each_server_and_the_composed_list(fastmcp_project: Project) -> None:
    flat = fastmcp_project.run("export")
    assert flat.returncode == 2
    assert "share tool names" in flat.stderr and "--server" in flat.stderr
    plain = listings(fastmcp_project, "plain", FASTMCP_SERVERS)
    for server in ("pkg.jira:jira", "pkg.wiki:wiki"):  # no mounts: own list == served list
        own = fastmcp_project.run("export", "--server", server)
        assert own.returncode == 0, own.stderr
        assert json.loads(own.stdout)["tools"] == plain[server]
    own = fastmcp_project.run("export", "--server", "pkg.main:main")
    assert [t["name"] for t in json.loads(own.stdout)["tools"]] == ["search"]
    composed = fastmcp_project.run("export", "--server", "pkg.main:main", "--composed")
    assert composed.returncode == 0, composed.stderr
    assert json.loads(composed.stdout)["tools"] == plain["pkg.main:main"]
    unknown = fastmcp_project.run("export", "--server", "pkg.nope:x")
    assert unknown.returncode == 2 and "pkg.jira:jira" in unknown.stderr


@pytest.mark.slow
def test_verify_against_one_server_of_the_tree_compares_that_servers_tools(
    fastmcp_project: Project, sdk_project: Project
) -> None:
    """Each server's listing is compared with the tools generated for it, also through a name
    that another module binds it to (it was compared with every server's tools, so verifying a
    sub-server reported the others' tools, and two tools of one name clashed)."""
    for project, target, count in [
        (fastmcp_project, "pkg.jira:jira", "2 generated tools of its server (the tree holds 3)"),
        (fastmcp_project, "pkg.wiki:wiki", "1 generated tools of its server (the tree holds 3)"),
        (sdk_project, "pkg.alpha:alpha", "1 generated tools of its server (the tree holds 2)"),
        (sdk_project, "pkg.app:beta", "1 generated tools of its server (the tree holds 2)"),
    ]:
        done = project.run("verify", "--against", target)
        assert done.returncode == 0, (target, done.stdout, done.stderr)
        assert f"the {count} equal what {target}" in done.stdout
    # the composing server: its own tool equals; what it mounts it lists renamed
    main = fastmcp_project.run("verify", "--against", "pkg.main:main")
    assert main.returncode == 1
    assert main.stdout.splitlines() == [
        f'{name} -> (whole tool) -> theirs: "listed" / ours: (absent)'
        for name in ("jira_search", "jira_comment", "wiki_wiki_lookup")
    ]


@pytest.mark.slow
def test_export_composed_finds_a_src_layout(fastmcp_project: Project, tmp_path: Path) -> None:
    """The composed list is read with the project's import roots (``src/``), as ``run`` does."""
    project = Project(tmp_path)
    project.configure('sources = ["src/pkg"]\nflavor = "fastmcp"\n')
    for relative, text in FASTMCP_SOURCES.items():
        project.write(f"src/{relative}", text)
    assert (done := project.run("generate")).returncode == 0, done.stderr
    composed = project.run("export", "--server", "pkg.main:main", "--composed")
    assert composed.returncode == 0, composed.stderr
    plain = listings(fastmcp_project, "plain", ("pkg.main:main",))  # the framework's own list
    assert json.loads(composed.stdout)["tools"] == plain["pkg.main:main"]


@pytest.mark.slow
def test_fast_path_records_sub_servers_and_leaves_the_composed_listing_to_the_framework(
    fastmcp_project: Project,
) -> None:
    from mcp_codegen._shared.reader import parse_literal_module

    text = (fastmcp_project.root / "generated" / "__servers__.py").read_text()
    records = {r["object"]: r for r in parse_literal_module(text)["SERVERS"]}
    assert records["pkg.jira:jira"]["tools"] == ("search", "comment")
    assert records["pkg.wiki:wiki"]["tools"] == ("search",)
    assert records["pkg.main:main"]["tools"] is None  # prefixed names: the framework lists
    done = fastmcp_project.run("generate")
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "pkg/main.py:6:1: warning: server pkg.main:main composes other servers, whose tools it "
        "lists renamed (jira_search, jira_comment, wiki_wiki_lookup): `mcp-codegen run` "
        "answers its tools/list from the framework (initialize stays on the fast path)"
    ]


@pytest.mark.slow
def test_a_duplicate_within_one_server_is_the_error(tmp_path: Path) -> None:
    project = make(
        tmp_path,
        "fastmcp",
        {
            "pkg/__init__.py": "",
            "pkg/app.py": 'from fastmcp import FastMCP\n\nmcp = FastMCP("app")\n',
            "pkg/one.py": '''
                from pkg.app import mcp


                @mcp.tool()
                def search(query: str) -> str:
                    """Search one."""
                    return query
                ''',
            "pkg/two.py": '''
                from pkg import app


                @app.mcp.tool()
                def search(text: str) -> str:
                    """Search two: the same server, reached another way."""
                    return text
                ''',
        },
    )
    done = project.run("generate")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        "pkg/two.py:5:1: duplicate tool name 'search' on server pkg.app:mcp: also generated at "
        "pkg/one.py:5:1; pass a distinct name= to one of them"
    )
    assert not (tmp_path / "generated").exists()


@pytest.mark.slow
def test_two_servers_of_one_module_cannot_share_a_name(tmp_path: Path) -> None:
    project = make(
        tmp_path,
        "mcp",
        {
            "pkg/__init__.py": "",
            "pkg/both.py": '''
                from mcp.server.mcpserver import MCPServer

                first = MCPServer("first")
                second = MCPServer("second")


                @first.tool()
                def ping() -> str:
                    """First."""
                    return "1"


                @second.tool()
                def ping() -> str:  # noqa: F811
                    """Second."""
                    return "2"
                ''',
        },
    )
    done = project.run("generate")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].startswith(
        "pkg/both.py:14:1: duplicate tool name 'ping': also defined at pkg/both.py:8:1; the "
        "tools of one module are built together"
    )
    assert not (tmp_path / "generated").exists()


def _tree(project: Project, target: Path, *, keyed: bool, drop: tuple[str, ...] = ()) -> Path:
    """A copy of the project's tree without the modules in ``drop``; ``keyed=False``: as this
    generator wrote it before servers were keyed (no ``x-codegen.server``)."""
    import re
    import shutil

    shutil.copytree(project.root / "generated", target)
    for path in target.rglob("*.py"):
        if not keyed:
            path.write_text(re.sub(r'\n\s*"server": "[^"]*",', "", path.read_text()))
    manifest = target / "__init__.py"
    for module in drop:
        (target / module).unlink()
        manifest.write_text(manifest.read_text().replace(f'    "{module}",\n', ""))
    return target


def _diff(project: Project, base: Path, head: Path | str = "generated") -> dict[str, Any]:
    done = project.run("diff", str(base), str(head), "--format", "json", "--fail-on", "never")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


#: Before the package composed anything, only jira's `search` existed (names were unique).
JIRA_ONLY = ("pkg/main.py", "pkg/wiki.py")


def test_diff_across_the_server_key_reports_no_schema_changes(
    fastmcp_project: Project, tmp_path: Path
) -> None:
    older = _tree(fastmcp_project, tmp_path / "base", keyed=False, drop=JIRA_ONLY)
    newer = _tree(fastmcp_project, tmp_path / "head", keyed=True, drop=JIRA_ONLY)
    assert "server" not in (older / "pkg" / "jira.py").read_text()
    assert '"server": "pkg.jira:jira"' in (newer / "pkg" / "jira.py").read_text()
    assert _diff(fastmcp_project, older, newer)["changes"] == []


def test_diff_keys_tools_per_server_where_names_collide(
    fastmcp_project: Project, tmp_path: Path
) -> None:
    base = _tree(fastmcp_project, tmp_path / "base", keyed=False, drop=JIRA_ONLY)
    # jira's `search` differs in the base: it must be compared with jira's, not another's
    jira = base / "pkg" / "jira.py"
    jira.write_text(jira.read_text().replace('"limit": {', '"limits": {', 1))
    changes = {(c["tool"], c["kind"]) for c in _diff(fastmcp_project, base)["changes"]}
    added = {tool for tool, kind in changes if kind == "tool_added"}
    assert added == {"search [pkg.main:search]", "search [pkg.wiki:search]"}
    changed = {tool for tool, kind in changes if kind != "tool_added"}
    assert changed == {"search [pkg.jira:search]"}


def test_codegen_runtime_refuses_a_composed_tree_with_a_pointer_to_run(
    fastmcp_project: Project,
) -> None:
    from mcp_codegen.runtime import GeneratedModuleError, load_tools

    with pytest.raises(GeneratedModuleError, match="mcp-codegen run"):
        load_tools(fastmcp_project.root / "generated")
