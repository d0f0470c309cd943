"""Protocol revisions (config ``protocol``): both output variants, checked against the spec's rules.

The rules (MCP specification, see the project's FACTS): up to 2025-11-25 an ``outputSchema`` has
``"type": "object"`` at its root and ``structuredContent`` is a JSON object; from 2026-07-28
(SEP-2106) the output schema may be any JSON Schema 2020-12 and ``structuredContent`` the bare
value, still with a TextContent copy. Oracles: the SDK's own per-revision result models
(``mcp_types.methods.serialize_server_result``, which the server applies before sending), the
2020-12 metaschema, and the official Python client negotiating each revision in process.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError
from mcp_types import methods

from mcp_codegen._generator.config import load_config
from mcp_codegen._shared.reader import parse_literal_module
from mcp_codegen.runtime import load_tools
from mcp_codegen.runtime._serve.server import build_server
from tests.helpers.project import REPO, Project
from tests.helpers.protocol_clients import list_and_call, open_session

ALL = ("2025-06-18", "2025-11-25", "2026-07-28")
LEGACY = ALL[:2]

SOURCE = '''
from __future__ import annotations

from pydantic import BaseModel
from typing_extensions import TypedDict

from mcp_codegen.decorators import tool


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Point(TypedDict):
    x: int
    y: int


@tool
def forest(size: int = 2) -> list[Node]:
    """A recursive item type: the natural schema keeps $defs."""
    return [Node(value=i, children=[Node(value=10 * i)]) for i in range(size)]


@tool
def count(word: str) -> int:
    return len(word)


@tool
def point() -> Point:
    return {"x": 1, "y": 2}


@tool
def maybe(flag: bool = False) -> int | None:
    return 7 if flag else None


@tool
def note() -> None:
    return None
'''
CALLS: dict[str, dict[str, Any]] = {
    "forest": {"size": 2},
    "count": {"word": "abc"},
    "point": {},
    "maybe": {"flag": True},
    "note": {},
}
#: The return values, as JSON, that the tools above produce for CALLS.
VALUES = {
    "forest": [
        {"value": 0, "children": [{"value": 0, "children": []}]},
        {"value": 1, "children": [{"value": 10, "children": []}]},
    ],
    "count": 3,
    "point": {"x": 1, "y": 2},
    "maybe": 7,
}
NON_OBJECT = {"forest", "count", "maybe"}


def _generate(tmp_path: Path, name: str, protocol: str | None) -> Path:
    project = Project(tmp_path / name)
    project.write(f"{name}/__init__.py", "")
    project.write(f"{name}/tools.py", SOURCE)
    setting = "" if protocol is None else f"protocol = {protocol}\n"
    project.configure(f'sources = ["{name}"]\n{setting}')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    return project.root


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three builds of SOURCE: the default (all revisions), 2026-07-28 alone, the older two."""
    base = tmp_path_factory.mktemp("protocols")
    return {
        "all": _generate(base, "proto_all", None),
        "modern": _generate(base, "proto_modern", '"2026-07-28"'),
        "legacy": _generate(base, "proto_legacy", '["2025-11-25", "2025-06-18"]'),
    }


def _module(root: Path, file: str = "tools.py") -> dict[str, Any]:
    (path,) = (root / "generated").glob(f"*/{file}")
    return parse_literal_module(path.read_text(encoding="utf-8"))


def _tools(root: Path) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in _module(root)["TOOLS"]}


def _listing(tools: list[dict[str, Any]], protocol_version: str) -> dict[str, Any]:
    """A tools/list result as the SDK's per-revision model of it wants one."""
    extra = {"ttlMs": 0, "cacheScope": "private", "resultType": "complete"}
    return {"tools": tools, **(extra if protocol_version == "2026-07-28" else {})}


# --- which revision gets which variant -------------------------------------------------------


def test_variant_rule_matches_the_sdks_revision_list() -> None:
    from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    from mcp_codegen._shared.protocols import KNOWN_REVISIONS, variant_for

    assert KNOWN_REVISIONS == KNOWN_PROTOCOL_VERSIONS
    for version in KNOWN_PROTOCOL_VERSIONS:
        expected = "natural" if version in MODERN_PROTOCOL_VERSIONS else "boxed"
        assert variant_for(version) == expected, version
    assert variant_for(None) == "natural"  # the newest revision
    assert variant_for("2099-01-01") == variant_for("zzz") == "boxed"  # unknown: valid anywhere


