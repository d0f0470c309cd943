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

from codegen.profiles import apply_profile, restore_arguments
from tests.profiles.profile_support import corpus, openapi_to_json_schema, values

pytestmark = pytest.mark.slow  # starts real processes (builds, servers or clients)

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


def _explained(error: jsonschema.ValidationError, allowed: list[tuple[str, ...]]) -> bool:
    where = ("inputSchema", *_tokens("/" + "/".join(str(p) for p in error.absolute_schema_path)))
    if error.validator in ("anyOf", "oneOf"):
        # Collapsing `anyOf: [X, {"type": "null"}]` into a nullable X lifts X's keywords to the
        # node itself, so a loosening found in X is reported at the node, not under anyOf/N.
        where = where[:-1]
    return any(
        where[: len(pointer)] == pointer or pointer[: len(where)] == where for pointer in allowed
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
            assert _explained(error, allowed), (original["name"], arguments, error.message)

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
