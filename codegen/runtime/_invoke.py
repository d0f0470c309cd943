"""Execute ``tools/call`` against generated schemas.

Imported on the first ``tools/call`` only: it pulls in jsonschema (argument and strict output
validation) and builds pydantic converters per tool, lazily, on that tool's first call.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import logging
import typing
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import anyio
import anyio.to_thread
import jsonschema
import jsonschema.validators
import pydantic
import pydantic_core
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.utilities.types import Audio, Image
from pydantic.fields import FieldInfo

from codegen.runtime._registry import ToolBinding, ToolRegistry

logger = logging.getLogger("codegen.runtime")

_CONTENT_BLOCKS = typing.get_args(types.ContentBlock)
_EMPTY = inspect.Parameter.empty
_UNSUPPORTED_FIELD_ATTRIBUTE: type[Warning] = getattr(
    pydantic.warnings, "UnsupportedFieldAttributeWarning", UserWarning
)

#: Factories for parameters that are not in the input schema (injected types), by class.
Dependencies = Mapping[type, Callable[[], Any]]


class _TimedOut(Exception):
    """The per-call timeout expired."""


class ToolCallError(Exception):
    """A failure reported to the client as an ``isError`` result, never as a protocol error."""


@dataclass(frozen=True)
class _Parameter:
    name: str  # the Python parameter name
    key: str  # the argument name on the wire (the alias, when one is set)
    kind: inspect._ParameterKind
    annotation: Any
    default: Any  # `_EMPTY` when required; a FieldInfo default is resolved per call
    in_schema: bool
    adapter: pydantic.TypeAdapter[Any] | None


@dataclass
class _PreparedTool:
    binding: ToolBinding
    function: Callable[..., Any]
    is_async: bool
    input_validator: jsonschema.protocols.Validator
    output_schema: dict[str, Any] | None
    parameters: tuple[_Parameter, ...]
    accepts_extra: bool
    return_annotation: Any
    _return_adapter: pydantic.TypeAdapter[Any] | None = None
    _output_validator: jsonschema.protocols.Validator | None = field(default=None, repr=False)

    def return_adapter(self) -> pydantic.TypeAdapter[Any] | None:
        if self._return_adapter is None and self.return_annotation not in (_EMPTY, Any):
            try:
                self._return_adapter = pydantic.TypeAdapter(self.return_annotation)
            except pydantic.PydanticUserError:
                self.return_annotation = _EMPTY  # not a pydantic type: plain JSON conversion
        return self._return_adapter

    def output_validator(self) -> jsonschema.protocols.Validator:
        if self._output_validator is None:
            assert self.output_schema is not None
            self._output_validator = _compile(self.output_schema, "outputSchema", self.binding.name)
        return self._output_validator


class ToolCaller:
    """Runs tools by name: validate, convert, call, normalize. One per server."""

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        strict_output: bool = False,
        call_timeout: float | None = None,
        dependencies: Dependencies | None = None,
    ) -> None:
        self._registry = registry
        self._strict_output = strict_output
        self._call_timeout = call_timeout
        self._dependencies = dict(dependencies or {})
        self._prepared: dict[str, _PreparedTool] = {}

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        request: ServerRequestContext[Any] | None = None,
        params: types.CallToolRequestParams | None = None,
    ) -> types.CallToolResult:
        """Call tool ``name``; every failure becomes an ``isError`` result. ``KeyError`` if unknown.

        ``request`` and ``params`` back the ``Context`` given to tools that take one.
        """
        binding = self._registry.binding(name)
        try:
            prepared = self._prepared.get(name) or self._prepare(binding)
            args, kwargs = self._convert(
                prepared,
                dict(arguments or {}),
                lambda: Context(request_context=request, input_params=params),
            )
        except ToolCallError as exc:
            return _error(str(exc))
        try:
            value = await self._run(prepared, args, kwargs)
        except _TimedOut:
            return _error(f"Tool {name!r} did not finish within {self._call_timeout:g} s")
        except Exception as exc:
            logger.warning("tool %r raised %s: %s", name, type(exc).__name__, exc)
            logger.info("traceback of tool %r", name, exc_info=True)
            return _error(f"Tool {name!r} raised {type(exc).__name__}: {exc}")
        try:
            return self._normalize(prepared, value)
        except ToolCallError as exc:
            return _error(str(exc))

    # --- preparation (once per tool) ---------------------------------------------------------

    def _prepare(self, binding: ToolBinding) -> _PreparedTool:
        function = _import_function(binding)
        tool = self._registry.get_tool(binding.name)
        input_schema = tool["inputSchema"]
        properties = input_schema.get("properties")
        schema_keys = set(properties) if isinstance(properties, dict) else set()
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError) as exc:
            raise ToolCallError(f"Tool {binding.name!r}: cannot read the signature: {exc}") from exc
        hints = _type_hints(function)
        parameters: list[_Parameter] = []
        accepts_extra = False
        for parameter in signature.parameters.values():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                accepts_extra = True
                continue
            if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
                continue
            annotation = hints.get(parameter.name, parameter.annotation)
            key = _alias(annotation, parameter.default) or parameter.name
            in_schema = key in schema_keys
            parameters.append(
                _Parameter(
                    name=parameter.name,
                    key=key,
                    kind=parameter.kind,
                    annotation=annotation,
                    default=parameter.default,
                    in_schema=in_schema,
                    adapter=_argument_adapter(
                        binding, parameter.name, annotation, parameter.default
                    )
                    if in_schema
                    else None,
                )
            )
        prepared = _PreparedTool(
            binding=binding,
            function=function,
            is_async=_is_async(function),
            input_validator=_compile(input_schema, "inputSchema", binding.name),
            output_schema=tool.get("outputSchema"),
            parameters=tuple(parameters),
            accepts_extra=accepts_extra,
            return_annotation=hints.get("return", signature.return_annotation),
        )
        self._prepared[binding.name] = prepared
        return prepared

    # --- one call ------------------------------------------------------------------------------

    def _convert(
        self,
        prepared: _PreparedTool,
        arguments: dict[str, Any],
        make_context: Callable[[], Context[Any, Any]],
    ) -> tuple[list[Any], dict[str, Any]]:
        name = prepared.binding.name
        problems = sorted(
            (_format_path(error.absolute_path), error.message)
            for error in prepared.input_validator.iter_errors(arguments)
        )
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
            elif parameter.default is not _EMPTY:
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
                value = self._inject(prepared, parameter, make_context)
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

    def _inject(
        self,
        prepared: _PreparedTool,
        parameter: _Parameter,
        make_context: Callable[[], Context[Any, Any]],
    ) -> Any:
        annotation = parameter.annotation
        candidates = [arg for arg in typing.get_args(annotation) if arg is not type(None)] or [
            annotation
        ]
        for candidate in candidates:
            factory = self._dependencies.get(candidate)
            if factory is not None:
                return factory()
        for candidate in candidates:
            # MCPServer's Context, over this request: progress, logging and elicitation work;
            # what needs an MCPServer instance (resources) raises a clear error.
            if isinstance(candidate, type) and issubclass(candidate, Context):
                return make_context()
        if type(None) in typing.get_args(annotation):
            return None
        for candidate in candidates:
            if isinstance(candidate, type):
                try:
                    return candidate()
                except Exception as exc:
                    raise ToolCallError(
                        f"Tool {prepared.binding.name!r}: cannot provide parameter "
                        f"{parameter.name!r} ({candidate.__qualname__}), which is not in the input "
                        f"schema: {type(exc).__name__}: {exc}"
                    ) from exc
        raise ToolCallError(
            f"Tool {prepared.binding.name!r}: parameter {parameter.name!r} is not in the input "
            "schema and has no default, so the runtime cannot fill it"
        )

    async def _run(self, prepared: _PreparedTool, args: list[Any], kwargs: dict[str, Any]) -> Any:
        async def run() -> Any:
            if prepared.is_async:
                result = prepared.function(*args, **kwargs)
            else:
                # A worker thread keeps a blocking tool from stalling the server, as MCPServer does.
                call = functools.partial(prepared.function, *args, **kwargs)
                result = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
            if inspect.isawaitable(result):
                result = await result
            return result

        if self._call_timeout is None:
            return await run()
        # move_on_after, not fail_after: a TimeoutError raised by the tool itself is the tool's.
        with anyio.move_on_after(self._call_timeout) as scope:
            return await run()
        assert scope.cancelled_caught
        raise _TimedOut

    def _normalize(self, prepared: _PreparedTool, value: Any) -> types.CallToolResult:
        name = prepared.binding.name
        box = prepared.binding.box_field
        if isinstance(value, types.CallToolResult):
            if not value.is_error:
                self._check_output(prepared, value.structured_content)
            return value
        blocks = _content_blocks(value)
        if blocks is not None:
            return types.CallToolResult(content=blocks)
        if value is None and box is None and prepared.output_schema is None:
            return types.CallToolResult(content=[])
        data = self._serialize(prepared, value)
        if box is not None:
            structured: Any = {box: data}
        elif isinstance(data, dict):
            structured = data
        elif prepared.output_schema is not None:
            raise ToolCallError(
                f"Tool {name!r} returned {type(value).__name__}, but its outputSchema describes a "
                "JSON object and the tool is not boxed; fix the tool or its return annotation"
            )
        else:
            text = value if isinstance(value, str) else _dumps(data)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        self._check_output(prepared, structured)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=_dumps(structured))],
            structured_content=structured,
        )

    def _serialize(self, prepared: _PreparedTool, value: Any) -> Any:
        try:
            adapter = prepared.return_adapter()
            if adapter is not None:
                return adapter.dump_python(value, mode="json", by_alias=True, warnings="none")
            return pydantic_core.to_jsonable_python(value, by_alias=True)
        except pydantic_core.PydanticSerializationError as exc:
            raise ToolCallError(
                f"Tool {prepared.binding.name!r} returned a value that cannot be serialized "
                f"to JSON: {exc}"
            ) from exc

    def _check_output(self, prepared: _PreparedTool, structured: Any) -> None:
        if not self._strict_output or prepared.output_schema is None:
            return
        problems = sorted(
            (_format_path(error.absolute_path, root="structuredContent"), error.message)
            for error in prepared.output_validator().iter_errors(structured)
        )
        if problems:
            raise ToolCallError(
                f"Tool {prepared.binding.name!r} returned structured content that does not match "
                "its outputSchema:\n" + "\n".join(f"- {path}: {msg}" for path, msg in problems)
            )


# --- helpers -------------------------------------------------------------------------------------


def _import_function(binding: ToolBinding) -> Callable[..., Any]:
    try:
        target: Any = importlib.import_module(binding.module)
        for attribute in binding.qualname.split("."):
            target = getattr(target, attribute)
    except Exception as exc:
        logger.error("cannot import tool %r from %s", binding.name, binding.function, exc_info=True)
        raise ToolCallError(
            f"Tool {binding.name!r}: cannot import {binding.function}: {type(exc).__name__}: {exc}"
        ) from exc
    if not callable(target):
        raise ToolCallError(f"Tool {binding.name!r}: {binding.function} is not callable")
    return target  # type: ignore[no-any-return]


def _type_hints(function: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception:  # unresolvable forward references: convert nothing rather than fail
        logger.warning("cannot resolve the annotations of %r; arguments pass as JSON", function)
        return {}


def _alias(annotation: Any, default: Any) -> str | None:
    metadata = [*getattr(annotation, "__metadata__", ()), default]
    for item in metadata:
        if isinstance(item, FieldInfo) and isinstance(item.alias, str):
            return item.alias
    return None


def _argument_adapter(
    binding: ToolBinding, name: str, annotation: Any, default: Any
) -> pydantic.TypeAdapter[Any] | None:
    if annotation is _EMPTY or annotation is Any:
        return None
    if isinstance(default, FieldInfo):
        annotation = Annotated[annotation, default]  # its constraints apply to the argument
    try:
        with warnings.catch_warnings():
            # An alias in Annotated metadata names the wire key (see _alias); pydantic warns
            # that it has no effect on a bare TypeAdapter, which is what we want here.
            warnings.simplefilter("ignore", _UNSUPPORTED_FIELD_ATTRIBUTE)
            return pydantic.TypeAdapter(annotation)
    except pydantic.PydanticUserError as exc:
        raise ToolCallError(
            f"Tool {binding.name!r}: cannot build a converter for parameter {name!r}: {exc}"
        ) from exc


def _compile(schema: dict[str, Any], which: str, tool: str) -> jsonschema.protocols.Validator:
    validator_class = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ToolCallError(
            f"Tool {tool!r}: the generated {which} is not a valid JSON Schema: {exc.message}"
        ) from exc
    return validator_class(schema)  # type: ignore[no-any-return]


def _is_async(function: Callable[..., Any]) -> bool:
    while isinstance(function, functools.partial):
        function = function.func
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004 - an async __call__ on an instance
    )


def _content_blocks(value: Any) -> list[types.ContentBlock] | None:
    def block(item: Any) -> types.ContentBlock | None:
        if isinstance(item, _CONTENT_BLOCKS):
            return item  # type: ignore[no-any-return]
        if isinstance(item, Image):
            return item.to_image_content()
        if isinstance(item, Audio):
            return item.to_audio_content()
        return None

    single = block(value)
    if single is not None:
        return [single]
    if isinstance(value, list | tuple) and value:
        blocks = [block(item) for item in value]
        if all(item is not None for item in blocks):
            return blocks  # type: ignore[return-value]
    return None


def _format_path(parts: Sequence[str | int], root: str = "arguments") -> str:
    path = root
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _pydantic_problems(key: str, exc: pydantic.ValidationError) -> list[str]:
    return [
        f"{_format_path([key, *error['loc']])}: {error['msg']}"
        for error in exc.errors(include_url=False)
    ]


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
