"""Call forms the generator cannot take from a registration: a clear error at the call, exit 2,
nothing written (issue 19, item 3); and ``mcp_codegen.runtime``, which serves without the user's
objects, refusing a bound method with the pointer to ``mcp-codegen run``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.project import Project

pytestmark = pytest.mark.process

HELPERS = '''
    class Monitor:
        def get_status(self, verbose: bool = False) -> str:
            """The status."""
            return "ok"


    def lookup(key: str) -> int:
        """Look a key up."""
        return 0
'''


def project_with(root: Path, server: str, config: str) -> Project:
    """``pkg/helpers.py`` (HELPERS) and ``pkg/server.py`` (``server``), configured."""
    project = Project(root)
    project.write("pkg/__init__.py", "")
    project.write("pkg/helpers.py", HELPERS)
    project.write("pkg/server.py", server)
    project.configure(config)
    return project


def test_a_call_that_registers_nothing_at_import_is_an_error_at_its_argument(
    tmp_path: Path,
) -> None:
    project = project_with(
        tmp_path,
        """
        from mcp.server.mcpserver import MCPServer

        from pkg.helpers import Monitor

        mcp = MCPServer("x")


        def later(monitor: Monitor) -> None:
            mcp.tool()(monitor.get_status)
        """,
        'sources = ["pkg"]\nflavor = "mcp"\n',
    )
    done = project.run("generate")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == (
        "pkg/server.py:9:16: tool 'get_status': `monitor.get_status` is not defined in this "
        "module, so the generator takes the function the server registers; but this call "
        "registered nothing here while the module was imported (the call runs later: inside a "
        "function nobody calls at import, or on a server built at run time); make the call at "
        "module level or in code that runs at import, list the call that builds the server in "
        "`factories`, or decorate the function with @<server>.tool(...) where it is defined"
    )
    assert not (tmp_path / "generated").exists()


def test_a_name_the_server_does_not_use_is_an_error_not_a_wrong_entry(tmp_path: Path) -> None:
    """fastmcp keeps the options of the first registration on the function: a second
    ``add_tool(lookup)`` registers it as 'find' again (a duplicate), not as 'lookup'."""
    project = project_with(
        tmp_path,
        """
        from fastmcp import FastMCP

        from pkg.helpers import lookup

        mcp = FastMCP("x")
        mcp.tool(name="find")(lookup)
        mcp.add_tool(lookup)
        """,
        'sources = ["pkg"]\nflavor = "fastmcp"\n',
    )
    done = project.run("generate")
    assert done.returncode == 2, done.stderr
    assert (
        "pkg/server.py:7:14: tool 'lookup': `lookup` is not defined in this module, so the "
        "generator takes the function the server registers; but this call registers it as "
        "'find', not 'lookup'"
    ) in done.stderr, done.stderr
    assert not (tmp_path / "generated").exists()


def test_a_generated_function_registered_on_another_server_by_an_unread_form_is_an_error(
    tmp_path: Path,
) -> None:
    """``lookup`` is a generated tool of one server, and another module registers it again on a
    second server with ``register = app.tool(name=...)`` then ``register(lookup)``, a form the
    scanner does not read. That tool was taken for a composition's copy and dropped without a
    word; it is the unread form's error at ``register(lookup)``, which is no name computed at
    run time (``lookup.__name__`` is its own)."""
    project = project_with(
        tmp_path,
        """
        from fastmcp import FastMCP

        mcp = FastMCP("x")


        @mcp.tool(name="find")
        def lookup(key: str) -> int:
            return 0
        """,
        'sources = ["pkg"]\nflavor = "fastmcp"\n',
    )
    project.write(
        "pkg/second.py",
        """
        from fastmcp import FastMCP

        from pkg.server import lookup

        app = FastMCP("y")
        register = app.tool(name="by_key")
        register(lookup)
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == (
        "pkg/second.py:7:1: tool 'by_key' (lookup) is registered here (`register(lookup)`) but "
        "was not generated: mcp-codegen did not understand this form of registration, code the "
        "generator does not read (a loop, a helper function, or a function built at run time); "
        "register the tool with @<server>.tool(...) on its def, or <server>.add_tool(function) "
        "at module level"
    ), done.stderr
    assert not (tmp_path / "generated").exists()


