"""Hypothesis: a profile never lets the client send an argument the original schema rejects,
except through a loosening the lint lists.

For each corpus tool and profile, arguments are drawn near the profile's schema and kept when
the profile's schema accepts them; the runtime's undo (``null`` read as "absent" where the profile made an
optional property nullable) is applied; then the original schema judges them (jsonschema, with
format checks). Every rejection must sit at or under, or above, the JSON pointer of a
``loosened`` or ``error`` finding of that tool.
"""

from __future__ import annotations

import functools
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mcp_codegen._profiles import apply_profile, restore_arguments
from mcp_codegen._shared.json_pointer import fragment_tokens
from tests.profiles.profile_support import corpus, openapi_to_json_schema, values

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

#: The size-limit fixtures are thousands of properties or values: too slow to draw from.
HUGE = {"too_wide", "many_enums", "too_deep"}


@functools.cache
def _tools() -> list[dict[str, Any]]:
    """The corpus minus HUGE, built on first use (not at collection)."""
    return [tool for tool in corpus() if tool["name"] not in HUGE]


def _tokens(pointer: str) -> tuple[str, ...]:
    return tuple(t for t in pointer.split("/")[1:] if t != "$ref")


@functools.cache
def _profiled(profile: str) -> Any:
    return apply_profile(_tools(), profile)


@functools.cache
def _strategy(profile: str) -> st.SearchStrategy[tuple[int, Any]]:
    served = _profiled(profile).tools
    options = []
    for index, tool in enumerate(served):
        schema = tool["inputSchema"]
        if profile == "gemini":
            schema = openapi_to_json_schema(schema)
        options.append(st.tuples(st.just(index), values(schema, schema)))
    return st.one_of(options)


@functools.cache
def _validator(profile: str, index: int) -> jsonschema.Draft202012Validator:
    schema = _profiled(profile).tools[index]["inputSchema"]
    if profile == "gemini":
        schema = openapi_to_json_schema(schema)
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def _accepts(profile: str, index: int, arguments: Any) -> bool:
    return bool(_validator(profile, index).is_valid(arguments))


def _resolved(path: list[Any], schema: Any) -> tuple[str, ...] | None:
    """The schema location of a validation error with each ``$ref`` followed to its target: a
    loosening inside ``$defs`` is reported there (``/$defs/Node/properties/children``), while
    jsonschema's path runs through the referring node (``properties/tree/properties/...``, the
    ``$ref`` itself left out). ``None`` when the path does not walk the schema."""
    where: list[str] = []
    node = schema
    for token in path:
        while isinstance(node, dict) and token not in node and isinstance(node.get("$ref"), str):
            target = fragment_tokens(node["$ref"])
            if target is None:
                return None
            where, node = list(target), schema
            for part in target:
                node = _child(node, part)
        if token == "$ref":
            continue
        node = _child(node, token)
        where.append(str(token))
    return tuple(where)


def _child(node: Any, key: Any) -> Any:
    if isinstance(node, list) and str(key).isdigit() and int(key) < len(node):
        return node[int(key)]
    if isinstance(node, dict) and key in node:
        return node[key]
    return None


def _explained(
    error: jsonschema.ValidationError, allowed: list[tuple[str, ...]], schema: Any = None
) -> bool:
    path = list(error.absolute_schema_path)
    candidates = [("inputSchema", *_tokens("/" + "/".join(str(p) for p in path)))]
    if schema is not None and (resolved := _resolved(path, schema)) is not None:
        candidates.append(("inputSchema", *resolved))
    for where in candidates:
        if error.validator in ("anyOf", "oneOf"):
            # Collapsing `anyOf: [X, {"type": "null"}]` into a nullable X lifts X's keywords to
            # the node itself, so a loosening found in X is reported at the node, not under anyOf/N.
            where = where[:-1]
        if any(
            where[: len(pointer)] == pointer or pointer[: len(where)] == where
            for pointer in allowed
        ):
            return True
    return False


def test_a_loosening_inside_defs_explains_an_error_reached_through_a_ref() -> None:
    """Found by the property below in a fresh-clone run: openai-strict makes the optional
    ``children`` of a recursive ``$defs/Node`` nullable and lists that loosening there; the
    original schema's rejection of ``children: null`` runs through ``properties/tree/$ref``."""
    tool = next(t for t in _tools() if t["name"] == "count_nodes")
    result = apply_profile([tool], "openai-strict")
    allowed = [_tokens(f.pointer) for f in result.findings if f.kind in ("loosened", "error")]
    assert ("inputSchema", "$defs", "Node", "properties", "children") in allowed
    arguments = {"tree": {"name": "", "children": None}}
    assert _validator_of(result.tools[0]["inputSchema"]).is_valid(arguments)  # the profile takes it
    errors = list(_validator_of(tool["inputSchema"]).iter_errors(arguments))
    assert [e.message for e in errors] == ["None is not of type 'array'"]
    assert _explained(errors[0], allowed, tool["inputSchema"])
    assert not _explained(
        errors[0], [("inputSchema", "$defs", "Node", "properties", "name")], tool["inputSchema"]
    )


def _validator_of(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


@pytest.mark.parametrize("profile", ["openai-strict", "gemini", "claude"])
def test_a_profile_accepts_nothing_more_than_its_listed_loosenings(profile: str) -> None:
    result = _profiled(profile)
    loosenings: dict[str, list[tuple[str, ...]]] = {}
    for finding in result.findings:
        if finding.kind in ("loosened", "error"):
            loosenings.setdefault(finding.tool, []).append(_tokens(finding.pointer))
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER

    @settings(
        max_examples=150,
        deadline=None,
        derandomize=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )
    @given(_strategy(profile))
    def check(drawn: tuple[int, Any]) -> None:
        index, arguments = drawn
        assume(_accepts(profile, index, arguments))
        original = _tools()[index]
        restored = restore_arguments(arguments, result.null_means_absent.get(original["name"], []))
        validator = jsonschema.Draft202012Validator(original["inputSchema"], format_checker=checker)
        allowed = loosenings.get(original["name"], [])
        for error in validator.iter_errors(restored):
            assert _explained(error, allowed, original["inputSchema"]), (
                original["name"],
                arguments,
                error.message,
            )

    check()


def test_the_property_can_fail() -> None:
    """Without the undo, openai-strict's nulls are rejected and no loosening explains them."""
    tool = next(t for t in _tools() if t["name"] == "search_books")
    served = _profiled("openai-strict")
    schema = next(t for t in served.tools if t["name"] == "search_books")["inputSchema"]
    arguments = {name: None for name in schema["properties"]} | {"query": "x"}
    jsonschema.validate(arguments, schema)
    validator = jsonschema.Draft202012Validator(tool["inputSchema"])
    assert list(validator.iter_errors(arguments))
    restored = restore_arguments(arguments, served.null_means_absent["search_books"])
    assert restored == {"query": "x"}
    assert not list(validator.iter_errors(restored))