# --- configuration --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("", ALL),
        ('protocol = "2026-07-28"\n', ("2026-07-28",)),
        ('protocol = ["2026-07-28", "2025-06-18", "2025-06-18"]\n', ("2025-06-18", "2026-07-28")),
    ],
)
def test_protocol_key_values(tmp_path: Path, setting: str, expected: tuple[str, ...]) -> None:
    (tmp_path / "pyproject.toml").write_text(f'[tool.mcp-codegen]\nsources = ["x"]\n{setting}')
    assert load_config(tmp_path / "pyproject.toml").protocols == expected


@pytest.mark.process
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"2024-11-05"', "unknown protocol revision '2024-11-05'"),
        ("[]", "protocol is empty"),
        ("[2025]", "protocol must be one of"),
    ],
    ids=["unknown", "empty", "not-a-string"],
)
def test_bad_protocol_values_are_positioned_errors(
    project: Project, value: str, message: str
) -> None:
    project.configure(f'sources = ["pkg"]\nprotocol = {value}\n')
    done = project.run("generate")
    assert done.returncode == 2
    assert f"pyproject.toml:3:1: {message}" in done.stderr
    assert project.snapshot() == {}


# --- the variants in the generated module ----------------------------------------------------


@pytest.mark.process
def test_default_build_holds_both_variants_by_the_rules(built: dict[str, Path]) -> None:
    module = _module(built["all"])
    assert module["FORMAT"] == 3
    assert module["PROTOCOLS"] == ALL
    tools = _tools(built["all"])
    assert "outputSchema" not in tools["note"]  # -> None: no output schema in any revision
    for name, tool in tools.items():
        meta = tool["x-codegen"]
        boxed = tool.get("outputSchema")
        if boxed is not None:
            Draft202012Validator.check_schema(boxed)
            assert boxed["type"] == "object"  # every revision before 2026-07-28 requires it
        if name not in NON_OBJECT:
            assert "natural" not in meta and meta["box"] is None
            continue
        natural = meta["natural"]["outputSchema"]
        Draft202012Validator.check_schema(natural)
        assert natural.get("type") != "object"
        assert meta["box"] == {"field": "result"}
        # The box rule: the value schema under the box field, $defs hoisted to the box root.
        value = {key: item for key, item in natural.items() if key != "$defs"}
        expected = {"type": "object", "properties": {"result": value}, "required": ["result"]}
        if "$defs" in natural:
            expected["$defs"] = natural["$defs"]
        expected["x-dedalus-box"] = {"field": "result"}
        assert boxed == expected
        # Each variant accepts exactly its own shape of the tool's value.
        assert Draft202012Validator(natural).is_valid(VALUES[name])
        assert Draft202012Validator(boxed).is_valid({"result": VALUES[name]})
        assert not Draft202012Validator(boxed).is_valid(VALUES[name])
    forest = tools["forest"]
    assert forest["x-codegen"]["natural"]["outputSchema"]["items"] == {"$ref": "#/$defs/Node"}
    assert set(forest["outputSchema"]["$defs"]) == {"Node"}
    assert "$defs" not in forest["outputSchema"]["properties"]["result"]


@pytest.mark.process
def test_each_revision_gets_a_listing_its_sdk_model_accepts(built: dict[str, Path]) -> None:
    registry = load_tools(built["all"] / "generated")
    for version in ALL:
        listing = _listing(registry.list_tools(version), version)
        methods.serialize_server_result("tools/list", version, listing)
    # The natural variant is not a valid listing before 2026-07-28: the box is needed.
    natural = _listing(registry.list_tools("2026-07-28"), "2025-11-25")
    with pytest.raises(ValueError, match="Input should be 'object'"):
        methods.serialize_server_result("tools/list", "2025-11-25", natural)