def test_a_wrapped_function_renamed_by_its_factory_is_a_name_computed_at_run_time(
    tmp_path: Path,
) -> None:
    """workspace-mcp: ``create_comment_tools("document")``, in a module outside `sources`
    called by a source, sets ``list_comments.__name__`` on a ``functools.wraps`` wrapper
    before ``server.tool(...)(list_comments)``. The server names the tool after the wrapper,
    so the error says the name is computed at run time, not that the form was not understood
    (the inner function's own ``__name__`` was compared)."""
    project = project_with(
        tmp_path,
        """
        from pkg.app import server
        from pkg.comments import create_comment_tools


        @server.tool()
        def ping() -> str:
            return "pong"


        _tools = create_comment_tools("document")
        """,
        'sources = ["pkg/server.py"]\nflavor = "fastmcp"\n',
    )
    project.write("pkg/app.py", 'from fastmcp import FastMCP\n\nserver = FastMCP("x")\n')
    project.write(
        "pkg/comments.py",
        """
        import functools

        from pkg.app import server


        def logged(fn):
            @functools.wraps(fn)
            async def inner(*args, **kwargs):
                return await fn(*args, **kwargs)

            return inner


        def create_comment_tools(kind: str):
            @logged
            async def list_comments(item_id: str) -> str:
                return item_id

            list_comments.__name__ = f"list_{kind}_comments"
            server.tool(title="List comments")(list_comments)
            return {"list_comments": list_comments}
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0].startswith(
        "pkg/server.py:10:10: tool 'list_document_comments' is registered here under a name "
        "computed at run time (its function is create_comment_tools.<locals>.list_comments, "
        "whose __name__ was changed)"
    ), done.stderr
    assert not (tmp_path / "generated").exists()


def test_codegen_runtime_refuses_a_bound_method_with_the_run_pointer(tmp_path: Path) -> None:
    """Clean modules served by ``mcp_codegen.runtime``: an imported function is called as usual; a
    method registered bound to an object cannot be (the object is the user's)."""
    import json
    import subprocess
    import sys

    from tests.helpers.servers import server_env

    project = project_with(
        tmp_path,
        """
        from mcp.server.mcpserver import MCPServer

        from pkg.helpers import Monitor, lookup

        mcp = MCPServer("x")
        mcp.tool(name="find")(lookup)
        monitor = Monitor()
        mcp.add_tool(monitor.get_status)
        """,
        'sources = ["pkg"]\n',
    )
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    script = (
        "import anyio, json\n"
        "from mcp.client import Client\n"
        "from mcp_codegen.runtime import load_tools\n"
        "from mcp_codegen.runtime._serve.server import build_server\n"
        "server = build_server(load_tools('generated'))\n"
        "async def main():\n"
        "    async with Client(server) as client:\n"
        "        a = await client.call_tool('find', {'key': 'k'})\n"
        "        b = await client.call_tool('get_status', {})\n"
        "        print(json.dumps([a.structured_content, b.is_error, b.content[0].text]))\n"
        "anyio.run(main)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=server_env(tmp_path),
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    found, is_error, text = json.loads(ran.stdout.strip().splitlines()[-1])
    assert found == 0  # the newest revision: an unboxed result
    assert is_error is True
    assert text.startswith(
        "Tool 'get_status': pkg.helpers:Monitor.get_status is a method, registered bound to an "
        "object of yours (mcp.tool()(obj.get_status)), which only your own server can call. "
        "Serve your own server with its framework and these generated schemas instead: "
        f"`mcp-codegen run --generated {tmp_path / 'generated'} MODULE:SERVER`"
    ), text
