"""Property tests: the generated schemas accept what the example tools accept and return.

For every example tool, hypothesis draws Python values from each parameter's annotated type (only
values pydantic itself accepts for that type count), serialises them to JSON the way pydantic does,
and the generated ``inputSchema`` must accept the call. Likewise values of the return type, boxed
as the generated ``x-codegen`` box metadata says, must satisfy ``outputSchema``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import typing
from typing import Annotated, Any

import annotated_types
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import AnyUrl, BaseModel, EmailStr, HttpUrl, TypeAdapter
from pydantic.fields import FieldInfo

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.discover import discover_sources
from mcp_codegen._generator.scan.files import scan
from mcp_codegen._generator.schema.describe import has_no_output_schema, is_injected
from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import REPO

_, MODULES = read_tree(REPO / "generated")
TOOLS = [tool for module in MODULES for tool in module["TOOLS"]]
INJECTED = frozenset(
    {
        "examples.bookshop.deps.Settings",
        "examples.bookshop.deps.ConfigPaths",
        "mcp.server.mcpserver.context.Context",
    }
)
FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER
PROFILE = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _function(tool: dict[str, Any]) -> Any:
    module, qualname = tool["x-codegen"]["function"].split(":")
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return inspect.unwrap(target)


def _constrained_text(metadata: list[Any]) -> st.SearchStrategy[str] | None:
    pattern = next(
        (getattr(m, "pattern", None) for m in metadata if getattr(m, "pattern", None)), None
    )
    lengths = {"min_size": 0, "max_size": None}
    for item in metadata:
        if isinstance(item, annotated_types.MinLen):
            lengths["min_size"] = item.min_length
        elif isinstance(item, annotated_types.MaxLen):
            lengths["max_size"] = item.max_length
    if pattern:
        strategy = st.from_regex(pattern, fullmatch=True)
        low, high = lengths["min_size"], lengths["max_size"]
        return strategy.filter(lambda s: len(s) >= low and (high is None or len(s) <= high))
    if lengths != {"min_size": 0, "max_size": None}:
        return st.text(min_size=lengths["min_size"], max_size=lengths["max_size"] or 50)
    return None


def strategy_for(annotation: Any) -> st.SearchStrategy[Any]:
    """Values of ``annotation`` that pydantic accepts, covering constraints hypothesis can't read."""
    adapter = TypeAdapter(annotation)

    def accepted(value: Any) -> bool:
        try:
            adapter.validate_python(value)
        except pydantic.ValidationError:
            return False
        return True

    return _raw_strategy(annotation).filter(accepted)


def _raw_strategy(annotation: Any) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        base, *metadata = typing.get_args(annotation)
        flat: list[Any] = []
        for item in metadata:
            flat.extend(item.metadata if isinstance(item, FieldInfo) else [item])
        if base is str and (text := _constrained_text(flat)) is not None:
            return text
        if isinstance(base, type) and issubclass(base, int | float):
            bounds = {}
            for item in flat:
                for attr in ("ge", "gt", "le", "lt"):
                    if getattr(item, attr, None) is not None:
                        bounds[attr] = getattr(item, attr)
            low = bounds.get("ge", bounds.get("gt", -(10**6)))
            high = bounds.get("le", bounds.get("lt", 10**6))
            if base is int:
                return st.integers(min_value=int(low), max_value=int(high))
            return st.floats(min_value=float(low), max_value=float(high), allow_nan=False)
        if typing.get_origin(base) is list:
            (item_type,) = typing.get_args(base)
            sizes = {"min_size": 0, "max_size": 5}
            for item in flat:
                if isinstance(item, annotated_types.MinLen):
                    sizes["min_size"] = item.min_length
                elif isinstance(item, annotated_types.MaxLen):
                    sizes["max_size"] = min(item.max_length, 5)
            return st.lists(strategy_for(item_type), **sizes)
        return _raw_strategy(base)
    if annotation is EmailStr:
        return st.emails()
    if annotation in (HttpUrl, AnyUrl):
        return st.sampled_from(["https://example.com/a", "http://shop.example/books?id=1"]).map(
            annotation
        )
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in _MODELS:  # deferred, so recursive models terminate
            _MODELS[annotation] = st.deferred(lambda: _model_strategy(annotation))
        return _MODELS[annotation]
    return _container_strategy(annotation, origin)


_MODELS: dict[type, st.SearchStrategy[Any]] = {}


def _model_strategy(annotation: type[BaseModel]) -> st.SearchStrategy[Any]:
    fields = annotation.model_fields.items()
    required = {name: _field_strategy(info) for name, info in fields if info.is_required()}
    optional = {name: _field_strategy(info) for name, info in fields if not info.is_required()}
    return st.fixed_dictionaries(required, optional=optional).map(annotation.model_validate)


def _container_strategy(annotation: Any, origin: Any) -> st.SearchStrategy[Any]:
    if origin in (typing.Union, type(int | None)):
        return st.one_of([_raw_strategy(arg) for arg in typing.get_args(annotation)])
    if origin in (list, set, frozenset):
        (item_type,) = typing.get_args(annotation)
        collection = {list: st.lists, set: st.sets, frozenset: st.frozensets}[origin]
        return collection(_raw_strategy(item_type), max_size=4)
    if origin is dict:
        key_type, value_type = typing.get_args(annotation)
        return st.dictionaries(_raw_strategy(key_type), _raw_strategy(value_type), max_size=4)
    return st.from_type(annotation)


