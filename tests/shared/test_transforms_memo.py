"""One ``Memo`` over several schemas, as ``assemble_module`` uses it for a module's tools, gives
each schema exactly what ``clean`` without a memo gives it.

Regressions: a memoised definition was reused for a schema in which a name it reaches is not
defined (no "dangling $ref" error: the error was recorded only by the first expansion) or means
another body; and a root ``$ref`` to an alias got its ``$defs`` written into the memoised
expansion of the aliased definition, which then showed up nested in other tools.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_codegen._shared.schema_transforms import Memo, clean

RECURSIVE = {"type": "object", "properties": {"next": {"$ref": "#/$defs/R"}}}


def test_a_dangling_ref_in_a_shared_definition_fails_every_schema_that_reaches_it() -> None:
    pool = {"A": {"type": "object", "properties": {"p": {"$ref": "#/$defs/Missing"}}}}
    memo = Memo()
    for field in ("x", "y"):
        schema = {"type": "object", "properties": {field: {"$ref": "#/$defs/A"}}, "$defs": pool}
        with pytest.raises(ValueError, match=r"dangling \$ref '#/\$defs/Missing'"):
            clean(schema, memo)


def test_a_shared_definition_is_expanded_again_where_a_name_it_reaches_differs() -> None:
    pool = {"A": {"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}}}
    memo = Memo()
    cleaned = [
        clean(
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": pool,
                "definitions": {"C": {"type": kind}},
            },
            memo,
        )
        for kind in ("string", "integer")
    ]
    assert [c["properties"]["a"]["properties"]["c"] for c in cleaned] == [
        {"type": "string"},
        {"type": "integer"},
    ]


@pytest.mark.parametrize("alias_first", [True, False])
def test_a_root_ref_to_an_alias_leaves_the_memoised_expansion_alone(alias_first: bool) -> None:
    pool = {
        "Alias": {"$ref": "#/$defs/B"},
        "B": {"type": "object", "properties": {"r": {"$ref": "#/$defs/R"}}},
        "R": RECURSIVE,
    }
    aliased: dict[str, Any] = {"$ref": "#/$defs/Alias", "$defs": pool}
    nested: dict[str, Any] = {
        "type": "object",
        "properties": {"b": {"$ref": "#/$defs/B"}},
        "$defs": pool,
    }
    memo = Memo()
    order = [aliased, nested] if alias_first else [nested, aliased]
    results = {id(schema): clean(schema, memo) for schema in order}
    b = {"type": "object", "properties": {"r": {"$ref": "#/$defs/R"}}}
    assert results[id(aliased)] == {**b, "$defs": {"R": RECURSIVE}}
    assert results[id(nested)] == {
        "type": "object",
        "properties": {"b": b},
        "$defs": {"R": RECURSIVE},
    }
