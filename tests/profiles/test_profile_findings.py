"""Each transform on small schemas whose right answer is worked out by hand from the profile's
rules, with the findings (kind and JSON pointer) the lint prints."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mcp_codegen._profiles import apply_profile, get_profile, restore_arguments
from tests.profiles.profile_support import HAND_WRITTEN, INT, STR


def _one(profile: str, schema: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]], Any]:
    result = apply_profile([{"name": "t", "inputSchema": schema}], profile)
    kinds = [(f.pointer, f.kind) for f in result.findings]
    return result.tools[0]["inputSchema"], kinds, result


def test_openai_strict_requires_everything_and_nulls_mean_absent() -> None:
    schema = {
        "type": "object",
        "properties": {"q": STR, "n": {"type": "integer", "default": 5, "minimum": 1}},
        "required": ["q"],
    }
    served, kinds, result = _one("openai-strict", schema)
    assert served == {
        "type": "object",
        "properties": {"q": STR, "n": {"type": ["integer", "null"], "minimum": 1}},
        "required": ["q", "n"],
        "additionalProperties": False,
    }
    assert kinds == [
        ("/inputSchema/properties/n/default", "lost"),
        ("/inputSchema/properties/n", "changed"),
    ]
    assert result.null_means_absent == {"t": [("n",)]}


def test_openai_strict_nullable_forms() -> None:
    schema = {
        "type": "object",
        "properties": {
            "e": {"type": "string", "enum": ["a"]},
            "u": {"anyOf": [INT, STR]},
            "o": {"anyOf": [INT, {"type": "null"}]},
            "k": {"const": "x", "description": "d"},
        },
    }
    served, _, _ = _one("openai-strict", schema)
    properties = served["properties"]
    assert properties["e"] == {"type": ["string", "null"], "enum": ["a", None]}
    assert properties["u"] == {"anyOf": [INT, STR, {"type": "null"}]}
    assert properties["o"] == {"anyOf": [INT, {"type": "null"}]}  # already nullable
    assert properties["k"] == {"description": "d", "anyOf": [{"const": "x"}, {"type": "null"}]}


def test_openai_strict_strips_unsupported_keywords_and_formats() -> None:
    schema = {
        "type": "object",
        "properties": {
            "s": {"type": "string", "minLength": 1, "format": "uri", "pattern": "^h"},
            "d": {"type": "string", "format": "date"},
        },
        "required": ["s", "d"],
    }
    served, kinds, _ = _one("openai-strict", schema)
    assert served["properties"] == {
        "s": {"type": "string", "pattern": "^h"},
        "d": {"type": "string", "format": "date"},
    }
    assert kinds == [
        ("/inputSchema/properties/s/minLength", "loosened"),
        ("/inputSchema/properties/s/format", "loosened"),
    ]


def test_one_of_is_any_of_and_exact_only_for_a_tagged_union() -> None:
    tools = {t["name"]: t for t in HAND_WRITTEN}
    _, tagged, _ = _one("openai-strict", tools["discriminated"]["inputSchema"])
    assert ("/inputSchema/properties/pet/oneOf", "changed") in tagged
    assert ("/inputSchema/properties/pet/discriminator", "lost") in tagged
    _, overlapping, _ = _one("gemini", tools["overlapping_union"]["inputSchema"])
    assert ("/inputSchema/properties/v/oneOf", "loosened") in overlapping


def test_all_of_folds_or_drops_the_conflicting_part() -> None:
    tool = next(t for t in HAND_WRITTEN if t["name"] == "intersection")
    served, kinds, _ = _one("gemini", tool["inputSchema"])
    assert served["properties"]["window"] == {
        "type": "object",
        "properties": {"start": INT, "end": INT},
        "required": ["start", "end"],
        "description": "both ends",
    }
    assert served["properties"]["clash"] == {"type": "integer"}
    assert ("/inputSchema/properties/window/allOf", "changed") in kinds
    assert ("/inputSchema/properties/clash/allOf/0", "loosened") in kinds


def test_gemini_openapi_subset() -> None:
    schema = {
        "type": "object",
        "properties": {
            "o": {"anyOf": [INT, {"type": "null"}], "default": None},
            "t": {"type": ["string", "null"]},
            "c": {"const": "a"},
            "n": {"enum": [1, 2]},
            "f": {"type": "integer", "format": "int64"},
            "u": {"type": "string", "format": "uri"},
            "m": {"type": "object", "additionalProperties": INT},
        },
        "required": ["c"],
        "additionalProperties": False,
    }
    served, kinds, _ = _one("gemini", schema)
    assert served == {
        "type": "object",
        "properties": {
            "o": {"type": "integer", "default": None, "nullable": True},
            "t": {"nullable": True, "type": "string"},
            "c": {"enum": ["a"]},
            "n": {},
            "f": {"type": "integer", "format": "int64"},
            "u": {"type": "string"},
            "m": {"type": "object"},
        },
        "required": ["c"],
    }
    assert kinds == [
        ("/inputSchema/properties/c/const", "changed"),
        ("/inputSchema/properties/o/anyOf", "changed"),
        ("/inputSchema/properties/t/type", "changed"),
        ("/inputSchema/properties/n", "loosened"),
        ("/inputSchema/properties/m/additionalProperties", "loosened"),
        ("/inputSchema/additionalProperties", "loosened"),
        ("/inputSchema/properties/u/format", "loosened"),
    ]


def test_gemini_inlines_refs_and_calls_recursion_an_error() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "tree": {"$ref": "#/$defs/T"}},
        "$defs": {
            "A": {"type": "object", "properties": {"x": INT}},
            "T": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/T"}}}},
        },
    }
    served, kinds, result = _one("gemini", schema)
    assert served["properties"]["a"] == {"type": "object", "properties": {"x": INT}}
    assert served["properties"]["tree"] == {}
    assert [f.kind for f in result.errors] == ["error"]
    assert ("/inputSchema/properties/tree/$ref", "error") in kinds


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf", "allOf"])
def test_claude_has_no_root_combinator(keyword: str) -> None:
    schema = {"type": "object", "properties": {"a": INT}, keyword: [{"required": ["a"]}]}
    served, kinds, _ = _one("claude", schema)
    assert served == {"type": "object", "properties": {"a": INT}, "required": ["a"]}
    assert kinds == [(f"/inputSchema/{keyword}", "changed")]
    two = {**schema, keyword: [{"required": ["a"]}, {"properties": {"b": STR}}]}
    served, kinds, _ = _one("claude", two)
    if keyword == "allOf":  # the parts fold together
        assert served["properties"] == {"a": INT, "b": STR}
        assert kinds == [("/inputSchema/allOf", "changed")]
    else:
        assert served == {"type": "object", "properties": {"a": INT}}
        assert kinds == [(f"/inputSchema/{keyword}", "loosened")]


def test_transforms_are_pure() -> None:
    tools = copy.deepcopy(HAND_WRITTEN)
    for profile in ("openai-strict", "gemini", "claude"):
        first = apply_profile(tools, profile)
        assert tools == HAND_WRITTEN
        again = apply_profile(tools, profile)
        assert again.tools == first.tools and again.findings == first.findings


def test_profiles_are_named_lists_of_named_transforms() -> None:
    names = [t.__name__ for t in get_profile("openai-strict").transforms]
    assert names[-2:] == ["close_objects", "require_all"]
    assert [t.__name__ for t in get_profile("claude").transforms] == ["root_combinators"]
    with pytest.raises(ValueError, match="known profiles: openai-strict, gemini, claude"):
        get_profile("llama")


def test_restore_arguments_reaches_nested_objects_and_array_items() -> None:
    arguments = {"a": None, "b": {"c": None, "d": 1}, "l": [{"e": None}, {"e": 2}], "k": None}
    paths = [("a",), ("b", "c"), ("l", "*", "e")]
    assert restore_arguments(arguments, paths) == {"b": {"d": 1}, "l": [{}, {"e": 2}], "k": None}
    assert arguments["a"] is None  # not changed in place


def test_finding_text_names_tool_pointer_kind_and_profile() -> None:
    _, _, result = _one("gemini", {"type": "object", "properties": {"p": {"const": 1}}})
    assert [str(f) for f in result.findings] == [
        "t -> /inputSchema/properties/p/const: changed: `const` became a one-value `enum` "
        "[gemini: const_to_enum]",
        "t -> /inputSchema/properties/p: loosened: `enum` dropped: Gemini enums hold only "
        "strings, and these values are not all strings [gemini: string_enums]",
    ]