def _field_strategy(info: FieldInfo) -> st.SearchStrategy[Any]:
    annotation = info.annotation
    if info.metadata:
        annotation = Annotated[(annotation, *info.metadata)]  # type: ignore[valid-type]
    return strategy_for(annotation)


def _parameters(tool: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    function = _function(tool)
    hints = typing.get_type_hints(function, include_extras=True)
    found = {}
    for parameter in inspect.signature(function).parameters.values():
        annotation = hints.get(parameter.name, Any)
        if is_injected(annotation, INJECTED):
            continue
        default = parameter.default
        if isinstance(default, FieldInfo):
            annotation = Annotated[annotation, default]
            default = default.get_default(call_default_factory=True)
            if default is pydantic_core_undefined():
                default = inspect.Parameter.empty
        found[parameter.name] = (annotation, default)
    return found


def pydantic_core_undefined() -> Any:
    import pydantic_core

    return pydantic_core.PydanticUndefined


def _overridden(option: str) -> set[str]:
    """Tools whose schema the decorator states explicitly (nothing to infer, nothing to test)."""
    return {name for name, options in _scanned_options().items() if option in options}


@functools.cache
def _scanned_options() -> dict[str, frozenset[str]]:
    """Each example tool's decorator options, scanned once (at collection: test ids need it)."""
    config = load_config(REPO / "pyproject.toml")
    files, _ = discover_sources(config)
    return {t.name: frozenset(t.options) for m in scan(files, config) for t in m.tools}


INPUT_OVERRIDES = _overridden("input_schema")
INFERRED_INPUTS = [t for t in TOOLS if t["name"] not in INPUT_OVERRIDES]


#: Tools whose types take hypothesis tens of seconds on the shared box: run only in the full tier.
SLOW_TOOLS = {"add_book", "get_book", "place_order", "list_categories"}


def _params(tools: list[dict[str, Any]]) -> list[Any]:
    return [
        pytest.param(t, id=t["name"], marks=[pytest.mark.slow] if t["name"] in SLOW_TOOLS else [])
        for t in tools
    ]


@pytest.mark.parametrize("tool", _params(INFERRED_INPUTS))
def test_values_of_the_parameter_types_satisfy_the_input_schema(tool: dict[str, Any]) -> None:
    parameters = _parameters(tool)
    assert set(parameters) == set(tool["inputSchema"]["properties"])
    required = {
        n: strategy_for(a) for n, (a, d) in parameters.items() if d is inspect.Parameter.empty
    }
    optional = {
        n: strategy_for(a) for n, (a, d) in parameters.items() if d is not inspect.Parameter.empty
    }
    validator = Draft202012Validator(tool["inputSchema"], format_checker=FORMAT_CHECKER)
    adapters = {n: TypeAdapter(a) for n, (a, _) in parameters.items()}

    @PROFILE
    @given(st.fixed_dictionaries(required, optional=optional))
    def check(arguments: dict[str, Any]) -> None:
        payload = {n: adapters[n].dump_python(v, mode="json") for n, v in arguments.items()}
        errors = [e.message for e in validator.iter_errors(payload)]
        assert not errors, (payload, errors)

    check()


def test_defaults_in_the_schema_are_the_functions_defaults() -> None:
    checked = 0
    for tool in INFERRED_INPUTS:
        for name, (annotation, default) in _parameters(tool).items():
            prop = tool["inputSchema"]["properties"][name]
            if default is inspect.Parameter.empty:
                assert "default" not in prop
                assert name in tool["inputSchema"]["required"]
            else:
                assert prop["default"] == TypeAdapter(annotation).dump_python(default, mode="json")
                assert name not in tool["inputSchema"].get("required", [])
                checked += 1
    assert checked >= 10


OUTPUT_OVERRIDES = _overridden("output_schema")
OUTPUT_TOOLS = [t for t in TOOLS if "outputSchema" in t and t["name"] not in OUTPUT_OVERRIDES]


@pytest.mark.parametrize("tool", _params(OUTPUT_TOOLS))
def test_values_of_the_return_type_satisfy_the_output_schema(tool: dict[str, Any]) -> None:
    function = _function(tool)
    returns = typing.get_type_hints(function, include_extras=True)["return"]
    assert not has_no_output_schema(returns)
    adapter = TypeAdapter(returns)
    box = tool["x-codegen"]["box"]
    validator = Draft202012Validator(tool["outputSchema"], format_checker=FORMAT_CHECKER)

    @PROFILE
    @given(strategy_for(returns))
    def check(value: Any) -> None:
        structured = adapter.dump_python(value, mode="json")
        if box is not None:
            structured = {box["field"]: structured}
        errors = [e.message for e in validator.iter_errors(structured)]
        assert not errors, (structured, errors)

    check()


def test_tools_without_output_schema_are_exactly_the_content_and_none_returns() -> None:
    for tool in TOOLS:
        if tool["name"] in OUTPUT_OVERRIDES:
            continue
        returns = typing.get_type_hints(_function(tool), include_extras=True).get(
            "return", inspect.Signature.empty
        )
        assert ("outputSchema" not in tool) == has_no_output_schema(returns), tool["name"]
