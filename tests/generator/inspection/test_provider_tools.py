"""Tools that no registration makes (a fastmcp provider built from an OpenAPI document, a proxy,
a provider class of the project's) are never a silent omission: each line attaching one to a
project server is an error, or a note where ``# mcp-codegen: framework`` keeps them with the
framework, and ``mcp-codegen run`` then serves them from the framework.

Before, ``generate`` wrote the registered tools only and exited 0 (rootly-mcp-server: 233 of
its 258 tools). The oracle for "this server lists tools no registration makes" is fastmcp's own
listing, against its own local store, in a fresh interpreter.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen._shared.format import FRAMEWORK_MARKER
from mcp_codegen._shared.reader import read_tree
from tests.helpers.openapi import spec_module
from tests.helpers.project import Project, codegen_env
from tests.runtime.run.run_support import run_command, with_client

pytest.importorskip("fastmcp")

pytestmark = [pytest.mark.process, pytest.mark.slow]

#: each attaching line ends with ``#@``, replaced by the marker or by nothing
TOOLS = """
    from fastmcp import FastMCP
    from fastmcp.server.providers.openapi import OpenAPIProvider

    import otherapi  # noqa: F401 - another installed package's server: not the project's
    from pkg.spec import SPEC

    mcp = FastMCP("main")


    @mcp.tool()
    def hello(name: str) -> str:
        \"\"\"Say hello.\"\"\"
        return name


    mcp.add_provider(OpenAPIProvider(openapi_spec=SPEC))  #@
    mcp.mount(
        FastMCP.from_openapi(SPEC, name="inner"),  #@
        namespace="api",
    )
    """
PROXY = """
    from fastmcp.server import create_proxy

    proxy = create_proxy("http://127.0.0.1:9/mcp")  #@
    """
CUSTOM = """
    from collections.abc import Sequence

    from fastmcp import FastMCP
    from fastmcp.server.providers import Provider
    from fastmcp.tools import Tool


    class Listed(Provider):
        async def _list_tools(self) -> Sequence[Tool]:
            return [Tool(name="made", parameters={"type": "object"})]


    class ResourcesOnly(Provider):
        pass


    custom = FastMCP(  #@
        "c",
        providers=[Listed()],
    )
    quiet = FastMCP("q", providers=[ResourcesOnly()])
    """
OTHER = """
    from fastmcp import FastMCP

    from otherapi.spec import SPEC

    api = FastMCP.from_openapi(SPEC, name="other")
    """
#: (file, line, column) of each attaching call, and the kind the message names
ATTACHED = {
    ("pkg/tools.py", 16, 1): "OpenAPIProvider",
    ("pkg/tools.py", 18, 5): "OpenAPIProvider",
    ("pkg/proxy.py", 3, 9): "ProxyProvider",
    ("pkg/custom.py", 17, 10): "Listed",
}
DIAGNOSTIC = re.compile(r"^(pkg/\w+\.py):(\d+):(\d+): (note: )?(.*)$")

LISTINGS = """
import asyncio, json, sys
from pkg.custom import custom, quiet
from pkg.tools import mcp
listing = {}
for name, server in (("mcp", mcp), ("custom", custom), ("quiet", quiet)):
    every = {t.name for t in asyncio.run(server.list_tools())}
    local = {t.name for t in asyncio.run(server._local_provider.list_tools())}
    listing[name] = [sorted(every), sorted(every - local)]
print(json.dumps(listing))
"""


def _project(root: Path, marked: bool) -> Project:
    project = Project(root)
    mark = f"  {FRAMEWORK_MARKER}" if marked else ""
    project.write("pkg/__init__.py", "")
    project.write("pkg/spec.py", spec_module())
    for name, text in (("tools", TOOLS), ("proxy", PROXY), ("custom", CUSTOM)):
        project.write(f"pkg/{name}.py", text.replace("  #@", mark))
    site = "lib/site-packages"  # an installed package, as pip lays it out
    project.write(f"{site}/otherapi/__init__.py", OTHER)
    project.write(f"{site}/otherapi/spec.py", spec_module())
    project.configure(f'sources = ["pkg"]\nflavor = "fastmcp"\npython_path = ["{site}"]\n')
    return project


def _listings(root: Path) -> dict[str, list[list[str]]]:
    env = codegen_env(PYTHONPATH=f"{root}:{root / 'lib/site-packages'}")
    done = subprocess.run(
        [sys.executable, "-c", LISTINGS], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _positions(stderr: str, note: bool) -> dict[tuple[str, int, int], str]:
    found = {}
    for text in stderr.splitlines():
        if (m := DIAGNOSTIC.match(text)) and bool(m.group(4)) == note:
            found[(m.group(1), int(m.group(2)), int(m.group(3)))] = m.group(5)
    return found


def test_each_line_attaching_such_tools_is_an_error(tmp_path: Path) -> None:
    project = _project(tmp_path, marked=False)
    listings = _listings(tmp_path)
    # the oracle: fastmcp lists tools its local store does not hold, except for `quiet`
    assert listings["mcp"] == [["api_get_item", "get_item", "hello"], ["api_get_item", "get_item"]]
    assert listings["custom"][1] == ["made"] and listings["quiet"] == [[], []]
    for args in ((), ("--no-cache",)):
        done = project.run("generate", *args)
        assert done.returncode == 2, done.stderr
        errors = _positions(done.stderr, note=False)
        assert set(errors) == set(ATTACHED), done.stderr
        for place, kind in ATTACHED.items():
            assert errors[place].startswith(f"tools that {kind} builds at run time from ")
            assert f'end this line with "{FRAMEWORK_MARKER}"' in errors[place]
        assert "otherapi" not in done.stderr and not (tmp_path / "generated").exists()


def test_the_marker_keeps_them_with_the_framework_and_run_serves_them(tmp_path: Path) -> None:
    project = _project(tmp_path, marked=True)
    trees = []
    for args in ((), (), ("--no-cache",)):  # cold, from the cache, and without it
        done = project.run("generate", *args)
        assert done.returncode == 0, done.stderr
        notes = _positions(done.stderr, note=True)
        assert set(notes) == set(ATTACHED), done.stderr
        assert all("are kept with the framework" in text for text in notes.values())
        assert "warning:" not in done.stderr  # the notes say it: no records warning on top
        trees.append(project.snapshot())
    assert trees[0] == trees[1] == trees[2]
    _, modules = read_tree(tmp_path / "generated")
    assert [t["name"] for m in modules for t in m["TOOLS"]] == ["hello"]
    served = _listings(tmp_path)["mcp"][0]

    async def names(session: object) -> list[str]:
        await session.initialize()  # type: ignore[attr-defined]
        return sorted(t.name for t in (await session.list_tools()).tools)  # type: ignore[attr-defined]

    env = codegen_env(PYTHONPATH=f"{tmp_path}:{tmp_path / 'lib/site-packages'}")
    for options in ((), ("--no-fast-path",), ("--strict",)):
        command = run_command("generated", "pkg.tools:mcp", *options)
        listed, stderr = with_client(command, names, cwd=tmp_path, env=env)
        assert listed == served, (options, stderr)
