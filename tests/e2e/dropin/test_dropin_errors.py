"""What cannot be known statically, or what a framework refuses, is an error at file:line:col that
says how to fix it; never a silent guess. Driven through the real command line."""

from __future__ import annotations

import pytest

from tests.helpers.project import Project

pytestmark = pytest.mark.process


def test_static_problems_are_reported_at_their_position(project: Project) -> None:
    project.write(
        "pkg/consts.py",
        """
        PREFIX = "kb"
        """,
    )
    project.write(
        "pkg/server.py",
        """
        import os

        from mcp.server.mcpserver import MCPServer
        from pkg.consts import PREFIX

        mcp = MCPServer("x")


        def annotations_for(kind):
            return {"readOnlyHint": kind == "read"}


        @mcp.tool(name=f"{PREFIX}_{os.environ['KIND']}")
        def search(query: str) -> list[str]:
            return []


        @mcp.tool(annotations=annotations_for("read"))
        def fetch(key: str) -> str:
            return key


        @mcp.tool(name=f"{PREFIX}_kb")  # an imported constant is read statically: no error here
        def kb() -> str:
            return "kb"
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("pkg/")]
    assert errors == [
        "pkg/server.py:13:28: decorator argument name= cannot be known at build time: "
        "`os.environ` reads the environment, which is known only at run time; write the value "
        'literally (e.g. name="search") or as a module-level constant built from literals',
    ]
    assert not (project.root / "generated").exists()


def test_nested_tools_are_reached_only_through_a_registration_function(project: Project) -> None:
    project.write(
        "pkg/server.py",
        """
        from mcp.server.mcpserver import MCPServer

        mcp = MCPServer("x")


        def register(app, database):
            @app.tool()
            def lookup(key: str) -> str:
                return key


        def register_globally():
            @mcp.tool()
            def status() -> str:
                return "ok"


        class Plugin:
            def install(self, app):
                @app.tool()
                def hello() -> str:
                    return "hi"


        def register_twice(app, prefix="x"):
            if prefix == "never":
                @app.tool()
                def hidden() -> str:
                    return ""
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2
    errors = sorted(line for line in done.stderr.splitlines() if line.startswith("pkg/"))
    assert errors == [
        "pkg/server.py:21:9: tool 'hello' is defined inside a function "
        "(Plugin.install.<locals>.hello) that no server registered it from while the module was "
        "imported, so it cannot be reached; create the server (or the object holding it) at "
        "module level, list the call that builds it in `factories`, or move the tool into a "
        "module-level registration function that takes the server object (def register(app): "
        "@app.tool() ...)",
        "pkg/server.py:28:9: calling register_twice(app) did not register "
        "register_twice.<locals>.hidden through app.tool; the registration function must apply "
        "the decorator each time it runs",
    ]
    # register(app, database) gets a stand-in for database; register_globally() uses the
    # module's server: both are reached (tests/e2e/dropin/test_dropin_patterns.py covers them).


def test_a_framework_refusal_is_reported_at_the_tool(project: Project) -> None:
    project.configure('sources = ["pkg"]\nflavor = "mcp"\n')
    project.write(
        "pkg/tools.py",
        """
        from mcp_codegen.decorators import tool


        @tool(tags=["search"])
        def search(query: str) -> list[str]:
            return []


        @tool()
        def secret(_token: str) -> str:
            return ""
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("pkg/")]
    assert errors == [
        "pkg/tools.py:4:12: the MCP SDK's MCPServer has no tool option tags=; remove it, or use "
        "the flavor of the framework this source is written for",
        "pkg/tools.py:10:1: the MCP SDK's MCPServer refuses tool 'secret': InvalidSignature: "
        "Parameter _token of secret cannot start with '_'; fix the function, or use the flavor "
        "of the framework this source is written for",
    ]
