"""Schema transforms: each is pure and touches only schema positions."""

from __future__ import annotations

import copy

import pytest
from pydantic import BaseModel, Field, TypeAdapter

from mcp_codegen._shared.schema_transforms import (
    Memo,
    box_output,
    clean,
    drop_schema_keyword,
    inline_refs,
    order_keys,
    prune_titles,
    recursive_definitions,
)


def test_prune_titles_keeps_a_property_named_title_and_data_values() -> None:
    schema = {
        "title": "Root",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string", "default": "title"},
            "meta": {
                "title": "Meta",
                "enum": [{"title": "x"}],
                "const": {"title": "y"},
                "examples": [{"title": "z"}],
                "default": {"title": "d"},
                "x-extension": {"title": "kept"},
            },
        },
        "required": ["title"],
    }
    before = copy.deepcopy(schema)
    pruned = prune_titles(schema)
    assert schema == before  # pure
    assert pruned == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "default": "title"},
            "meta": {
                "enum": [{"title": "x"}],
                "const": {"title": "y"},
                "examples": [{"title": "z"}],
                "default": {"title": "d"},
                "x-extension": {"title": "kept"},
            },
        },
        "required": ["title"],
    }


def test_prune_titles_walks_every_subschema_keyword() -> None:
    leaf = {"title": "T", "type": "string"}
    schema = {
        key: copy.deepcopy(leaf)
        for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains")
    }
    schema["anyOf"] = [copy.deepcopy(leaf)]
    schema["prefixItems"] = [copy.deepcopy(leaf)]
    schema["$defs"] = {"A": copy.deepcopy(leaf)}
    schema["patternProperties"] = {"^a": copy.deepcopy(leaf)}
    assert "title" not in repr(prune_titles(schema))


def test_a_model_with_a_title_field_keeps_it_end_to_end() -> None:
    class Book(BaseModel):
        title: str = Field(description="The title")

    schema = prune_titles(TypeAdapter(Book).json_schema())
    assert schema["properties"]["title"] == {"type": "string", "description": "The title"}
    assert schema["required"] == ["title"]


def test_inline_refs_inlines_and_drops_defs() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "field wins"},
            "b": {"type": "array", "items": {"$ref": "#/$defs/A"}},
        },
        "$defs": {
            "A": {
                "type": "object",
                "description": "model",
                "properties": {"x": {"$ref": "#/$defs/B"}},
            },
            "B": {"type": "integer"},
        },
    }
    inlined = inline_refs(schema)
    assert "$defs" not in inlined
    assert inlined["properties"]["a"] == {
        "type": "object",
        "description": "field wins",
        "properties": {"x": {"type": "integer"}},
    }
    assert inlined["properties"]["b"]["items"]["properties"]["x"] == {"type": "integer"}
    assert "$ref" not in repr(inlined)


