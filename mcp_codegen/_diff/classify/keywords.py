"""The JSON Schema keyword vocabulary of the classifier and small helpers on schema shapes."""

from __future__ import annotations

import json
from enum import Enum
from fractions import Fraction
from typing import Any

from mcp_codegen._diff.changes import JSON
from mcp_codegen._shared.annotations import SCHEMA_ANNOTATIONS

Schema = dict[str, Any]

#: Structural keywords handled by the walk itself, not compared as values.
STRUCTURAL = frozenset({"$defs", "definitions", "$ref"})
LOWER_COUNTS = ("minLength", "minItems", "minProperties", "minContains")
UPPER_COUNTS = ("maxLength", "maxItems", "maxProperties", "maxContains")
#: Keywords with a dedicated comparison; everything else that differs is UNKNOWN.
HANDLED = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "format",
        "uniqueItems",
        "propertyNames",
        *LOWER_COUNTS,
        *UPPER_COUNTS,
    }
)


class Direction(Enum):
    INPUT = "input"  # contravariant
    OUTPUT = "output"  # covariant


class Effect(Enum):
    """What a keyword change does to the set of valid instances."""

    NARROWS = "narrows"
    WIDENS = "widens"
    BOTH = "both"  # some instances gained and some lost


def as_schema(node: JSON) -> Schema:
    """Boolean schemas as dicts: ``true`` accepts everything, ``false`` nothing."""
    if node is True:
        return {}
    if node is False:
        return {"not": {}}
    return node if isinstance(node, dict) else {}


def is_false(node: Schema) -> bool:
    """Whether ``node`` is the ``false`` schema as ``as_schema`` spells it."""
    return node.get("not") == {} and len(node) == 1


def is_closed(value: JSON) -> bool:
    """Whether an ``additionalProperties``/``items`` value allows nothing."""
    return value is False or (isinstance(value, dict) and is_false(value))


def assertions(schema: Schema) -> Schema:
    """The keywords of ``schema`` that are not annotations."""
    return {k: v for k, v in schema.items() if k not in SCHEMA_ANNOTATIONS}


def schema_key(schema: Schema) -> str:
    """A hashable identity of a schema's assertions."""
    return json.dumps(assertions(schema), sort_keys=True, default=str)


def ref_of(schema: JSON) -> str | None:
    """The ``$ref`` string of a schema, if it has one."""
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    return ref if isinstance(ref, str) else None


def dict_of(value: JSON) -> dict[str, JSON]:
    """``value`` if it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def names_of(value: JSON) -> list[str]:
    """The strings in ``value`` if it is an array (a ``required`` list)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def is_number(value: JSON) -> bool:
    """Whether ``value`` is a JSON number (booleans are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def fraction(value: int | float) -> Fraction:
    """An exact rational for a JSON number, as written (``0.1`` is one tenth)."""
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def show_json(value: JSON) -> str:
    """``value`` as JSON text for a message."""
    return json.dumps(value, ensure_ascii=False)


def short(value: JSON, limit: int = 60) -> str:
    """Compact JSON text of ``value``, cut at ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"
