"""Each profile's output against the real client libraries' own validators.

- openai-strict: the OpenAI Agents SDK's ``ensure_strict_json_schema`` must return every output
  unchanged (it rewrites, or raises on, anything strict mode would reject).
- gemini: google-genai's ``types.Schema`` (``extra="forbid"``) must parse every output, and a
  ``FunctionDeclaration`` must take it as ``parameters``.
- claude: no SDK validates tool schemas client-side; the rule (no root combinator) is checked
  directly, and every output must still be a valid JSON Schema 2020-12.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import jsonschema
import pytest

from mcp_codegen._profiles import apply_profile
from tests.profiles.profile_support import corpus, corpus_names

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

#: Test ids only; the tools themselves (``corpus()``) are built on first use, not at collection.
NAMES = corpus_names()


@functools.cache
def _served(profile: str) -> tuple[dict[str, dict[str, Any]], set[str]]:
    result = apply_profile(list(corpus()), profile)
    return {tool["name"]: tool for tool in result.tools}, {f.tool for f in result.errors}


def _keys(node: Any) -> set[str]:
    """Every keyword used anywhere in schema positions (property names excluded)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key == "properties":
                for sub in value.values():
                    found |= _keys(sub)
            elif key not in ("enum", "default", "example", "required"):
                found |= _keys(value)
    elif isinstance(node, list):
        for item in node:
            found |= _keys(item)
    return found


@pytest.mark.slow
def test_the_corpus_is_big_and_varied() -> None:
    assert len(corpus()) >= 60
    assert len(set(NAMES)) == len(NAMES)
    built = [tool["name"] for tool in corpus()]
    assert built == NAMES, f"update PUBLISHED_NAMES in profile_support.py; built: {built}"


@pytest.mark.parametrize("name", NAMES)
def test_openai_strict_output_is_what_the_agents_sdk_accepts_unchanged(name: str) -> None:
    # The oracles are imported by the tests that use them: together they take seconds to import.
    from agents.strict_schema import ensure_strict_json_schema

    served, errors = _served("openai-strict")
    schema = served[name]["inputSchema"]
    if name in errors:
        return  # the lint already says this tool cannot be expressed; checked below
    assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema
    if "$ref" not in json.dumps(schema):  # its stricter mode refuses every $ref
        # The stricter mode the SDK uses for MCP tools also refuses open objects.
        assert ensure_strict_json_schema(copy.deepcopy(schema), _reject_open_objects=True) == schema


def test_openai_strict_errors_are_the_tools_strict_mode_cannot_take() -> None:
    _, errors = _served("openai-strict")
    # analyze / examples_analyze / maps take dict[str, T] (an open map), constraints has an
    # open object, and the last three break OpenAI's documented size limits.
    assert errors == {
        "analyze",
        "examples_analyze",
        "maps",
        "constraints",
        "too_deep",
        "too_wide",
        "many_enums",
    }


@pytest.mark.parametrize("name", NAMES)
def test_gemini_output_parses_as_a_function_declaration(name: str) -> None:
    from google.genai import types

    served, _ = _served("gemini")
    tool = served[name]
    schema = types.Schema.model_validate(tool["inputSchema"])
    declaration = types.FunctionDeclaration(
        name=name, description=tool.get("description"), parameters=schema
    )
    assert declaration.parameters == schema
    forbidden = {"$ref", "$defs", "const", "additionalProperties", "oneOf", "allOf", "not"}
    assert not (_keys(tool["inputSchema"]) & forbidden)
    assert "type" not in tool["inputSchema"] or isinstance(tool["inputSchema"]["type"], str)


def test_gemini_errors_are_the_recursive_schemas() -> None:
    _, errors = _served("gemini")
    assert errors == {"merge_categories", "count_nodes", "recursive"}


@pytest.mark.parametrize("profile", ["claude", "openai-strict", "gemini"])
def test_no_profile_leaves_a_root_combinator_or_an_invalid_schema(profile: str) -> None:
    served, _ = _served(profile)
    for tool in served.values():
        schema = tool["inputSchema"]
        if profile != "gemini":  # Gemini's nullable is OpenAPI, not JSON Schema
            jsonschema.Draft202012Validator.check_schema(schema)
        if profile != "gemini" or "anyOf" not in schema:
            assert not {"anyOf", "oneOf", "allOf"} & schema.keys(), tool["name"]


def test_output_schemas_are_never_touched() -> None:
    for profile in ("openai-strict", "gemini", "claude"):
        served, _ = _served(profile)
        for tool in corpus():
            assert served[tool["name"]].get("outputSchema") == tool.get("outputSchema")
            assert served[tool["name"]].keys() == tool.keys()
