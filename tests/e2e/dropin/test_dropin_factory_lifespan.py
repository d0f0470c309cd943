"""A build runs the project's code to read its tools, but does not start what a running server
starts: a factory server's lifespan (a browser, a pool, a sign-in) is not entered to list its
tools, and the code sees a command line without arguments, as a server started without any.

Before (mcp-server-linkedin 4.14.0): listing the factory's server entered its lifespan, which
parsed ``sys.argv`` with argparse, read the worker's own options and exited 2; the error said
the module's import crashed the worker."""

from __future__ import annotations

import pytest

from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import Project

pytestmark = [pytest.mark.process, pytest.mark.slow]

SERVER = '''
import argparse
from contextlib import asynccontextmanager
from pathlib import Path

from fastmcp import FastMCP

# read at import, as a server configured from its command line does
SETTINGS = argparse.ArgumentParser().parse_known_args()[0]


@asynccontextmanager
async def lifespan(app):
    argparse.ArgumentParser().parse_args()  # exits on any argument it does not know
    Path("LIFESPAN_RAN").write_text("the lifespan ran\\n")
    yield {}


def create_server() -> FastMCP:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.parse_args()
    mcp = FastMCP("demo", lifespan=lifespan)

    @mcp.tool()
    def ping(host: str) -> str:
        """Ping a host."""
        return host

    return mcp
'''


def test_a_factory_servers_lifespan_is_not_run_by_the_build(tmp_path):
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVER)
    project.configure(
        'sources = ["pkg"]\nflavor = "fastmcp"\nfactories = ["pkg.server:create_server()"]\n'
    )
    for args in (("--no-cache",), ()):
        done = project.run("generate", *args)
        assert done.returncode == 0, done.stderr
        assert not (tmp_path / "LIFESPAN_RAN").exists()
    _, modules = read_tree(tmp_path / "generated")
    assert [t["name"] for m in modules for t in m["TOOLS"]] == ["ping"]
    verified = project.run("verify", "--against", "pkg.server:create_server()")
    assert verified.returncode == 0, verified.stdout + verified.stderr
