"""Registration functions may use their extra parameters for anything that does not decide a
schema (mcp_codegen._registration.registrar.StandIn); a use that decides one is an error at the use.

The oracle for the generated schema is the SDK itself: the same function registered on a real
``MCPServer`` with the real container lists the same inputSchema.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path

import pytest

from mcp_codegen._registration.registrar import StandIn, StandInUsed
from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import Project

TOOLS = """
def register_tools(mcp_server, container):
    cfg = container.config_manager
    for plugin in container.plugins:
        plugin.prepare()
    with container.session() as session:
        session.log(f"registering with {cfg.name}")

    @mcp_server.tool()
    def configure(path: str | None = None) -> dict:
        \"\"\"Configure the server.\"\"\"
        return cfg.load(path)
"""

SERVER = """
from mcp.server.mcpserver import MCPServer

from pkg.tools import register_tools


class Container:
    class config_manager:
        name = "real"

        @staticmethod
        def load(path):
            return {"path": path}

    plugins = ()

    def session(self):
        import contextlib

        return contextlib.nullcontext(type("S", (), {"log": staticmethod(print)}))


mcp = MCPServer("demo")
register_tools(mcp, Container())
"""


def test_stand_ins_allow_what_decides_nothing() -> None:
    s = StandIn("container")
    value = s.config.load("x")[0] + 1
    assert isinstance(value, StandIn)
    assert list(s.plugins) == []
    with s.session() as inner:
        assert isinstance(inner, StandIn)
    assert "container" in f"{s.name}"
    for decide in (bool, lambda v: "x" in v, int):
        with pytest.raises(StandInUsed):
            decide(s.flag)


@pytest.mark.process
def test_a_registration_function_using_its_container_is_generated(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/tools.py", TOOLS)
    project.write("pkg/server.py", SERVER)
    project.configure('sources = ["pkg"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    _, modules = read_tree(tmp_path / "generated")
    generated = {t["name"]: t for m in modules for t in m["TOOLS"]}
    sys.path.insert(0, str(tmp_path))
    try:
        server = importlib.import_module("pkg.server")
        served = {t.name: t for t in asyncio.run(server.mcp.list_tools())}
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]
    assert set(generated) == set(served) == {"configure"}
    assert json.dumps(generated["configure"]["inputSchema"], sort_keys=True) == json.dumps(
        served["configure"].input_schema, sort_keys=True
    )


@pytest.mark.process
@pytest.mark.parametrize(
    ("body", "where", "says"),
    [
        (
            "    if container.enabled:\n        pass\n",
            "pkg/tools.py:2:5",
            "uses `container.enabled` in a condition",
        ),
        (
            "    limit = container.max_items\n",
            "pkg/tools.py:4:15",
            "the default of parameter 'count'",
        ),
    ],
)
def test_a_use_that_decides_is_an_error_at_the_use(
    tmp_path: Path, body: str, where: str, says: str
) -> None:
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    default = "limit" if "limit" in body else "3"
    project.write(
        "pkg/tools.py",
        "def register_tools(app, container):\n"
        + body
        + "    @app.tool()\n"
        + f"    def items(count: int = {default}) -> list[str]:\n"
        + "        return []\n",
    )
    project.configure('sources = ["pkg"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 2
    assert f"{where}: " in done.stderr and says in done.stderr, done.stderr
