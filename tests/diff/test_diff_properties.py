"""Properties of the classifier, checked with hypothesis and against the real jsonschema validator."""

from __future__ import annotations

import copy
import os
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mcp_codegen._diff.changes import Severity
from mcp_codegen._diff.classify import compare_tools, value_key
from tests.diff.diff_support import obj, tool

# MCP_CODEGEN_DIFF_EXAMPLES=5000 for a long local run; the default keeps the suite quick.
EXAMPLES = int(os.environ.get("MCP_CODEGEN_DIFF_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
NAMES = st.sampled_from(["a", "b", "c", "d", "e"])
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 20),
    st.floats(-5, 20, allow_nan=False).map(lambda f: round(f, 1)),
    st.text(alphabet="abz09-@.", max_size=6),
)
NON_NULL_SCALARS = st.one_of(
    st.booleans(), st.integers(-5, 20), st.text(alphabet="abz09", max_size=4)
)


def _optional(**keywords: st.SearchStrategy[Any]) -> dict[str, st.SearchStrategy[Any]]:
    return keywords


STRINGS = st.fixed_dictionaries(
    {"type": st.just("string")},
    optional=_optional(
        minLength=st.integers(0, 4),
        maxLength=st.integers(2, 8),
        pattern=st.sampled_from(["^a", "^[a-z]*$", "0"]),
        format=st.sampled_from(["email", "date"]),
        description=st.sampled_from(["text", "a name"]),
        default=st.sampled_from(["", "x"]),
    ),
)
NUMBERS = st.fixed_dictionaries(
    {"type": st.sampled_from(["integer", "number"])},
    optional=_optional(
        minimum=st.integers(-3, 5),
        maximum=st.integers(4, 15),
        exclusiveMinimum=st.integers(-3, 5),
        exclusiveMaximum=st.integers(4, 15),
        multipleOf=st.sampled_from([1, 2, 3, 0.5]),
        default=st.integers(0, 5),
    ),
)
ENUMS = st.lists(JSON_SCALARS, min_size=1, max_size=4, unique_by=value_key).map(
    lambda values: {"enum": values}
)
LEAVES = st.one_of(
    STRINGS,
    NUMBERS,
    ENUMS,
    JSON_SCALARS.map(lambda value: {"const": value}),
    st.sampled_from([{"type": "boolean"}, {"type": "null"}, {}, {"type": ["string", "null"]}]),
)


def _containers(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    objects = st.dictionaries(NAMES, children, max_size=3).flatmap(
        lambda props: st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.just(props)},
            optional=_optional(
                required=st.lists(st.sampled_from(sorted(props)), unique=True, min_size=1)
                if props
                else st.nothing(),
                additionalProperties=st.sampled_from([False, True]),
            ),
        )
    )
    arrays = st.fixed_dictionaries(
        {"type": st.just("array"), "items": children},
        optional=_optional(
            minItems=st.integers(0, 2), maxItems=st.integers(2, 4), uniqueItems=st.booleans()
        ),
    )
    unions = st.tuples(
        st.sampled_from(["anyOf", "oneOf"]), st.lists(children, min_size=1, max_size=3)
    )
    unions = unions.map(lambda pair: {pair[0]: pair[1]})
    return st.one_of(objects, arrays, unions)


SCHEMAS = st.recursive(LEAVES, _containers, max_leaves=8)
INPUT_OBJECTS = st.dictionaries(NAMES, SCHEMAS, max_size=4).flatmap(
    lambda props: st.tuples(
        st.just(props),
        st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]),
    )
)


def _kinds(old: dict[str, Any], new: dict[str, Any]) -> set[str]:
    return {change.kind.slug for change in compare_tools(old, new, old["name"])}


# --- 1. any schema diffed against itself yields no change ---------------------------------------


