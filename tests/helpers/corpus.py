"""Build a flavor of the published-style corpus (tests/fixtures/published), and ask the real
frameworks what they serve.

The oracle is always the framework itself, reached through its own client (``mcp.client.Client``
for the official SDK, ``fastmcp.Client`` for fastmcp): nothing here re-implements inference.
"""

from __future__ import annotations

import copy
import itertools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import generate
from mcp_codegen._shared.reader import read_tree, wire_tools
from tests.helpers.project import REPO

FIXTURES = REPO / "tests" / "fixtures"
PUBLISHED = FIXTURES / "published"
BOOKSHOP = REPO / "examples" / "bookshop"
#: corpus package -> the flavor of the framework it is written for
PACKAGES = {"sdk2": "mcp", "sdk1": "mcp", "fastmcp_style": "fastmcp"}
BOOKSHOP_INJECTED = ("examples.bookshop.deps.Settings", "examples.bookshop.deps.ConfigPaths")

#: The flavored-runtime tests' own tool modules (package ``flavor_extras``).
FLAVOR_EXTRAS = REPO / "tests" / "runtime" / "flavors" / "fixtures"
#: The ``python_path`` of a corpus build: the repository and the roots of the corpus packages.
CORPUS_PATH = (REPO, FIXTURES, FLAVOR_EXTRAS)

# The corpus package is ``published`` and the extras' is ``flavor_extras``: the frameworks' server
# objects are imported in this process, as their own tests would.
for _directory in (FIXTURES, FLAVOR_EXTRAS):
    if str(_directory) not in sys.path:
        sys.path.insert(0, str(_directory))


def write_config(
    root: Path,
    flavor: str,
    sources: list[Path],
    extra: str = "",
    python_path: tuple[Path, ...] = CORPUS_PATH,
) -> Path:
    """A ``pyproject.toml`` for a throw-away project whose sources live in this repository."""
    root.mkdir(parents=True, exist_ok=True)
    config = root / "pyproject.toml"
    config.write_text(
        "[tool.mcp-codegen]\n"
        f"sources = {json.dumps([str(s) for s in sources])}\n"
        'output = "generated"\n'
        f'flavor = "{flavor}"\n'
        f"python_path = {json.dumps([str(p) for p in python_path])}\n"
        f"extra_injected_types = {json.dumps(list(BOOKSHOP_INJECTED))}\n" + extra,
        encoding="utf-8",
    )
    return config


def build_flavor(
    root: Path,
    flavor: str,
    sources: list[Path],
    extra: str = "",
    python_path: tuple[Path, ...] = CORPUS_PATH,
) -> tuple[dict[str, Any], Path]:
    """Generate ``sources`` with ``flavor`` into ``root/generated``: the tools by name, as served
    (``wire``) and as generated (``generated``, with ``x-codegen``). ``extra`` is more config."""
    config = load_config(write_config(root, flavor, sources, extra, python_path))
    result, report = generate(config, use_cache=False)
    assert report is not None, "\n".join(map(str, result.diagnostics))
    assert not result.errors, "\n".join(map(str, result.errors))
    _, modules = read_tree(config.output)
    built = {
        "wire": {tool["name"]: tool for tool in wire_tools(modules)},
        "generated": {tool["name"]: tool for module in modules for tool in module["TOOLS"]},
    }
    return built, config.output


class SharedBuilds:
    """``build_flavor`` made once per distinct input, for the tests that assert on the same build:
    each (flavor, sources, extra config, python path) is generated into a directory of its own
    under ``root`` the first time a test asks (whichever runs first, in any order). Tests get a
    copy of the tools and must only read the generated tree."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._built: dict[tuple[object, ...], tuple[dict[str, Any], Path]] = {}
        self._ids = itertools.count()

    def get(
        self,
        flavor: str,
        sources: list[Path],
        extra: str = "",
        python_path: tuple[Path, ...] = CORPUS_PATH,
    ) -> tuple[dict[str, Any], Path]:
        key = (flavor, tuple(sources), extra, python_path)
        if key not in self._built:
            root = self._root / f"build{next(self._ids)}"  # a failed build leaves its own
            self._built[key] = build_flavor(root, flavor, sources, extra, python_path)
        built, output = self._built[key]
        return copy.deepcopy(built), output


_PROCESS_BUILDS_ROOT = tempfile.TemporaryDirectory(prefix="corpus-builds-")  # removed at exit
#: The builds of the whole test process. The corpus packages, the flavor extras and the bookshop
#: are built in the same flavors by the drop-in, flavored-runtime, hook and profile tests: a
#: framework build starts a worker pool and imports the framework in its probes (seconds each),
#: and one build per input serves them all.
PROCESS_BUILDS = SharedBuilds(Path(_PROCESS_BUILDS_ROOT.name))


def sdk_client_tools(server: Any) -> dict[str, dict[str, Any]]:
    """tools/list of an official-SDK server through the installed SDK's own in-process client
    (``mcp.client.Client`` in 2.x, a connected ``ClientSession`` in 1.x)."""
    try:
        from mcp.client import Client
    except ImportError:  # SDK 1.x
        from mcp.shared.memory import create_connected_server_and_client_session

        async def listing() -> list[Any]:
            async with create_connected_server_and_client_session(server) as session:
                return list((await session.list_tools()).tools)

    else:

        async def listing() -> list[Any]:
            async with Client(server) as client:
                return list((await client.list_tools()).tools)

    return {
        tool.name: tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        for tool in anyio.run(listing)
    }


def fastmcp_client_tools(server: Any) -> dict[str, dict[str, Any]]:
    """tools/list of a fastmcp server through fastmcp's own in-process client."""
    import fastmcp

    async def listing() -> list[Any]:
        async with fastmcp.Client(server) as client:
            return list((await client.list_tools_mcp()).tools)

    return {
        tool.name: tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        for tool in anyio.run(listing)
    }


def tool_differences(theirs: dict[str, Any], ours: dict[str, Any]) -> str:
    """A readable account of how two tool dicts differ (for assertion messages)."""
    from mcp_codegen._generator.verify import compare_tools

    return "\n".join(str(m) for m in compare_tools([theirs], [ours]))


def assert_same_tools(theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    """The same tool names, and each tool equal (JSON-equal, key order aside), with a readable
    account of every difference."""
    from tests.helpers.json_text import unordered_json

    assert sorted(ours) == sorted(theirs)
    wrong = {
        name: tool_differences(theirs[name], ours[name])
        for name in theirs
        if unordered_json(theirs[name]) != unordered_json(ours[name])
    }
    assert not wrong, "\n".join(wrong.values())