def test_recursive_types_keep_defs_and_the_root_ref_is_unwrapped() -> None:
    class Category(BaseModel):
        name: str
        children: list[Category] = []

    raw = TypeAdapter(Category).json_schema(mode="serialization")
    assert raw["$ref"] == "#/$defs/Category"
    out = inline_refs(raw)
    assert out["type"] == "object"
    assert "$ref" not in out  # the root itself is no longer a reference
    assert out["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
    assert set(out["$defs"]) == {"Category"}


def test_mutual_recursion_is_detected() -> None:
    defs = {
        "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
        "B": {"properties": {"a": {"$ref": "#/$defs/A"}}},
        "C": {"properties": {"a": {"$ref": "#/$defs/A"}}},
    }
    assert recursive_definitions(defs) == {"A", "B"}
    out = inline_refs({"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}, "$defs": defs})
    assert set(out["$defs"]) == {"A", "B"}  # C was not recursive: inlined, gone
    assert out["properties"]["c"]["properties"]["a"] == {"$ref": "#/$defs/A"}


def test_dangling_ref_is_an_error_not_a_silent_pass() -> None:
    with pytest.raises(ValueError, match="dangling"):
        inline_refs({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}})


def test_no_schema_keyword_anywhere() -> None:
    out = drop_schema_keyword(
        {"$schema": "x", "type": "object", "properties": {"a": {"$schema": "y"}}}
    )
    assert out == {"type": "object", "properties": {"a": {}}}


def test_box_output_wraps_non_objects_and_keeps_objects() -> None:
    boxed, was_boxed = box_output({"type": "integer"}, "result", marker=True)
    assert was_boxed
    assert boxed == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
        "x-dedalus-box": {"field": "result"},
    }
    plain, was_boxed = box_output({"type": "object", "properties": {}}, "result", marker=True)
    assert not was_boxed and plain == {"type": "object", "properties": {}}
    unmarked, _ = box_output(
        {"anyOf": [{"type": "string"}, {"type": "null"}]}, "total", marker=False
    )
    assert "x-dedalus-box" not in unmarked and unmarked["required"] == ["total"]


def test_box_output_keeps_recursive_defs_at_the_root() -> None:
    schema = {"type": "array", "items": {"$ref": "#/$defs/N"}, "$defs": {"N": {"type": "object"}}}
    boxed, _ = box_output(schema, "result", marker=True)
    assert boxed["$defs"] == {"N": {"type": "object"}}
    assert "$defs" not in boxed["properties"]["result"]


def test_order_keys_is_stable_and_keeps_property_order() -> None:
    schema = {
        "required": ["b", "a"],
        "properties": {"b": {"type": "string"}, "a": {"type": "integer"}},
        "type": "object",
        "zzz": 1,
        "$defs": {},
    }
    ordered = order_keys(schema)
    assert list(ordered) == ["type", "properties", "required", "$defs", "zzz"]
    assert list(ordered["properties"]) == ["b", "a"]
    assert ordered == schema


def test_only_reachable_recursive_definitions_are_kept() -> None:
    defs = {
        "A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
        "B": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
    }
    out = inline_refs({"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}}, "$defs": defs})
    assert set(out["$defs"]) == {"A"}  # B is recursive too, but nothing here refers to it
    unused = inline_refs({"type": "object", "properties": {}, "$defs": defs})
    assert "$defs" not in unused


def _shared_pool() -> list[dict]:
    """Tools that share definition bodies, as the worker's module pass returns them."""
    defs = {
        "Item": {
            "title": "Item",
            "type": "object",
            "properties": {
                "sku": {"title": "Sku", "type": "string"},
                "tag": {"$ref": "#/$defs/Tag"},
            },
            "required": ["sku", "tag"],
        },
        "Tag": {"title": "Tag", "enum": ["a", "title"], "type": "string"},
        "Node": {
            "title": "Node",
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        },
    }
    tools = [
        {"type": "object", "properties": {"item": {"$ref": "#/$defs/Item"}}, "$defs": defs},
        {
            "type": "object",
            "properties": {
                "first": {"$ref": "#/$defs/Item", "description": "The first."},
                "tree": {"$ref": "#/$defs/Node"},
            },
            "$defs": defs,
        },
        {"$ref": "#/$defs/Item", "$defs": defs},
    ]
    return tools


def test_a_shared_memo_gives_the_same_schemas_and_mutates_nothing() -> None:
    tools = _shared_pool()
    before = copy.deepcopy(tools)
    memo = Memo()
    with_memo = [clean(tool, memo) for tool in tools]
    assert with_memo == [clean(tool) for tool in copy.deepcopy(before)]
    assert tools == before  # the shared raw bodies are untouched
    assert with_memo[1]["properties"]["first"]["description"] == "The first."
    assert "description" not in with_memo[0]["properties"]["item"]  # no sibling leaked back
    assert set(with_memo[1]["$defs"]) == {"Node"} and "$defs" not in with_memo[0]
    # The second clean of the same object is the memo's answer.
    assert clean(tools[0], memo) is with_memo[0]
