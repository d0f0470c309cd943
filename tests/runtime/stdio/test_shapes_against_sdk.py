"""The fast path's shaping against the SDK's own validator, on generated listings.

Whatever ``dump`` answers for a ``tools/list`` result, the SDK's ``serialize_server_result``
must accept and serialise to the same bytes (key order included); a value the SDK refuses must
be doubted. Values mix what tools hold (schemas, annotations, icons, literals) with what the SDK
coerces or refuses (``1`` for ``True``, ``"object"`` subclasses, numbers for strings, ...).
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from mcp_types.methods import serialize_server_result

from mcp_codegen.runtime._stdio import wire_shapes
from mcp_codegen.runtime._stdio.shapes import Doubt, dump


class _Text(str):
    """A ``str`` subclass: not JSON; the fast path doubts it rather than guess."""


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([0.5, 1.0]),
    st.sampled_from(["", "a", "object", "light", "dark", "optional", "x"]),
    st.builds(_Text, st.sampled_from(["object", "a"])),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["type", "a", "items", "title"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def _maybe(strategy: Any) -> Any:
    """Mostly the right kind of value (so that many listings are answered and compared), else
    anything."""
    return st.integers(0, 11).flatmap(lambda pick: _JSON if pick == 0 else strategy)


_KEYS = st.sampled_from(["x", "y", "type", "z", "w", "v", 0])  # 0: not a JSON key  # dict keys
_SUBSCHEMA = _maybe(
    st.one_of(
        st.booleans(),
        st.dictionaries(st.sampled_from(["type", "description", "default"]), _JSON, max_size=3),
    )
)


_SCHEMA = st.fixed_dictionaries(
    {"type": _maybe(st.just("object"))},
    optional={
        "properties": _maybe(st.dictionaries(_KEYS, _SUBSCHEMA, max_size=3)),
        "required": _maybe(st.lists(_maybe(st.text(max_size=2)), max_size=3)),
        "$schema": _maybe(st.text(max_size=2)),
        "additionalProperties": _JSON,
        "x-extra": _JSON,
    },
)
_TOOL = st.fixed_dictionaries(
    {"name": _maybe(st.text(max_size=3)), "inputSchema": _maybe(_SCHEMA)},
    optional={
        "title": _maybe(st.text(max_size=3)),
        "description": _maybe(st.text(max_size=3)),
        "outputSchema": _maybe(_SCHEMA),
        "_meta": _maybe(st.dictionaries(_KEYS, _JSON, max_size=2)),
        "annotations": _maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "readOnlyHint": _maybe(st.booleans()),
                    "title": _maybe(st.text(max_size=2)),
                    "other": _JSON,
                },
            )
        ),
        "execution": _maybe(
            st.fixed_dictionaries(
                {}, optional={"taskSupport": _maybe(st.sampled_from(["optional", "forbidden"]))}
            )
        ),
        "icons": _maybe(
            st.lists(
                st.fixed_dictionaries(
                    {"src": _maybe(st.text(max_size=2))},
                    optional={
                        "theme": _maybe(st.sampled_from(["light", "dark"])),
                        "sizes": _maybe(st.lists(_maybe(st.text(max_size=2)), max_size=2)),
                    },
                ),
                max_size=2,
            )
        ),
        "unknown": _JSON,
    },
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tools=st.lists(_TOOL, min_size=1, max_size=2))
@example(tools=[{"name": "t", "inputSchema": {"type": "object", "properties": {"a": True}}}])
@example(tools=[{"name": "t", "inputSchema": {"type": _Text("object")}}])
@example(tools=[{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": 1}}])
@example(tools=[{"name": "t", "inputSchema": {"type": "object", "required": [True]}}])
@example(tools=[{"name": "t", "inputSchema": {"type": "array"}}])  # literals: the value counts
@example(
    tools=[{"name": "t", "inputSchema": {"type": "object"}, "icons": [{"src": "s", "theme": "x"}]}]
)
@example(
    tools=[{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "x"}}]
)
@example(tools=[{"name": "t", "inputSchema": {"type": "object", "properties": {"a": 1}}}])
def test_what_the_fast_path_answers_is_what_the_sdk_answers(tools: list[Any]) -> None:
    result = {"tools": tools, "ttlMs": 0, "cacheScope": "private", "resultType": "complete"}
    for version, surface in wire_shapes.REVISIONS.items():
        shape = wire_shapes.SURFACES[surface]["results"]["tools/list"]
        try:
            ours = dump(result, shape)
        except Doubt:
            event("doubted")
            continue  # the SDK answers it: nothing to compare
        event("answered")
        try:
            theirs = serialize_server_result("tools/list", version, result)
        except pydantic.ValidationError as exc:
            raise AssertionError(f"the fast path answered what the SDK refuses: {exc}") from exc
        assert json.dumps(ours) == json.dumps(theirs)  # key order included
