"""``ToolEntry.location_for``: a field's recorded file and line, else the parameter's, else the
``def``'s; malformed records are ignored (the diff reads old and untrusted trees)."""

from __future__ import annotations

import pytest

from codegen.diff.revisions import ToolEntry
from codegen.shared.format import GeneratedModuleError, check_tool, field_location


def _entry(private: dict[str, object]) -> ToolEntry:
    tool = {
        "name": "ship",
        "inputSchema": {"type": "object"},
        "x-codegen": {"function": "pkg.tools:ship", **private},
    }
    return ToolEntry("ship", tool, "pkg/tools.py", "pkg/tools.py", line=4)


FIELDS = {
    "/inputSchema/properties/address": "pkg/models.py:9",
    "/inputSchema/properties/address/properties/city": "pkg/models.py:11",
    "/outputSchema": "pkg/models.py:19",
}


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
    "where",
    ["/abs/models.py:3", "../models.py:3", "pkg/models.py", "pkg/models.py:0", "pkg/m.py:x", 7],
)
def test_malformed_records_are_ignored_by_diff_and_refused_by_readers(where: object) -> None:
    entry = _entry(
        {"parameters": {"address": 6}, "fields": {"/inputSchema/properties/address": where}}
    )
    assert entry.location_for("/inputSchema/properties/address/type") == ("pkg/tools.py", 6)
    assert field_location("/inputSchema/properties/address", where) is None
    with pytest.raises(GeneratedModuleError, match=r"malformed x-codegen\.fields"):
        check_tool(entry.tool, "generated/pkg/tools.py")


def test_well_formed_records_pass_the_readers_check() -> None:
    assert check_tool(_entry({"fields": FIELDS}).tool, "generated/pkg/tools.py") == "ship"
    assert field_location("/outputSchema", "pkg/a:b.py:12") == ("pkg/a:b.py", 12)
    assert field_location("outputSchema", "pkg/models.py:12") is None
