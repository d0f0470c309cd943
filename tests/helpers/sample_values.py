"""Sample arguments built from a JSON Schema, for calling generated tools in tests.

Two samplers with two purposes (neither is an oracle; the frameworks' validators are):

- ``minimal_sample``: the smallest value the schema accepts (required properties only), for the
  runtime's client tests, whose TypeScript twin (tests/runtime/node/ts_client.mjs) gets the same
  arguments from Python;
- ``full_sample``: every property filled, so the framework-versus-runtime comparisons exercise
  each property's conversion; a new ``pattern`` fails loudly until ``PATTERN_SAMPLES`` has it.
"""

from __future__ import annotations

import copy
import re
from typing import Any


def _resolve_local(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        reference = schema["$ref"]
        assert reference.startswith("#/"), f"only local $refs are supported here: {reference}"
        target: Any = root
        for part in reference[2:].split("/"):
            target = target[part]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


_MINIMAL_FORMATS = {
    "date": "2024-01-02",
    "date-time": "2024-01-02T03:04:05Z",
    "time": "03:04:05Z",
    "email": "reader@example.com",
    "uri": "https://example.com/item",
    "uuid": "12345678-1234-5678-1234-567812345678",
}


def minimal_sample(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A small value that satisfies ``schema`` for the common keywords generated schemas use:
    only the required properties, numbers at 1 (or inside their bounds), the first non-null
    branch of a union; strings that match a ``pattern`` when one of a few candidates does."""
    schema = _resolve_local(schema, root)
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    if "enum" in schema:
        return copy.deepcopy(schema["enum"][0])
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            options = [_resolve_local(option, root) for option in schema[keyword]]
            non_null = [option for option in options if option.get("type") != "null"]
            return minimal_sample((non_null or options)[0], root)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(_resolve_local(part, root))
        return minimal_sample(merged, root)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "string":
        candidates = [
            _MINIMAL_FORMATS.get(schema.get("format", ""), "sample"),
            "SAMPLE-1",
            "sample-1",
        ]
        for text in candidates:
            text = text.ljust(schema.get("minLength", 0), "X")[: schema.get("maxLength", len(text))]
            if re.search(schema.get("pattern", ""), text):
                return text
        return candidates[0]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 2) - 1)
        value = max(low, min(1, high))
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    if kind == "array":
        items = schema.get("items", {})
        prefix = [minimal_sample(item, root) for item in schema.get("prefixItems", [])]
        count = max(schema.get("minItems", 0) - len(prefix), 0)
        return prefix + [minimal_sample(items, root) for _ in range(count)]
    properties = schema.get("properties", {})
    return {
        name: minimal_sample(properties.get(name, {}), root) for name in schema.get("required", [])
    }


#: Strings for the patterns the corpus uses; a new pattern fails loudly until it is added here.
PATTERN_SAMPLES = {
    "^[A-Z]{4}$": "KSFO",
    "^[CFK]$": "F",
}
_FULL_FORMATS = {
    "date": "2024-01-02",
    "date-time": "2024-01-02T03:04:05Z",
    "time": "03:04:05Z",
    "duration": "PT1H",
    "email": "reader@example.com",
    "uri": "https://example.com/item",
    "uuid": "12345678-1234-5678-1234-567812345678",
}


def full_sample(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A deterministic value for ``schema``: every property filled, the first non-null branch
    of a union, the first enum member; numbers and strings inside their bounds."""
    schema = _resolve_local(schema, root)
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    if "enum" in schema:
        return copy.deepcopy(schema["enum"][0])
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            options = [_resolve_local(option, root) for option in schema[keyword]]
            non_null = [option for option in options if option.get("type") != "null"]
            return full_sample((non_null or options)[0], root)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(_resolve_local(part, root))
        return full_sample(merged, root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind == "string":
        if "pattern" in schema:
            assert schema["pattern"] in PATTERN_SAMPLES, (
                f"add {schema['pattern']!r} to PATTERN_SAMPLES"
            )
            return PATTERN_SAMPLES[schema["pattern"]]
        text = _FULL_FORMATS.get(schema.get("format", ""), "sample")
        return text.ljust(schema.get("minLength", 0), "x")[: schema.get("maxLength", len(text))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 4) - 1)
        value = max(low, min(2, high))
        return int(value) if kind == "integer" else float(value) + 0.5
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    if kind == "array":
        prefix = [full_sample(item, root) for item in schema.get("prefixItems", [])]
        count = max(schema.get("minItems", 1) - len(prefix), 0) if not prefix else 0
        return prefix + [full_sample(schema.get("items", {}), root) for _ in range(count)]
    return {
        name: full_sample(property_schema, root)
        for name, property_schema in schema.get("properties", {}).items()
    }


def resolve_earlier_results(value: Any, earlier: dict[str, Any]) -> Any:
    """Replace ``{"$result": TOOL, "path": [...]}`` with that tool's earlier structured output."""
    if isinstance(value, dict) and "$result" in value:
        target = earlier[value["$result"]]
        for key in value["path"]:
            target = target[key]
        return target
    if isinstance(value, dict):
        return {key: resolve_earlier_results(item, earlier) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve_earlier_results(item, earlier) for item in value]
    return value
