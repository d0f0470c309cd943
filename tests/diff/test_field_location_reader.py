"""``ToolEntry.location_for``: a field's recorded file and line, else the parameter's, else the
``def``'s; malformed records are ignored (the diff reads old and untrusted trees)."""

from __future__ import annotations

import pytest

from mcp_codegen._diff.revisions import ToolEntry, read_texts
from mcp_codegen._shared.diagnostics import CodegenError
from mcp_codegen._shared.format import GeneratedModuleError, check_tool, field_location


def _entry(private: dict[str, object]) -> ToolEntry:
    tool = {
        "name": "ship",
        "inputSchema": {"type": "object"},
        "x-codegen": {"function": "pkg.tools:ship", **private},
    }
    return ToolEntry("ship", tool, "pkg/tools.py", "pkg/tools.py", line=4)


FIELDS = [  # as the diff reads it: JSON arrays
    ["/inputSchema/properties/address", "pkg/models.py", 9],
    ["/inputSchema/properties/address/properties/city", "pkg/models.py", 11],
    ["/outputSchema", "pkg/models.py", 19],
]


def test_the_deepest_recorded_pointer_wins() -> None:
    entry = _entry({"parameters": {"address": 6}, "fields": FIELDS})
    city = "/inputSchema/properties/address/properties/city"
    assert entry.location_for(f"{city}/maxLength") == ("pkg/models.py", 11)
    assert entry.location_for(city) == ("pkg/models.py", 11)
    # a removed field: the model's class line
    assert entry.location_for("/inputSchema/properties/address/properties/zip") == (
        "pkg/models.py",
        9,
    )
    assert entry.location_for("/inputSchema/properties/address/type") == ("pkg/models.py", 9)
    # the prefix is a whole token: "address2" is not inside "address"
    assert entry.location_for("/inputSchema/properties/address2") == ("pkg/tools.py", 4)
    assert entry.location_for("/outputSchema/properties/total") == ("pkg/models.py", 19)
    assert entry.location_for("/annotations/readOnlyHint") == ("pkg/tools.py", 4)


def test_without_fields_the_parameter_then_the_def() -> None:
    entry = _entry({"parameters": {"address": 6}})
    assert entry.location_for("/inputSchema/properties/address/properties/city") == (
        "pkg/tools.py",
        6,
    )
    assert entry.location_for("/outputSchema/properties/total") == ("pkg/tools.py", 4)


@pytest.mark.parametrize(
    "entry",
    [
        ["/inputSchema/properties/address", "/abs/models.py", 3],
        ["/inputSchema/properties/address", "../models.py", 3],
        ["/inputSchema/properties/address", "pkg/models.py", 0],
        ["/inputSchema/properties/address", "pkg/models.py", True],
        ["/inputSchema/properties/address", "pkg/models.py", "3"],
        ["/inputSchema/properties/address", "C:/models.py", 3],
        ["inputSchema/properties/address", "pkg/models.py", 3],
        ["/inputSchema/properties/address", "pkg/models.py"],
        "/inputSchema/properties/address pkg/models.py:3",
    ],
)
def test_malformed_entries_are_never_used_and_the_reader_reports_them(entry: object) -> None:
    entries = _entry({"parameters": {"address": 6}, "fields": [entry]})
    assert field_location(entry) is None
    assert entries.malformed_fields
    assert entries.location_for("/inputSchema/properties/address/type") == ("pkg/tools.py", 6)
    text = f"TOOLS = ({entries.tool!r},)\n"
    with pytest.raises(CodegenError, match=r"malformed x-codegen\.fields"):
        read_texts("head", 'MODULES = ("pkg/tools.py",)\n', {"pkg/tools.py": text})


def test_the_runtime_check_takes_a_tuple_and_leaves_entries_to_diff() -> None:
    tool = _entry({"fields": (("/outputSchema", "pkg/models.py", 19),)}).tool
    assert check_tool(tool, "generated/pkg/tools.py") == "ship"
    tool["x-codegen"]["fields"] = {"/outputSchema": "pkg/models.py:19"}
    with pytest.raises(GeneratedModuleError, match=r"malformed x-codegen\.fields"):
        check_tool(tool, "generated/pkg/tools.py")
    assert field_location(("/outputSchema", "pkg/models.py", 19)) == (
        "/outputSchema",
        "pkg/models.py",
        19,
    )
