"""Flavors "mcp" and "fastmcp" against the real frameworks, on a corpus of published-style servers.

Each corpus package is generated with its framework's flavor, and every generated tool must equal,
key for key and value for value, what the package's real server object lists through its
framework's own client. SDK 1.x-style sources run against the SDK 2.x ``MCPServer`` here (the two
majors cannot share an environment); ``nox -s dropin_sdk1`` runs test_dropin_sdk1.py against 1.x.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from tests.helpers.corpus import PACKAGES, fastmcp_client_tools, sdk_client_tools, tool_differences
from tests.helpers.json_text import unordered_json

pytestmark = pytest.mark.process

SERVERS = {
    # corpus package -> (server object, how its framework's own client lists it)
    "sdk2": ("published.sdk2.server:mcp", sdk_client_tools),
    "sdk1": ("published.sdk1.server:mcp", sdk_client_tools),
    "fastmcp_style": ("published.fastmcp_style.server:mcp", fastmcp_client_tools),
}


def _server(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


@pytest.fixture(scope="module")
def builds(corpus: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The corpus by flavor: ``flavor -> {"wire", "generated"}``."""
    merged: dict[str, dict[str, Any]] = {}
    for package, flavor in PACKAGES.items():
        into = merged.setdefault(flavor, {"wire": {}, "generated": {}})
        into["wire"].update(corpus[package]["wire"])
        into["generated"].update(corpus[package]["generated"])
    return merged


@pytest.mark.slow
@pytest.mark.parametrize("package", list(SERVERS))
def test_every_tool_equals_what_the_framework_serves(
    corpus: dict[str, dict[str, Any]], package: str
) -> None:
    target, list_tools = SERVERS[package]
    theirs = list_tools(_server(target))
    ours = corpus[package]["wire"]
    assert sorted(ours) == sorted(theirs)
    wrong = {
        name: tool_differences(theirs[name], ours[name])
        for name in theirs
        if unordered_json(theirs[name]) != unordered_json(ours[name])
    }
    assert not wrong, "\n".join(wrong.values())


def test_the_corpus_is_large_and_uses_registration_functions_in_several_files(
    builds: dict[str, dict[str, Any]],
) -> None:
    corpus = {**builds["mcp"]["generated"], **builds["fastmcp"]["generated"]}
    assert len(corpus) >= 60
    registrars = {
        t["x-codegen"]["registrar"] for t in corpus.values() if "registrar" in t["x-codegen"]
    }
    files = {r.partition(":")[0] for r in registrars}
    assert len(files) >= 5, files  # two per package, one in sdk1
    for package in SERVERS:
        assert any(f.startswith(f"published.{package}.") for f in files), package


