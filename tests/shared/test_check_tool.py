"""``check_tool`` refuses every malformed generated tool dict, each with its own message (the
start-up fast path of the check must not weaken it)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mcp_codegen._shared.format import GeneratedModuleError, check_tool

GOOD: dict[str, Any] = {
    "name": "search",
    "inputSchema": {"type": "object"},
    "outputSchema": {"type": "object", "properties": {"result": {"type": "string"}}},
    "x-codegen": {
        "function": "pkg.tools:search",
        "line": 4,
        "box": {"field": "result"},
        "parameters": {"query": 5, "limit": 6},
        "fields": (("/outputSchema", "pkg/models.py", 3),),
        "natural": {"outputSchema": {"type": "string"}},
        "result_meta": {"fastmcp": {"wrap_result": True}},
    },
}


def test_a_well_formed_tool_passes() -> None:
    assert check_tool(copy.deepcopy(GOOD), "generated/pkg/tools.py") == "search"
    bare = {"name": "t", "inputSchema": {}, "x-codegen": {"function": "m:t"}}
    assert check_tool(bare, "generated/pkg/tools.py") == "t"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"inputSchema": []}, "tool 'search' has no inputSchema dict"),
        ({"x-codegen": None}, "lacks x-codegen.function"),
        ({"x-codegen.function": "no colon"}, "lacks x-codegen.function"),
        ({"x-codegen.box": {"field": 1}}, "malformed x-codegen.box"),
        ({"x-codegen.registrar": "pkg.tools:register"}, "needs both x-codegen.registrar"),
        ({"x-codegen.factory": "create()"}, "malformed x-codegen.factory"),
        ({"x-codegen.natural": {"outputSchema": 1}}, "malformed x-codegen.natural"),
        ({"x-codegen.parameters": [("query", 5)]}, "malformed x-codegen.parameters"),
        ({"x-codegen.parameters": {"query": "5"}}, "malformed x-codegen.parameters"),
        ({"x-codegen.parameters": {"query": True}}, "malformed x-codegen.parameters"),
        ({"x-codegen.parameters": {"query": 5, 1: 6}}, "malformed x-codegen.parameters"),
        ({"x-codegen.fields": {"/outputSchema": "pkg/models.py:3"}}, "malformed x-codegen.fields"),
        (
            {"x-codegen.fields": [["/outputSchema", "pkg/models.py", 3]]},
            "malformed x-codegen.fields",
        ),
        ({"x-codegen.result_meta": ["wrap"]}, "malformed x-codegen.result_meta"),
        ({"x-codegen.unlisted": False}, "malformed x-codegen.unlisted"),
        ({"x-codegen.unlisted": 1}, "malformed x-codegen.unlisted"),
    ],
)
def test_each_malformed_part_is_refused(change: dict[str, Any], message: str) -> None:
    tool = copy.deepcopy(GOOD)
    for key, value in change.items():
        if key.startswith("x-codegen."):
            tool["x-codegen"][key.removeprefix("x-codegen.")] = value
        else:
            tool[key] = value
    with pytest.raises(GeneratedModuleError, match=message.replace(".", r"\.")) as raised:
        check_tool(tool, "generated/pkg/tools.py")
    assert raised.value.path == "generated/pkg/tools.py"
    assert "'search'" in str(raised.value)


@pytest.mark.parametrize("tool", [[], {"inputSchema": {}}, {"name": ""}, {"name": 3}])
def test_a_tool_that_is_no_dict_or_has_no_name_is_refused(tool: object) -> None:
    with pytest.raises(GeneratedModuleError, match=r"must be a dict|has no name"):
        check_tool(tool, "generated/pkg/tools.py")
