"""Matching a tool's final object schemas to the project classes they came from."""

from __future__ import annotations

from mcp_codegen._generator.assemble.field_lines import field_lines
from mcp_codegen._generator.model import ModelSource, ToolModels


def _model(name: str, line: int, *fields: str, optional: int = 0) -> ModelSource:
    return ModelSource(
        names=(name,),
        path="pkg/models.py",
        line=line,
        properties={field: index for index, field in enumerate(fields)},
        size=len(fields),
        optional=optional,
        fields={field: ("pkg/models.py", line + 1 + index) for index, field in enumerate(fields)},
    )


def _entries(found: dict[str, object]) -> list[tuple[str, tuple[str, int]]]:
    """The recorded entries as ``(pointer, (path, line))``, in order (checked sorted)."""
    entries = [(pointer, (path, line)) for pointer, path, line in found.get("fields", ())]
    assert [pointer for pointer, _ in entries] == sorted(pointer for pointer, _ in entries)
    return entries


def _object(*names: str) -> dict[str, object]:
    return {"type": "object", "properties": {name: {"type": "string"} for name in names}}


def test_inlined_copies_and_defs_are_matched_by_their_fields() -> None:
    point = _model("Point", 10, "x", "y")
    wire = {
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"type": "string"}, "at": _object("x", "y")},
            "$defs": {"Point": _object("x", "y")},
        },
        "outputSchema": {"type": "object", "properties": {"items": {"items": _object("x", "y")}}},
    }
    assert dict(_entries(field_lines(ToolModels((point,)), wire, boxed=False))) == {
        **{
            "/inputSchema/$defs/Point": ("pkg/models.py", 10),
            "/inputSchema/$defs/Point/properties/x": ("pkg/models.py", 11),
            "/inputSchema/$defs/Point/properties/y": ("pkg/models.py", 12),
            "/inputSchema/properties/at": ("pkg/models.py", 10),
            "/inputSchema/properties/at/properties/x": ("pkg/models.py", 11),
            "/inputSchema/properties/at/properties/y": ("pkg/models.py", 12),
            "/outputSchema/properties/items/items": ("pkg/models.py", 10),
            "/outputSchema/properties/items/items/properties/x": ("pkg/models.py", 11),
            "/outputSchema/properties/items/items/properties/y": ("pkg/models.py", 12),
        }
    }


def test_a_partial_or_foreign_object_is_not_matched() -> None:
    point = _model("Point", 10, "x", "y")
    # the input root's properties are parameters (x-codegen.parameters), never a model's fields
    assert field_lines(ToolModels((point,)), {"inputSchema": _object("x", "y")}, boxed=False) == {}
    wire = {
        "inputSchema": {
            "type": "object",
            "properties": {"a": _object("x"), "b": _object("x", "y", "z")},
        }
    }
    assert field_lines(ToolModels((point,)), wire, boxed=False) == {}


def test_the_smallest_fitting_class_wins_and_a_tie_is_left_out() -> None:
    base = _model("Base", 1, "x")
    child = _model("Child", 20, "x", "y", optional=1)  # y may be left out
    twin = _model("Twin", 40, "x", "y", optional=1)
    wire = {"inputSchema": {"properties": {"p": _object("x"), "q": _object("x", "y")}}}
    fields = dict(_entries(field_lines(ToolModels((base, child)), wire, boxed=False)))
    assert fields["/inputSchema/properties/p"] == ("pkg/models.py", 1)
    assert fields["/inputSchema/properties/q"] == ("pkg/models.py", 20)
    fields = dict(_entries(field_lines(ToolModels((base, child, twin)), wire, boxed=False)))
    assert "/inputSchema/properties/q" not in fields  # Child or Twin: unknown
    # ... unless a $defs key names one of them
    wire = {"inputSchema": {"$defs": {"Twin-Input": _object("x", "y")}}}
    fields = dict(_entries(field_lines(ToolModels((base, child, twin)), wire, boxed=False)))
    assert fields["/inputSchema/$defs/Twin-Input"] == ("pkg/models.py", 40)


def test_the_output_root_is_the_returned_model_unless_boxed() -> None:
    receipt = _model("Receipt", 5, "total")
    wire = {"inputSchema": {"type": "object"}, "outputSchema": _object("total")}
    models = ToolModels((receipt,), output=receipt)
    assert dict(_entries(field_lines(models, wire, boxed=False))) == {
        "/outputSchema": ("pkg/models.py", 5),
        "/outputSchema/properties/total": ("pkg/models.py", 6),
    }
    boxed = {"inputSchema": {"type": "object"}, "outputSchema": _object("result")}
    assert field_lines(models, boxed, boxed=True) == {}


def test_pointer_tokens_are_escaped() -> None:
    odd = _model("Odd", 3, "a/b", "c~d")
    wire = {"inputSchema": {"properties": {"p": _object("a/b", "c~d")}}}
    fields = dict(_entries(field_lines(ToolModels((odd,)), wire, boxed=False)))
    assert set(fields) == {
        "/inputSchema/properties/p",
        "/inputSchema/properties/p/properties/a~1b",
        "/inputSchema/properties/p/properties/c~0d",
    }


def test_a_schema_written_in_the_decorator_is_not_attributed_to_classes() -> None:
    point = _model("Point", 10, "x", "y")
    wire = {
        "inputSchema": {"properties": {"p": _object("x", "y")}},
        "outputSchema": _object("x", "y"),
    }
    models = ToolModels((point,), output=point)
    assert set(dict(_entries(field_lines(models, wire, False, {"input_schema": {}})))) == {
        "/outputSchema",
        "/outputSchema/properties/x",
        "/outputSchema/properties/y",
    }
    assert set(dict(_entries(field_lines(models, wire, False, {"output_schema": {}})))) == {
        "/inputSchema/properties/p",
        "/inputSchema/properties/p/properties/x",
        "/inputSchema/properties/p/properties/y",
    }


def _enum(name: str, line: int, *values: object) -> ModelSource:
    return ModelSource((name,), "pkg/models.py", line, {}, 0, 0, values=values)


def test_an_enum_points_at_the_one_definition_with_its_values() -> None:
    color, shade = _enum("Color", 5, "red", "green"), _enum("Shade", 9, "green", "red")
    size, twin = _enum("Size", 12, "s", "m"), _enum("Twin", 14, "s", "m")
    wire = {
        "inputSchema": {
            "type": "object",
            "properties": {
                "color": {"enum": ["red", "green"]},  # Shade has the values in another order
                "size": {"enum": ["s", "m"]},  # Size and Twin alike: neither is recorded
                "other": {"enum": ["red"]},
            },
            "$defs": {"Twin": {"enum": ["s", "m"]}},  # its $defs key decides
        },
    }
    found = field_lines(ToolModels((color, shade, size, twin)), wire, boxed=False)
    assert dict(_entries(found)) == {
        "/inputSchema/$defs/Twin/enum": ("pkg/models.py", 14),
        "/inputSchema/properties/color/enum": ("pkg/models.py", 5),
    }
