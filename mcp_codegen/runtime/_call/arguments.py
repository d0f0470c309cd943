"""A call's arguments: validated against the tool's ``inputSchema``, converted to its annotations."""

from __future__ import annotations

import functools
import inspect
import json
import logging
import typing
import warnings
from collections.abc import Callable
from typing import Annotated, Any

import pydantic
from pydantic.fields import FieldInfo

from mcp_codegen.runtime._call.failures import MAX_QUOTED_INPUT, ToolCallError, clip, format_path
from mcp_codegen.runtime._call.plan import EMPTY, Parameter, PreparedTool
from mcp_codegen.runtime._load.registry import ToolBinding

logger = logging.getLogger("mcp_codegen.runtime")

_UNSUPPORTED_FIELD_ATTRIBUTE: type[Warning] = getattr(
    pydantic.warnings, "UnsupportedFieldAttributeWarning", UserWarning
)


def convert_arguments(
    prepared: PreparedTool,
    arguments: dict[str, Any],
    supply: Callable[[Parameter], Any],
) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments for the tool, or a ``ToolCallError`` listing every problem.

    ``supply`` gives the value of a parameter that is not in the input schema (a framework
    context or an injected dependency).
    """
    name = prepared.binding.name
    try:
        problems = sorted(
            (format_path(error.absolute_path), clip(error.message, MAX_QUOTED_INPUT))
            for error in prepared.input_validator.iter_errors(arguments)
        )
    except RecursionError:
        raise ToolCallError(
            f"Invalid arguments for tool {name!r}: nested too deeply to validate"
        ) from None
    if problems:
        raise ToolCallError(
            f"Invalid arguments for tool {name!r}:\n"
            + "\n".join(f"- {path}: {message}" for path, message in problems)
        )
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    conversion_problems: list[str] = []
    for parameter in prepared.parameters:
        if parameter.in_schema and parameter.key in arguments:
            raw = arguments[parameter.key]
            try:
                value = (
                    raw
                    if parameter.adapter is None
                    else parameter.adapter.validate_json(json.dumps(raw))
                )
            except pydantic.ValidationError as exc:
                conversion_problems.extend(_pydantic_problems(parameter.key, exc))
                continue
            except RecursionError:
                conversion_problems.append(
                    f"{format_path([parameter.key])}: nested too deeply to convert"
                )
                continue
        elif parameter.context is not None:
            # Like the frameworks: a Context parameter gets the request's context even when
            # it has a default (`ctx: Context | None = None`).
            value = supply(parameter)
        elif parameter.default is not EMPTY:
            if not isinstance(parameter.default, FieldInfo):
                if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
                    args.append(parameter.default)  # keeps later positionals in place
                continue  # the function's own default applies
            if parameter.default.is_required():
                conversion_problems.append(f"arguments: {parameter.key!r} is required")
                continue
            value = parameter.default.get_default(call_default_factory=True)
        elif parameter.in_schema:
            conversion_problems.append(f"arguments: {parameter.key!r} is required")
            continue
        else:
            value = supply(parameter)
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[parameter.name] = value
    if conversion_problems:
        raise ToolCallError(
            f"Invalid arguments for tool {name!r}:\n"
            + "\n".join(f"- {problem}" for problem in conversion_problems)
        )
    if prepared.accepts_extra:
        # Extra keys go to **kwargs, but never in place of a named or injected parameter.
        named = {parameter.name for parameter in prepared.parameters}
        named.update(parameter.key for parameter in prepared.parameters)
        kwargs.update({key: value for key, value in arguments.items() if key not in named})
    return args, kwargs


def type_hints(function: Callable[..., Any]) -> dict[str, Any]:
    """``function``'s resolved annotations; empty when they cannot be resolved."""
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception:  # unresolvable forward references: convert nothing rather than fail
        logger.warning("cannot resolve the annotations of %r; arguments pass as JSON", function)
        return {}


def alias(annotation: Any, default: Any) -> str | None:
    """The wire name a ``Field(alias=...)`` gives the parameter, if any."""
    metadata = [*getattr(annotation, "__metadata__", ()), default]
    for item in metadata:
        if isinstance(item, FieldInfo) and isinstance(item.alias, str):
            return item.alias
    return None


def argument_adapter(
    binding: ToolBinding, name: str, annotation: Any, default: Any
) -> pydantic.TypeAdapter[Any] | None:
    """The converter for one parameter; ``None`` when it is unannotated (JSON passes as is)."""
    if annotation is EMPTY or annotation is Any:
        return None
    if isinstance(default, FieldInfo):
        annotation = Annotated[annotation, default]  # its constraints apply to the argument
    try:
        with warnings.catch_warnings():
            # An alias in Annotated metadata names the wire key (see alias()); pydantic warns
            # that it has no effect on a bare TypeAdapter, which is what we want here.
            warnings.simplefilter("ignore", _UNSUPPORTED_FIELD_ATTRIBUTE)
            return pydantic.TypeAdapter(annotation)
    except pydantic.PydanticUserError as exc:
        raise ToolCallError(
            f"Tool {binding.name!r}: cannot build a converter for parameter {name!r}: {exc}"
        ) from exc


def is_async(function: Callable[..., Any]) -> bool:
    """Whether calling ``function`` gives a coroutine (partials and async ``__call__`` too)."""
    while isinstance(function, functools.partial):
        function = function.func
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004 - an async __call__ on an instance
    )


def _pydantic_problems(key: str, exc: pydantic.ValidationError) -> list[str]:
    return [
        f"{format_path([key, *error['loc']])}: {error['msg']}"
        for error in exc.errors(include_url=False)
    ]