# Where each form of the issue appears, and what the generated tool must show for it. The
# equality test above proves the values; this table proves the corpus keeps covering the forms.
FORMS = [
    # (form, flavor, tool, check)
    ("@mcp.tool bare", "fastmcp", "create_task", lambda t: t["x-codegen"]["line"] > 0),
    ("@mcp.tool('name') positional", "fastmcp", "complete_task", lambda t: "finish" in t["x-codegen"]["function"]),
    ("name= differs from function", "mcp", "list_notes", lambda t: t["x-codegen"]["function"].endswith(":list_all_notes")),
    ("name= from an imported constant", "mcp", "archive_note", lambda t: t["x-codegen"]["function"].endswith(":archive")),
    ("ToolAnnotations(...)", "mcp", "delete_note", lambda t: t["annotations"]["destructiveHint"] is True),
    ("annotations dict", "fastmcp", "count_tasks", lambda t: t["annotations"] == {"readOnlyHint": True, "title": "Task counts"}),
    ("meta=", "mcp", "note_stats", lambda t: t["_meta"]["com.example/cost"] == "low"),
    ("icons=[Icon(...)]", "mcp", "note_stats", lambda t: t["icons"][0]["mimeType"] == "image/png"),
    ("tags= with an imported constant", "fastmcp", "complete_task", lambda t: t["_meta"]["fastmcp"]["tags"] == ["tasks", "write"]),
    ("structured_output=False", "mcp", "export_notes", lambda t: "outputSchema" not in t),
    ("stacked, tool decorator inner", "mcp", "pin_note", lambda t: t["x-codegen"]["function"].endswith(":pin_note")),
    ("stacked, tool decorator outer", "fastmcp", "reschedule", lambda t: "note" in t["inputSchema"]["properties"]),
    ("Field() default", "mcp", "list_notes", lambda t: t["inputSchema"]["properties"]["limit"]["maximum"] == 100),
    ("Annotated[T, Field()]", "mcp", "search_notes", lambda t: t["inputSchema"]["properties"]["query"]["minLength"] == 1),
    ("imported Field constant", "mcp", "search_notes", lambda t: t["inputSchema"]["properties"]["limit"]["default"] == 10),
    ("x: str = None", "mcp", "rename_note", lambda t: t["inputSchema"]["properties"]["new_title"]["default"] is None),
    ("ctx: Context (SDK 2.x)", "mcp", "note_stats", lambda t: t["inputSchema"]["properties"] == {}),
    ("ctx: Optional[Context] (SDK 2.x)", "mcp", "summarize_notes", lambda t: "ctx" not in t["inputSchema"]["properties"]),
    ("ctx: Context = None (SDK 1.x)", "mcp", "current_conditions", lambda t: "ctx" not in t["inputSchema"]["properties"]),
    ("ctx: Optional[Context] (SDK 1.x)", "mcp", "heat_index", lambda t: "ctx" not in t["inputSchema"]["properties"]),
    ("ctx: Context (fastmcp)", "fastmcp", "complete_task", lambda t: "ctx" not in t["inputSchema"]["properties"]),
    ("ctx: Optional[Context] (fastmcp)", "fastmcp", "delete_task", lambda t: "ctx" not in t["inputSchema"]["properties"]),
    ("no return annotation", "mcp", "ping", lambda t: "outputSchema" not in t),
    ("-> CallToolResult", "mcp", "note_as_text", lambda t: "outputSchema" not in t),
    ("-> CallToolResult (fastmcp)", "fastmcp", "task_report", lambda t: "outputSchema" not in t),
    ("registration function", "mcp", "write_file", lambda t: t["x-codegen"]["registrar"] == "published.sdk2.registry_files:register_file_tools"),
    ("registration function, keyword option", "mcp", "query", lambda t: t["x-codegen"]["registrar_parameter"] == "server"),
    ("registration function (fastmcp)", "fastmcp", "admin_stats", lambda t: t["x-codegen"]["function"].endswith("setup.<locals>.stats")),
]  # fmt: skip


@pytest.mark.parametrize(("form", "flavor", "tool", "check"), FORMS, ids=[f[0] for f in FORMS])
def test_the_corpus_covers_each_form(
    builds: dict[str, dict[str, Any]], form: str, flavor: str, tool: str, check: Any
) -> None:
    assert check(builds[flavor]["generated"][tool]), builds[flavor]["generated"][tool]


def test_boxed_results_are_recorded_for_the_runtime(builds: dict[str, dict[str, Any]]) -> None:
    sdk = builds["mcp"]["generated"]
    assert sdk["star_count"]["x-codegen"]["box"] == {"field": "result"}  # -> int is wrapped
    assert "result_meta" not in sdk["star_count"]["x-codegen"]  # the SDK marks nothing
    assert sdk["get_repository"]["x-codegen"]["box"] is None  # a dataclass is an object
    fast = builds["fastmcp"]["generated"]
    assert fast["count_tasks"]["outputSchema"]["x-fastmcp-wrap-result"] is True
    assert fast["count_tasks"]["x-codegen"]["box"] == {"field": "result"}
    assert fast["count_tasks"]["x-codegen"]["result_meta"] == {"fastmcp": {"wrap_result": True}}
    assert fast["board"]["x-codegen"]["box"] is None


def test_registered_functions_are_reachable_the_way_the_runtime_reaches_them(
    builds: dict[str, dict[str, Any]],
) -> None:
    from mcp_codegen._registration.registrar import capture

    for build in builds.values():
        for tool in build["generated"].values():
            private = tool["x-codegen"]
            if "registrar" not in private:
                continue
            module, _, registrar = private["registrar"].partition(":")
            found = capture(
                getattr(importlib.import_module(module), registrar), private["registrar_parameter"]
            )
            qualname = private["function"].partition(":")[2]
            assert found[qualname].__qualname__ == qualname


@pytest.mark.parametrize("package", list(SERVERS))
def test_the_runtime_serves_each_flavor_as_the_framework_does(
    corpus: dict[str, dict[str, Any]], package: str
) -> None:
    """End to end: the codegen runtime serving the generated modules, listed by the SDK's client,
    against the framework's own server listed by its own client."""
    from mcp_codegen.runtime import load_tools
    from tests.runtime.runtime_support import build_server

    target, list_tools = SERVERS[package]
    theirs = list_tools(_server(target))
    served = sdk_client_tools(build_server(load_tools(corpus[package]["output"])))
    assert {name: unordered_json(tool) for name, tool in served.items()} == {
        name: unordered_json(tool) for name, tool in theirs.items()
    }