@pytest.mark.process
@SETTINGS
@given(INPUT_OBJECTS, SCHEMAS)
def test_schema_against_itself_has_no_changes(inputs: Any, output: dict[str, Any]) -> None:
    props, required = inputs
    old = tool(inputs=props, required=tuple(required), output=obj({"r": output}))
    assert compare_tools(old, copy.deepcopy(old), "t") == []


def _rewrite(schema: Any, defs: dict[str, Any], data: st.DataObject) -> Any:
    """An equivalent spelling of ``schema``: same instances, same annotations."""
    if not isinstance(schema, dict):
        return schema
    out = {key: value for key, value in schema.items()}
    for key in ("properties",):
        if isinstance(out.get(key), dict):
            out[key] = {k: _rewrite(v, defs, data) for k, v in out[key].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _rewrite(out[key], defs, data)
    for union in ("anyOf", "oneOf"):
        if isinstance(out.get(union), list):
            branches = [_rewrite(b, defs, data) for b in out[union]]
            out[union] = data.draw(st.permutations(branches))
    if isinstance(out.get("type"), str) and data.draw(st.booleans()):
        out["type"] = [out["type"]]
    if "const" in out and "enum" not in out and data.draw(st.booleans()):
        out["enum"] = [out.pop("const")]
    if isinstance(out.get("enum"), list):
        out["enum"] = data.draw(st.permutations(out["enum"]))
    if isinstance(out.get("required"), list):
        out["required"] = data.draw(st.permutations(out["required"]))
    choice = data.draw(st.sampled_from(["keep", "allOf", "ref"]))
    if choice == "allOf":
        return {"allOf": [out]}
    if choice == "ref":
        name = f"D{len(defs)}"
        defs[name] = out
        return {"$ref": f"#/$defs/{name}"}
    return out


@pytest.mark.process
@SETTINGS
@given(INPUT_OBJECTS, SCHEMAS, st.data())
def test_equivalent_spellings_have_no_changes(
    inputs: Any, output: dict[str, Any], data: st.DataObject
) -> None:
    props, required = inputs
    old = tool(inputs=props, required=tuple(required), output=obj({"r": output}, ("r",)))
    input_defs: dict[str, Any] = {}
    output_defs: dict[str, Any] = {}
    new_inputs = {k: _rewrite(v, input_defs, data) for k, v in props.items()}
    new_output = {"r": _rewrite(output, output_defs, data)}
    new_input_schema = obj(new_inputs, tuple(required))
    new_output_schema = obj(new_output, ("r",))
    if input_defs:
        new_input_schema["$defs"] = input_defs
    if output_defs:
        new_output_schema["$defs"] = output_defs
    new = tool(input_schema=new_input_schema, output=new_output_schema)
    assert compare_tools(old, new, "t") == []


# --- 2. adding an optional input is never breaking ----------------------------------------------


@pytest.mark.slow
@SETTINGS
@given(INPUT_OBJECTS, SCHEMAS, st.booleans(), st.text(alphabet="xyz_", min_size=1, max_size=5))
def test_adding_an_optional_input_is_never_breaking(
    inputs: Any, added: dict[str, Any], closed: bool, name: str
) -> None:
    props, required = inputs
    extra = {"additionalProperties": False} if closed else {}
    old = tool(input_schema=obj(props, tuple(required), **extra))
    new = tool(input_schema=obj({**props, name: added}, tuple(required), **extra))
    changes = compare_tools(old, new, "t")
    assert [c.kind.slug for c in changes] == ["input_optional_added"]
    assert all(c.severity is Severity.COMPATIBLE for c in changes)


# --- 3. removing an enum value from an input always is ------------------------------------------

ENUM_CONTEXTS = ["property", "nested", "items", "nullable", "ref", "dict", "required"]


def _place(enum_schema: dict[str, Any], context: str) -> dict[str, Any]:
    """An input schema holding ``enum_schema`` in ``context``."""
    if context == "property":
        return obj({"e": enum_schema})
    if context == "required":
        return obj({"e": enum_schema}, ("e",))
    if context == "nested":
        return obj({"outer": obj({"e": enum_schema}, ("e",))})
    if context == "items":
        return obj({"e": {"type": "array", "items": enum_schema}})
    if context == "nullable":
        return obj({"e": {"anyOf": [enum_schema, {"type": "null"}], "default": None}})
    if context == "dict":
        return obj({"e": {"type": "object", "additionalProperties": enum_schema}})
    return {**obj({"e": {"$ref": "#/$defs/E"}}), "$defs": {"E": enum_schema}}


@SETTINGS
@given(
    st.lists(NON_NULL_SCALARS, min_size=2, max_size=5, unique_by=value_key),
    st.sampled_from(ENUM_CONTEXTS),
    st.booleans(),
    st.data(),
)
def test_removing_an_input_enum_value_is_always_breaking(
    values: list[Any], context: str, as_const: bool, data: st.DataObject
) -> None:
    removed = data.draw(st.sampled_from(values))
    kept = [v for v in values if value_key(v) != value_key(removed)]
    after: dict[str, Any] = {"const": kept[0]} if as_const and len(kept) == 1 else {"enum": kept}
    old = tool(input_schema=_place({"enum": values}, context))
    new = tool(input_schema=_place(after, context))
    changes = compare_tools(old, new, "t")
    assert any(
        c.kind.slug == "input_enum_value_removed" and c.severity is Severity.BREAKING
        for c in changes
    )


# --- 4. soundness against jsonschema: "compatible" is never wrong ------------------------------


def _mutate(schema: Any, data: st.DataObject, depth: int = 0) -> Any:
    """One random edit somewhere in ``schema``."""
    if not isinstance(schema, dict):
        return schema
    out = copy.deepcopy(schema)
    children = [("properties", k) for k in out.get("properties", {})]
    children += [("items", None)] if isinstance(out.get("items"), dict) else []
    children += [("anyOf", i) for i in range(len(out.get("anyOf", [])))]
    children += [("oneOf", i) for i in range(len(out.get("oneOf", [])))]
    if children and depth < 4 and data.draw(st.booleans()):
        where, key = data.draw(st.sampled_from(children))
        if where == "items":
            out["items"] = _mutate(out["items"], data, depth + 1)
        else:
            out[where][key] = _mutate(out[where][key], data, depth + 1)
        return out
    op = data.draw(
        st.sampled_from(
            [
                "set_bound",
                "drop_keyword",
                "enum_add",
                "enum_drop",
                "retype",
                "nullable",
                "add_property",
                "toggle_required",
                "toggle_closed",
                "replace",
            ]
        )
    )
    if op == "set_bound":
        keyword = data.draw(
            st.sampled_from(
                [
                    *("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
                    *("minLength", "maxLength", "minItems", "maxItems", "multipleOf"),
                ]
            )
        )
        value = (
            data.draw(st.integers(1, 12))
            if keyword != "multipleOf"
            else data.draw(st.sampled_from([1, 2, 3, 4, 0.5]))
        )
        out[keyword] = value
    elif op == "drop_keyword" and out:
        out.pop(data.draw(st.sampled_from(sorted(out))))
    elif op == "enum_add" and isinstance(out.get("enum"), list):
        out["enum"] = [*out["enum"], data.draw(JSON_SCALARS)]
    elif op == "enum_drop" and isinstance(out.get("enum"), list) and len(out["enum"]) > 1:
        out["enum"] = out["enum"][1:]
    elif op == "retype":
        out["type"] = data.draw(
            st.sampled_from(["string", "integer", "number", "null", ["integer", "null"]])
        )
    elif op == "nullable":
        return {"anyOf": [out, {"type": "null"}]}
    elif op == "add_property" and out.get("type") == "object":
        name = data.draw(NAMES)
        out.setdefault("properties", {})[name] = data.draw(LEAVES)
        if data.draw(st.booleans()):
            out["required"] = sorted({*out.get("required", []), name})
    elif op == "toggle_required" and out.get("properties"):
        name = data.draw(st.sampled_from(sorted(out["properties"])))
        required = set(out.get("required", []))
        required ^= {name}
        out["required"] = sorted(required)
    elif op == "toggle_closed" and out.get("type") == "object":
        out["additionalProperties"] = not out.get("additionalProperties", True)
    elif op == "replace":
        return data.draw(LEAVES)
    return out


def _instances(schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values near the interesting edges of ``schema`` (plus arbitrary small JSON)."""
    options: list[st.SearchStrategy[Any]] = [JSON_SCALARS]
    if not isinstance(schema, dict) or depth > 3:
        return st.one_of(options)
    for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        if isinstance(schema.get(keyword), int | float):
            bound = schema[keyword]
            options.append(st.sampled_from([bound, bound - 1, bound + 1, bound + 0.5, bound * 2]))
    for keyword in ("minLength", "maxLength"):
        if isinstance(schema.get(keyword), int):
            n = schema[keyword]
            options.append(st.sampled_from(["a" * max(n - 1, 0), "a" * n, "a" * (n + 1)]))
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        options.append(st.sampled_from(schema["enum"]))
    if "const" in schema:
        options.append(st.just(schema["const"]))
    if isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        options.append(
            st.fixed_dictionaries(
                {},
                optional={
                    **{k: _instances(v, depth + 1) for k, v in props.items()},
                    "zz": JSON_SCALARS,
                },
            )
        )
    if isinstance(schema.get("items"), dict):
        options.append(st.lists(_instances(schema["items"], depth + 1), max_size=4))
    for branch in [*schema.get("anyOf", []), *schema.get("oneOf", [])]:
        options.append(_instances(branch, depth + 1))
    return st.one_of(options)


def _close(schema: Any) -> Any:
    """Objects open to any additional property get ``additionalProperties: false``, recursively.

    By policy an input added as optional is compatible: old clients never sent undeclared
    properties. Closed objects make that policy and strict validation agree.
    """
    if isinstance(schema, list):
        return [_close(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _close(value) for key, value in schema.items() if key not in ("enum", "const")}
    closed.update({key: schema[key] for key in ("enum", "const") if key in schema})
    if isinstance(schema.get("properties"), dict):
        closed["properties"] = {k: _close(v) for k, v in schema["properties"].items()}
        if closed.get("additionalProperties", True) is True:
            closed["additionalProperties"] = False
    return closed


def _valid(schema: dict[str, Any], instance: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


@pytest.mark.process
@settings(max_examples=EXAMPLES * 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCHEMAS, st.booleans(), st.data())
def test_compatible_verdicts_agree_with_jsonschema(
    before: dict[str, Any], as_input: bool, data: st.DataObject
) -> None:
    """When nothing is breaking or unknown, no instance may flip the wrong way.

    Inputs: every instance the old schema accepts, the new one accepts. Outputs: every instance
    the new schema accepts, the old one accepts.
    """
    if as_input:
        before = _close(before)
    after = _mutate(before, data)
    if as_input:
        old, new = (
            tool(inputs={"p": before}, required=("p",)),
            tool(inputs={"p": after}, required=("p",)),
        )
    else:
        old, new = tool(output=obj({"p": before}, ("p",))), tool(output=obj({"p": after}, ("p",)))
    changes = compare_tools(old, new, "t")
    assume(all(c.severity in (Severity.COMPATIBLE, Severity.NOTABLE) for c in changes))
    samples = data.draw(st.lists(st.one_of(_instances(before), _instances(after)), max_size=12))
    for value in samples:
        instance = {"p": value}
        if as_input:
            schema_old, schema_new = old["inputSchema"], new["inputSchema"]
            if _valid(schema_old, instance):
                assert _valid(schema_new, instance), (value, [c.message for c in changes])
        else:
            schema_old, schema_new = old["outputSchema"], new["outputSchema"]
            if _valid(schema_new, instance):
                assert _valid(schema_old, instance), (value, [c.message for c in changes])