@pytest.mark.process
def test_2026_only_build_is_natural_and_unboxed(built: dict[str, Path]) -> None:
    tools = _tools(built["modern"])
    for name, tool in tools.items():
        assert tool["x-codegen"]["box"] is None and "natural" not in tool["x-codegen"]
        if name in NON_OBJECT:
            assert (
                tool["outputSchema"]
                == _tools(built["all"])[name]["x-codegen"]["natural"]["outputSchema"]
            )
    done = Project(built["modern"]).run("export", "--protocol", "2025-11-25")
    assert done.returncode == 2
    assert "built for protocol 2026-07-28 only" in done.stderr


@pytest.mark.process
def test_older_revisions_only_keep_the_format_1_schemas(built: dict[str, Path]) -> None:
    legacy, every = _tools(built["legacy"]), _tools(built["all"])
    assert _module(built["legacy"])["PROTOCOLS"] == LEGACY
    for name, tool in legacy.items():
        assert "natural" not in tool["x-codegen"]
        every_meta = {k: v for k, v in every[name]["x-codegen"].items() if k != "natural"}
        # The same tool in another package: only the function's module and the files of the
        # model field lines differ.
        every_meta["function"] = every_meta["function"].replace("proto_all.", "proto_legacy.")
        if "fields" in every_meta:
            every_meta["fields"] = tuple(
                (pointer, path.replace("proto_all/", "proto_legacy/", 1), line)
                for pointer, path, line in every_meta["fields"]
            )
        assert tool == {**every[name], "x-codegen": every_meta}


@pytest.mark.process
def test_export_prints_the_requested_revisions_listing(built: dict[str, Path]) -> None:
    registry = load_tools(built["all"] / "generated")
    project = Project(built["all"])
    for args, version in (((), None), (("--protocol", "2025-06-18"), "2025-06-18")):
        done = project.run("export", *args)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"tools": registry.list_tools(version)}


@pytest.mark.process
def test_diff_tells_2026_clients_their_box_is_gone(built: dict[str, Path]) -> None:
    done = Project(built["all"]).run(
        "diff",
        str(built["legacy"] / "generated"),
        str(built["all"] / "generated"),
        "--format",
        "json",
    )
    assert done.returncode == 1, done.stderr
    kinds = {(c["tool"], c["kind"]) for c in json.loads(done.stdout)["changes"]}
    assert kinds == {(name, "natural_box_changed") for name in NON_OBJECT}


# --- the runtime, through the official Python client, per revision ---------------------------


async def _serve_and_use(
    root: Path, protocol_version: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    registry = load_tools(root / "generated")
    server = build_server(registry, strict_output=True)
    async with AsyncExitStack() as stack:
        streams = await stack.enter_async_context(InMemoryTransport(server))
        session = await open_session(stack, streams, protocol_version)
        return await list_and_call(session, CALLS)


@pytest.mark.process
@pytest.mark.parametrize("version", ALL)
def test_python_client_gets_its_revisions_variant(
    built: dict[str, Path], version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(built["all"]))
    tools, results = anyio.run(_serve_and_use, built["all"], version)
    assert tools == load_tools(built["all"] / "generated").list_tools(version)
    natural = version == "2026-07-28"
    for name, value in VALUES.items():
        result = results[name]
        assert result.get("isError") is not True, result
        boxed = name in NON_OBJECT and not natural
        structured = {"result": value} if boxed else value
        assert result["structuredContent"] == structured
        assert json.loads(result["content"][0]["text"]) == structured  # the TextContent copy
    assert results["note"]["content"] == [] and "structuredContent" not in results["note"]


@pytest.mark.process
def test_2026_only_schemas_refuse_older_clients(
    built: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(built["modern"]))
    _, results = anyio.run(_serve_and_use, built["modern"], "2026-07-28")
    assert results["count"]["structuredContent"] == 3
    with pytest.raises(BaseException) as raised:
        anyio.run(_serve_and_use, built["modern"], "2025-11-25")
    error = raised.value
    while isinstance(error, BaseExceptionGroup):  # anyio task groups, nested
        (error,) = error.exceptions
    assert isinstance(error, MCPError)
    assert "built for protocol 2026-07-28 only" in str(error)


def test_format_1_modules_serve_their_boxed_tools_to_every_revision() -> None:
    fixture = REPO / "tests" / "runtime" / "fixtures" / "output" / "generated"
    registry = load_tools(fixture)
    assert registry.protocols == LEGACY
    assert registry.list_tools("2026-07-28") == registry.list_tools("2025-06-18")
    assert registry.list_tools() == registry.list_tools("2025-11-25")


# --- framework flavors: one listing for every revision ----------------------------------------

FRAMEWORK_TOOL = """
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("proto")


@mcp.tool()
def nums(n: int = 2) -> list[int]:
    return list(range(n))
"""


def _framework_servers() -> dict[str, Any]:
    import fastmcp
    from mcp.server.mcpserver import MCPServer

    sdk = MCPServer("sdk")
    fast = fastmcp.FastMCP("fast")

    def nums(n: int = 2) -> list[int]:
        return list(range(n))

    sdk.tool()(nums)
    fast.tool(nums)
    return {"mcp": sdk, "fastmcp": fast._mcp_server}


async def _framework_view(server: Any, mode: str) -> tuple[list[dict[str, Any]], Any]:
    from mcp.client import Client

    async with Client(server, mode=mode) as client:
        tools = (await client.list_tools()).tools
        called = await client.call_tool("nums", {"n": 2})
    return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools], (
        called.structured_content
    )


