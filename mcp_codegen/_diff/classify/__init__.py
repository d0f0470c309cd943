"""Classify the differences between two tool dicts from JSON Schema semantics.

Inputs are contravariant: a change is compatible when the new input schema accepts every instance
the old one accepted (the server still accepts every old call). Outputs are covariant: a change is
compatible when every instance of the new output schema is an instance of the old one (clients
still understand every result). A change whose effect cannot be decided gets an UNKNOWN kind.

One module per concern, imported one way (``tests/test_architecture.py`` checks it):

- ``keywords``, ``jsonvalues``: the keyword vocabulary and JSON value identity;
- ``refs``: schema documents and ``$ref`` resolution; ``typesets``: JSON type sets;
- ``context``: a walk's state and reporting; the keyword families compare through it:
  ``values`` (type, enum, const), ``unions`` (anyOf, oneOf, allOf), ``objects`` (properties,
  required, additionalProperties, propertyNames, items), ``bounds`` (numbers, counts, strings);
- ``walk``: the recursive ``compare``; ``tools``: one tool dict; ``sides``: two revisions.

Runs in: parent. (The default for every module of this package.)
"""

from __future__ import annotations

from mcp_codegen._diff.classify.keywords import (
    HANDLED,
    SCHEMA_ANNOTATIONS,
    STRUCTURAL,
    Direction,
    Effect,
)
from mcp_codegen._diff.classify.sides import diff_sides
from mcp_codegen._diff.classify.tools import HINT_DEFAULTS, TOOL_FIELDS_COMPARED, compare_tools
from mcp_codegen._diff.classify.typesets import ALL_TYPES, TypeSet, show_types
from mcp_codegen._shared.json_values import json_equal, json_type, value_key

__all__ = [
    "ALL_TYPES",
    "HANDLED",
    "HINT_DEFAULTS",
    "SCHEMA_ANNOTATIONS",
    "STRUCTURAL",
    "TOOL_FIELDS_COMPARED",
    "Direction",
    "Effect",
    "TypeSet",
    "compare_tools",
    "diff_sides",
    "json_equal",
    "json_type",
    "show_types",
    "value_key",
]
