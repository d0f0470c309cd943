"""``x-codegen.fields``: the source line of each model and model field in a tool's final schemas.

The worker records where each project class a tool's schemas reach is written, with the
property names its schema may have (``mcp_codegen._generator.model.ToolModels``). Here every object
schema with ``properties`` inside the final input and output schemas (a ``$defs`` entry, or a
copy the transforms inlined at each use) is matched to the one class whose fields its properties
are, so ``diff`` can point a change inside a model at its field:
``(("/inputSchema/properties/address/properties/city", "shop/models.py", 12), ...)``, sorted by
pointer. A tuple of tuples of constants is one constant in the compiled module: loading a tool
costs nothing more however many fields it records (a dict would be built entry by entry).
The pointer of the object itself names the ``class`` line, where a removed field was. An
``enum`` whose values are those of one ``Enum`` class or ``Literal`` alias of the project gets
``<pointer>/enum`` -> that class's (alias's) line: a change of its values points there, for every
tool that uses it.
An object that matches no class, or two classes equally well, is left out; so are the input
root (its properties are parameters, ``x-codegen.parameters``), a boxed output's wrapper, and a
schema written in the decorator (``input_schema=``/``output_schema=``).
"""

from __future__ import annotations

from collections.abc import Collection

from mcp_codegen._generator.model import JSON, ModelSource, ToolModels
from mcp_codegen._shared.json_pointer import child
from mcp_codegen._shared.schema_transforms import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUED


def _match(
    properties: dict[str, JSON], models: tuple[ModelSource, ...], key: str | None
) -> ModelSource | None:
    """The class whose fields ``properties`` are: every property one of its fields, and all of
    its fields present (but those a schema may leave out); fewest fields first, then the one
    whose ``$defs`` name is ``key``."""
    fitting = []
    for model in models:
        if model.values is not None or not all(name in model.properties for name in properties):
            continue
        covered = len({model.properties[name] for name in properties})
        if covered >= model.size - model.optional:
            fitting.append(model)
    if not fitting:
        return None
    smallest = min(model.size for model in fitting)
    fitting = [model for model in fitting if model.size == smallest]
    if len(fitting) > 1 and key is not None:
        fitting = [
            model
            for model in fitting
            if key.removesuffix("-Input").removesuffix("-Output") in model.names
        ]
    return fitting[0] if len(fitting) == 1 else None


def _enumerated(
    values: list[JSON], models: tuple[ModelSource, ...], key: str | None
) -> ModelSource | None:
    """The one ``Enum`` class or ``Literal`` alias whose values ``values`` are, in order (its
    ``$defs`` name ``key`` decides between equals); ``None`` when none or several are."""
    fitting = [m for m in models if m.values is not None and list(m.values) == values]
    if len(fitting) > 1 and key is not None:
        fitting = [m for m in fitting if key in m.names]
    places = {(m.path, m.line) for m in fitting}
    return fitting[0] if len(places) == 1 else None


def _record(
    found: dict[str, tuple[str, int]],
    pointer: str,
    properties: dict[str, JSON],
    model: ModelSource,
) -> None:
    found[pointer] = (model.path, model.line)
    for name in properties:
        where = model.fields.get(name)
        if where is not None:
            found[child(child(pointer, "properties"), name)] = where


def _walk(
    schema: JSON,
    pointer: str,
    models: tuple[ModelSource, ...],
    found: dict[str, tuple[str, int]],
    key: str | None = None,
    match: bool = True,
) -> None:
    if not isinstance(schema, dict):
        return
    values = schema.get("enum")
    if isinstance(values, list):
        source = _enumerated(values, models, key)
        if source is not None:  # an enum change points at the Enum class / Literal alias
            found[child(pointer, "enum")] = (source.path, source.line)
    properties = schema.get("properties")
    if match and isinstance(properties, dict) and properties:
        model = _match(properties, models, key)
        if model is not None:
            _record(found, pointer, properties, model)
    for keyword, value in schema.items():
        if keyword in SCHEMA_VALUED:
            _walk(value, child(pointer, keyword), models, found)
        elif keyword in SCHEMA_LISTS and isinstance(value, list):
            here = child(pointer, keyword)
            for index, item in enumerate(value):
                _walk(item, child(here, index), models, found)
        elif keyword in SCHEMA_MAPS and isinstance(value, dict):
            here = child(pointer, keyword)
            defs = keyword in ("$defs", "definitions")
            for name, item in value.items():
                _walk(item, child(here, name), models, found, name if defs else None)


def field_lines(
    models: ToolModels, wire: dict[str, JSON], boxed: bool, overridden: Collection[str] = ()
) -> dict[str, JSON]:
    """``{"fields": ((pointer, path, line), ...)}`` for ``wire`` (nothing when no model is recorded);
    ``boxed``: the output schema wraps the return value in a field; ``overridden``: the tool's
    options among ``input_schema``/``output_schema`` (a schema written in the decorator is the
    decorator's, whatever classes it resembles)."""
    if not models.models:
        return {}
    found: dict[str, tuple[str, int]] = {}
    if "input_schema" not in overridden:
        _walk(wire.get("inputSchema"), "/inputSchema", models.models, found, match=False)
    output = wire.get("outputSchema") if "output_schema" not in overridden else None
    root = models.output is not None and not boxed and isinstance(output, dict)
    _walk(output, "/outputSchema", models.models, found, match=False)
    if root and isinstance(output.get("properties"), dict):  # type: ignore[union-attr]
        _record(found, "/outputSchema", output["properties"], models.output)  # type: ignore[arg-type,index]
    return {"fields": tuple((p, *found[p]) for p in sorted(found))} if found else {}