@pytest.mark.parametrize("flavor", ["mcp", "fastmcp"])
def test_frameworks_serve_one_boxed_listing_to_every_revision(flavor: str) -> None:
    """Why flavors "mcp" and "fastmcp" record a single variant: the real MCPServer and
    fastmcp.FastMCP list and call the same way whether the client negotiated 2025-11-25 or
    2026-07-28 (both box a non-object return as {"result": ...})."""
    server = _framework_servers()[flavor]
    legacy = anyio.run(_framework_view, server, "legacy")
    modern = anyio.run(_framework_view, server, "2026-07-28")
    assert legacy == modern
    assert legacy[1] == {"result": [0, 1]}


@pytest.mark.process
def test_framework_flavor_modules_hold_no_natural_variant(tmp_path: Path) -> None:
    project = Project(tmp_path / "flavored")
    project.write("proto_flavored/__init__.py", "")
    project.write("proto_flavored/server.py", FRAMEWORK_TOOL)
    project.configure('sources = ["proto_flavored"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    module = _module(project.root, "server.py")
    assert module["PROTOCOLS"] == ALL
    (tool,) = module["TOOLS"]
    assert tool["x-codegen"]["box"] == {"field": "result"} and "natural" not in tool["x-codegen"]
    registry = load_tools(project.root / "generated")
    assert registry.list_tools("2026-07-28") == registry.list_tools("2025-06-18")


def test_natural_listings_are_fresh_copies() -> None:
    registry = load_tools(REPO / "generated")
    for _ in range(2):  # the first listing is handed over, later ones come from a payload
        listed = {tool["name"]: tool for tool in registry.list_tools("2026-07-28")}
        assert listed["search_books"]["outputSchema"]["type"] == "array"
        listed["search_books"]["outputSchema"]["type"] = "changed"
    assert registry.get_tool("search_books", "2026-07-28")["outputSchema"]["type"] == "array"
    assert registry.get_tool("search_books", "2025-06-18")["outputSchema"]["type"] == "object"
    assert registry.binding("search_books").box_for("2026-07-28") is None
    assert registry.binding("search_books").box_for("2025-06-18") == "result"


@pytest.mark.process
def test_stdio_fast_path_serves_the_negotiated_variant(built: dict[str, Path]) -> None:
    from mcp_codegen.runtime._stdio.fastpath import Session

    def listing(root: Path, version: str) -> Any:
        session = Session(load_tools(root / "generated"), name="t")
        opening = {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": opening},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ):
            assert session.answer(json.dumps(message).encode() + b"\n") is not None
        answer = session.answer(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}\n')
        return None if answer is None else json.loads(answer)["result"]["tools"]

    every = load_tools(built["all"] / "generated")
    assert listing(built["all"], "2025-06-18") == every.list_tools("2025-06-18")
    # Schemas for 2026-07-28 alone: the SDK door answers (with the error), not the fast path.
    assert listing(built["modern"], "2025-11-25") is None
