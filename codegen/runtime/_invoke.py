"""Execute ``tools/call`` against generated schemas.

Imported on the first ``tools/call`` only: it pulls in jsonschema (argument and strict output
validation) and builds pydantic converters per tool, lazily, on that tool's first call. Tools of
the framework flavors get their results and failures shaped by ``codegen.runtime._flavors``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import inspect
import json
import logging
import sys
import threading
import typing
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
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

if typing.TYPE_CHECKING:
    from mcp.shared.exceptions import MCPError

logger = logging.getLogger("codegen.runtime")

_CONTENT_BLOCKS = typing.get_args(types.ContentBlock)
_EMPTY = inspect.Parameter.empty
_UNSUPPORTED_FIELD_ATTRIBUTE: type[Warning] = getattr(
    pydantic.warnings, "UnsupportedFieldAttributeWarning", UserWarning
)

#: Factories for parameters that are not in the input schema (injected types), by class.
Dependencies = Mapping[type, Callable[[], Any]]

#: How much of a client's input an argument error quotes back, per problem (characters).
MAX_QUOTED_INPUT = 1_000
#: How much of a tool's exception message an error result carries (characters).
MAX_TOOL_MESSAGE = 20_000


class ToolCallError(Exception):
    """A failure reported to the client as an ``isError`` result, never as a protocol error."""


class ProtocolFailure(Exception):
    """An ``MCPError`` a tool raised that its flavor's framework answers as a JSON-RPC error."""

    def __init__(self, error: MCPError) -> None:
        super().__init__(str(error))
        self.error = error


class ResultRules(typing.Protocol):
    """How one tool's results and failures look to the client: its flavor's rules."""

    #: Whether a generator the tool returns is collected into a list (fastmcp does that).
    materializes_generators: bool

    def convert(self, value: Any) -> types.CallToolResult:
        """The result for the tool's return value; ``ToolCallError`` when there is none."""

    def failure(self, error: BaseException, describe: Callable[[BaseException], str]) -> str:
        """The ``isError`` text when the tool raised ``error``; ``ProtocolFailure`` to answer
        with a JSON-RPC error instead."""

    def scope(self, request: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        """Entered around argument conversion and the tool run."""


class _Outcome:
    """How one tool run ended: a value or the exception it raised, captured where it ran.

    Capturing keeps a tool's ``SystemExit``, ``KeyboardInterrupt`` or own ``CancelledError``
    from crossing into the event loop, where they would stop the server or pose as a cancel.
    """

    __slots__ = ("error", "finished", "value")

    def __init__(self) -> None:
        self.finished = False
        self.value: Any = None
        self.error: BaseException | None = None

    def done(self) -> bool:
        return self.finished

    def run_sync(self, call: Callable[[], Any]) -> None:
        try:
            self.value = call()
        except BaseException as exc:  # the tool's, whatever it is: reported, never re-raised
            self.error = exc
        finally:
            self.finished = True

    async def run_async(self, awaitable: Awaitable[Any]) -> None:
        try:
            self.value = await awaitable
        except BaseException as exc:
            if isinstance(exc, anyio.get_cancelled_exc_class()) and _cancel_requested():
                raise  # a real cancellation (timeout, client cancel, shutdown) propagates
            self.error = exc
        finally:
            self.finished = True


#: Tool runs that outlived their timeout and still run (threads cannot be killed; tasks that
#: ignore cancellation cannot be stopped). ``abandoned_calls`` counts them.
_abandoned: set[_Outcome | asyncio.Task[Any]] = set()
_abandoned_lock = threading.Lock()


def abandoned_calls() -> int:
    """How many timed-out tool runs are still running in this process."""
    with _abandoned_lock:
        _abandoned.difference_update([work for work in _abandoned if work.done()])
        return len(_abandoned)


async def _in_thread_bounded(
    outcome: _Outcome, call: Callable[[], Any], deadline: float | None
) -> None:
    """Run ``call`` in a worker thread until ``deadline``, recording it in ``outcome``."""
    try:
        with anyio.move_on_after(None if deadline is None else deadline - anyio.current_time()):
            await anyio.to_thread.run_sync(outcome.run_sync, call, abandon_on_cancel=True)
    finally:
        if not outcome.finished:  # timed out or cancelled: the thread runs on regardless
            _abandon(outcome)


def _abandon(work: _Outcome | asyncio.Task[Any]) -> None:
    with _abandoned_lock:
        _abandoned.add(work)


@dataclass(frozen=True)
class _Parameter:
    name: str  # the Python parameter name
    key: str  # the argument name on the wire (the alias, when one is set)
    kind: inspect._ParameterKind
    annotation: Any
    default: Any  # `_EMPTY` when required; a FieldInfo default is resolved per call
    in_schema: bool
    adapter: pydantic.TypeAdapter[Any] | None
    context: str | None = None  # "sdk" or "fastmcp": a framework Context the server supplies


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
    rules: ResultRules | None = None
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
        # "module:function registrar_parameter" -> the functions its registration function defines
        self._registered: dict[str, dict[str, Callable[..., Any]]] = {}
        self._fastmcp_server: Any = None

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        request: ServerRequestContext[Any] | None = None,
        params: types.CallToolRequestParams | None = None,
    ) -> types.CallToolResult:
        """Call tool ``name``; every failure becomes an ``isError`` result. ``KeyError`` if unknown.

        ``request`` and ``params`` back the ``Context`` given to tools that take one. Only a
        cancellation of the calling task propagates.
        """
        prepared = self._prepared.get(name)
        # Looked up outside the ``try``: an unknown name is a KeyError, not an isError result.
        binding = self._registry.binding(name) if prepared is None else prepared.binding
        try:
            if prepared is None:
                prepared = self._prepare(binding)
            rules = prepared.rules
            assert rules is not None
            async with self._scope(prepared, rules, request) as scoped:
                contexts = _Contexts(
                    lambda: Context(request_context=request, input_params=params), scoped
                )
                args, kwargs = self._convert(prepared, dict(arguments or {}), contexts)
                value = await self._run(prepared, args, kwargs)
            result = rules.convert(value)
            if not isinstance(rules, _CleanRules) and isinstance(result, types.CallToolResult):
                # The framework's own result; still, it must reach the client intact.
                if not result.is_error:
                    self._check_output(prepared, result.structured_content)
                _serializable_on_the_wire(name, result)
            return result
        except ToolCallError as exc:
            return _error(str(exc))
        except ProtocolFailure as failure:
            raise failure.error from None
        except Exception as exc:  # a dependency factory or a converter failing in its own way
            logger.error("calling tool %r failed", name, exc_info=True)
            return _error(f"Tool {name!r} could not be called: {_describe(exc, MAX_TOOL_MESSAGE)}")

    # --- preparation (once per tool) ---------------------------------------------------------

    def _prepare(self, binding: ToolBinding) -> _PreparedTool:
        function = (
            self._registered_function(binding) if binding.registrar else _import_function(binding)
        )
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
            context = (
                None
                if in_schema or self._has_factory(annotation)
                else _framework_context(annotation)
            )
            if not in_schema and context is None and _is_fastmcp_dependency(parameter.default):
                raise ToolCallError(
                    f"Tool {binding.name!r}: parameter {parameter.name!r} takes its value from a "
                    "fastmcp dependency (Depends(...) and the like), which this runtime does not "
                    "resolve; annotate it with a type the server supplies (fastmcp's or the SDK's "
                    "Context, or a class given to the server's dependencies)"
                )
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
                    context=context,
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
        prepared.rules = self._rules(prepared, function, signature.return_annotation)
        self._prepared[binding.name] = prepared
        return prepared

    def _rules(
        self, prepared: _PreparedTool, function: Callable[..., Any], written_return: Any
    ) -> ResultRules:
        binding = prepared.binding
        if binding.flavor == "clean":
            return _CleanRules(self, prepared)
        from codegen.runtime._flavors import FastmcpRules, McpRules

        # The return annotation as the framework reads it: as written, evaluated only when it
        # is a string (get_type_hints would turn `-> None` into NoneType, which fastmcp, unlike
        # the SDK, describes with an output schema).
        shown = {
            "name": binding.name,
            "function_name": getattr(function, "__name__", binding.name),
            "return_annotation": prepared.return_annotation
            if isinstance(written_return, str)
            else written_return,
            "output_schema": prepared.output_schema,
            "box_field": binding.box_field,
        }
        try:
            if binding.flavor == "mcp":
                return McpRules(**shown, serialize=lambda value: self._serialize(prepared, value))
            return FastmcpRules(
                **shown, result_meta=binding.result_meta, server=self._fastmcp_instance
            )
        except ToolCallError:
            raise
        except Exception as exc:  # the framework refusing a stand-in it accepted at build time
            raise ToolCallError(
                f"Tool {binding.name!r}: the {binding.flavor} framework cannot describe its "
                f"return annotation: {type(exc).__name__}: {_describe(exc, MAX_TOOL_MESSAGE)}"
            ) from exc

    def _fastmcp_instance(self) -> Any:
        """The ``fastmcp.FastMCP`` a ``fastmcp.Context`` refers to (one per caller)."""
        if self._fastmcp_server is None:
            import fastmcp

            self._fastmcp_server = fastmcp.FastMCP("mcp-codegen")
        return self._fastmcp_server

    def _scope(
        self, prepared: _PreparedTool, rules: ResultRules, request: Any
    ) -> contextlib.AbstractAsyncContextManager[Any]:
        # A fastmcp Context outside flavor "fastmcp" (whose rules set up the same scope).
        if prepared.binding.flavor != "fastmcp" and any(
            parameter.context == "fastmcp" for parameter in prepared.parameters
        ):
            from codegen.runtime._flavors import fastmcp_context

            return fastmcp_context(request, self._fastmcp_instance)
        return rules.scope(request)

    def _registered_function(self, binding: ToolBinding) -> Callable[..., Any]:
        """A tool defined inside a registration function: call the registration function once
        with a recording app (as the generator did) and take the function it registered."""
        registrar, parameter = binding.registrar, binding.registrar_parameter
        assert registrar is not None and parameter is not None
        key = f"{registrar} {parameter}"
        recorded = self._registered.get(key)
        if recorded is None:
            from codegen.flavors.registrar import capture

            module, _, qualname = registrar.partition(":")
            function = _import_attribute(binding, module, qualname, registrar)
            try:
                recorded = capture(function, parameter)
            except Exception as exc:  # RegistrarError, or the registration function raising
                logger.error("calling registration function %s failed", registrar, exc_info=True)
                raise ToolCallError(
                    f"Tool {binding.name!r}: cannot call its registration function {registrar} "
                    f"with a recording {parameter!r}: {type(exc).__name__}: "
                    f"{_describe(exc, MAX_TOOL_MESSAGE)}"
                ) from exc
            self._registered[key] = recorded
        function = recorded.get(binding.qualname)
        if function is None:
            raise ToolCallError(
                f"Tool {binding.name!r}: its registration function {registrar} did not register "
                f"{binding.qualname} (it registered {', '.join(sorted(recorded)) or 'nothing'}); "
                "the generated modules are out of step with the source, regenerate them"
            )
        if not callable(function):
            raise ToolCallError(f"Tool {binding.name!r}: {binding.function} is not callable")
        return function

    # --- one call ------------------------------------------------------------------------------

    def _convert(
        self,
        prepared: _PreparedTool,
        arguments: dict[str, Any],
        contexts: _Contexts,
    ) -> tuple[list[Any], dict[str, Any]]:
        name = prepared.binding.name
        try:
            problems = sorted(
                (_format_path(error.absolute_path), _clip(error.message, MAX_QUOTED_INPUT))
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
                        f"{_format_path([parameter.key])}: nested too deeply to convert"
                    )
                    continue
            elif parameter.context is not None:
                # Like the frameworks: a Context parameter gets the request's context even when
                # it has a default (`ctx: Context | None = None`).
                value = contexts.get(parameter.context)
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
                value = self._inject(prepared, parameter)
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

    def _has_factory(self, annotation: Any) -> bool:
        candidates = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return any(candidate in self._dependencies for candidate in candidates or [annotation])

    def _inject(self, prepared: _PreparedTool, parameter: _Parameter) -> Any:
        annotation = parameter.annotation
        candidates = [arg for arg in typing.get_args(annotation) if arg is not type(None)] or [
            annotation
        ]
        for candidate in candidates:
            factory = self._dependencies.get(candidate)
            if factory is not None:
                return factory()
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
        """The tool's return value; a ``ToolCallError`` when it raises or runs out of time."""
        name = prepared.binding.name
        timeout = self._call_timeout
        deadline = None if timeout is None else anyio.current_time() + timeout
        outcome = _Outcome()
        if prepared.is_async:
            await self._await_bounded(outcome, prepared.function(*args, **kwargs), deadline)
        else:
            # A worker thread keeps a blocking tool from stalling the server, as MCPServer does.
            await _in_thread_bounded(
                outcome, functools.partial(prepared.function, *args, **kwargs), deadline
            )
            if outcome.finished and outcome.error is None and inspect.isawaitable(outcome.value):
                awaitable, outcome = outcome.value, _Outcome()
                await self._await_bounded(outcome, awaitable, deadline)
        if (
            outcome.finished
            and outcome.error is None
            and prepared.rules is not None
            and prepared.rules.materializes_generators
            and (inspect.isgenerator(outcome.value) or inspect.isasyncgen(outcome.value))
        ):
            outcome = await self._collect(outcome.value, deadline)
        if not outcome.finished:
            raise ToolCallError(f"Tool {name!r} did not finish within {timeout:g} s")
        if outcome.error is not None:
            error = outcome.error
            message = _describe(error, MAX_TOOL_MESSAGE)
            raised = f"{type(error).__name__}: {message}" if message else type(error).__name__
            logger.warning("tool %r raised %s", name, _clip(raised, 500))
            logger.info("traceback of tool %r", name, exc_info=error)
            rules = prepared.rules
            assert rules is not None
            raise ToolCallError(rules.failure(error, _describe_exception))
        return outcome.value

    async def _collect(self, generator: Any, deadline: float | None) -> _Outcome:
        """A generator's items as a list, collected under the call's deadline."""
        outcome = _Outcome()
        if inspect.isasyncgen(generator):

            async def items() -> list[Any]:
                return [item async for item in generator]

            await self._await_bounded(outcome, items(), deadline)
            return outcome
        await _in_thread_bounded(outcome, functools.partial(list, generator), deadline)
        return outcome

    async def _await_bounded(
        self, outcome: _Outcome, awaitable: Awaitable[Any], deadline: float | None
    ) -> None:
        """Await a tool into ``outcome``, giving up at ``deadline`` even if it ignores cancels."""
        if deadline is None:
            await outcome.run_async(awaitable)
            return
        remaining = max(deadline - anyio.current_time(), 0)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): a tool that ignores cancellation can hang
            with anyio.move_on_after(remaining):
                await outcome.run_async(awaitable)
            return
        # A task of its own, so that a tool which swallows CancelledError (or cleans up for
        # minutes) cannot hold the call past its timeout: the task is cancelled and left behind.
        task = loop.create_task(outcome.run_async(awaitable))
        try:
            await asyncio.wait({task}, timeout=remaining)
        finally:
            if not task.done():
                task.cancel()
                _abandon(task)

    def _normalize(self, prepared: _PreparedTool, value: Any) -> types.CallToolResult:
        name = prepared.binding.name
        box = prepared.binding.box_field
        if isinstance(value, types.CallToolResult):
            if not value.is_error:
                self._check_output(prepared, value.structured_content)
            return _checked_for_the_wire(name, value)
        blocks = _content_blocks(value)
        if blocks is not None:
            return _checked_for_the_wire(name, types.CallToolResult(content=blocks))
        if value is None and box is None and prepared.output_schema is None:
            return types.CallToolResult(content=[])
        if isinstance(value, Iterator | AsyncIterator):
            # Serializing would drain it, on the event loop and with no bound: it may never end.
            raise _unserializable(
                name, f"it is an iterator ({type(value).__name__}); return a list instead"
            )
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
            if isinstance(value, str):
                _check_encodable(name, value)
                text = value
            else:
                text = _json_text(name, data)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        self._check_output(prepared, structured)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=_json_text(name, structured))],
            structured_content=structured,
        )

    def _serialize(self, prepared: _PreparedTool, value: Any) -> Any:
        try:
            adapter = prepared.return_adapter()
            if adapter is not None:
                return adapter.dump_python(value, mode="json", by_alias=True, warnings="none")
            return pydantic_core.to_jsonable_python(value, by_alias=True)
        except RecursionError:
            raise _unserializable(prepared.binding.name, "it is nested too deeply") from None
        except Exception as exc:  # unknown types, cycles, depth, undecodable bytes, a raising hook
            raise _unserializable(prepared.binding.name, _describe(exc, MAX_TOOL_MESSAGE)) from exc

    def _check_output(self, prepared: _PreparedTool, structured: Any) -> None:
        if not self._strict_output or prepared.output_schema is None:
            return
        try:
            problems = sorted(
                (
                    _format_path(error.absolute_path, root="structuredContent"),
                    _clip(error.message, MAX_QUOTED_INPUT),
                )
                for error in prepared.output_validator().iter_errors(structured)
            )
        except RecursionError:
            problems = [("structuredContent", "nested too deeply to validate")]
        if problems:
            raise ToolCallError(
                f"Tool {prepared.binding.name!r} returned structured content that does not match "
                "its outputSchema:\n" + "\n".join(f"- {path}: {msg}" for path, msg in problems)
            )


# --- helpers -------------------------------------------------------------------------------------


def _import_function(binding: ToolBinding) -> Callable[..., Any]:
    return _import_attribute(binding, binding.module, binding.qualname, binding.function)


def _import_attribute(
    binding: ToolBinding, module: str, qualname: str, path: str
) -> Callable[..., Any]:
    try:
        target: Any = importlib.import_module(module)
        for attribute in qualname.split("."):
            target = getattr(target, attribute)
    except Exception as exc:
        logger.error("cannot import tool %r from %s", binding.name, path, exc_info=True)
        raise ToolCallError(
            f"Tool {binding.name!r}: cannot import {path}: {type(exc).__name__}: {exc}"
        ) from exc
    if not callable(target):
        raise ToolCallError(f"Tool {binding.name!r}: {path} is not callable")
    return target  # type: ignore[no-any-return]


class _Contexts:
    """The framework contexts a call can hand to its tool, made on demand."""

    def __init__(self, sdk: Callable[[], Context[Any, Any]], fastmcp: Any) -> None:
        self._sdk = sdk
        self._fastmcp = fastmcp

    def get(self, kind: str) -> Any:
        if kind == "sdk":
            # MCPServer's Context, over this request: progress, logging and elicitation work;
            # what needs an MCPServer instance (resources) raises a clear error.
            return self._sdk()
        return self._fastmcp


def _framework_context(annotation: Any) -> str | None:
    """``"sdk"`` or ``"fastmcp"`` when ``annotation`` (or an ``Optional`` of it) is that
    framework's ``Context``, which the server supplies like the framework does."""
    # fastmcp is never imported for this: a tool annotated with its Context has imported it.
    fastmcp_module = sys.modules.get("fastmcp.server.context")
    fastmcp_context = getattr(fastmcp_module, "Context", None)
    candidates = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    for candidate in candidates or [annotation]:
        if not isinstance(candidate, type):
            continue
        if issubclass(candidate, Context):
            return "sdk"
        if isinstance(fastmcp_context, type) and issubclass(candidate, fastmcp_context):
            return "fastmcp"
    return None


def _is_fastmcp_dependency(default: Any) -> bool:
    """Whether ``default`` is a fastmcp dependency marker (``Depends(...)``, ``CurrentContext()``),
    which fastmcp resolves through its own injection system (the ``uncalled_for`` package)."""
    dependencies = sys.modules.get("uncalled_for")  # imported by fastmcp, never by us
    dependency = getattr(dependencies, "Dependency", None)
    return isinstance(dependency, type) and isinstance(default, dependency)


class _CleanRules:
    """Flavor ``"clean"``: mcp-codegen's own rules (README, "Serving the generated schemas")."""

    materializes_generators = False

    def __init__(self, caller: ToolCaller, prepared: _PreparedTool) -> None:
        self._caller = caller
        self._prepared = prepared

    def convert(self, value: Any) -> types.CallToolResult:
        return self._caller._normalize(self._prepared, value)

    def failure(self, error: BaseException, describe: Callable[[BaseException], str]) -> str:
        message = describe(error)
        raised = f"{type(error).__name__}: {message}" if message else type(error).__name__
        return f"Tool {self._prepared.binding.name!r} raised {raised}"

    def scope(self, request: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        return contextlib.nullcontext()


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


def _unserializable(tool: str, problem: str) -> ToolCallError:
    return ToolCallError(
        f"Tool {tool!r} returned a value that cannot be serialized to JSON: {problem}"
    )


def _json_text(tool: str, data: Any) -> str:
    """``data`` (JSON-compatible Python) as JSON text, or a ``ToolCallError`` saying why not."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:  # NaN or Infinity, a cycle, an integer of more than 4,300 digits
        problem = str(exc)
        if problem.startswith("Out of range float values"):
            problem = "it contains NaN or Infinity, which JSON numbers cannot express"
        raise _unserializable(tool, problem) from None
    except RecursionError:
        raise _unserializable(tool, "it is nested too deeply") from None
    except TypeError as exc:
        raise _unserializable(tool, str(exc)) from None
    _check_encodable(tool, text)
    return text


def _check_encodable(tool: str, text: str) -> None:
    """Reject text with a lone surrogate: the transport could not encode it as UTF-8."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _unserializable(
            tool,
            f"a string in it holds the lone surrogate {text[exc.start]!r}, which is not valid "
            "Unicode (a name decoded with errors='surrogateescape'?)",
        ) from None


def _checked_for_the_wire(tool: str, result: types.CallToolResult) -> types.CallToolResult:
    """A result the tool built itself, once it is known to serialize as the transport will."""
    if result.structured_content is not None:
        _json_text(tool, result.structured_content)  # NaN would silently become null on the wire
    return _serializable_on_the_wire(tool, result)


def _serializable_on_the_wire(tool: str, result: types.CallToolResult) -> types.CallToolResult:
    """``result``, once it is known to serialize as the transport will (NaN becomes null there,
    as in the frameworks); a ``ToolCallError`` instead of a response that cannot be written."""
    try:
        result.model_dump_json(by_alias=True, exclude_none=True)
    except RecursionError:
        raise _unserializable(tool, "it is nested too deeply") from None
    except ValueError as exc:  # PydanticSerializationError is a ValueError
        raise _unserializable(tool, _describe(exc, MAX_TOOL_MESSAGE)) from None
    return result


def _describe_exception(exc: BaseException) -> str:
    return _describe(exc, MAX_TOOL_MESSAGE)


def _describe(exc: BaseException, limit: int) -> str:
    """An exception's message, safe to print: clipped, even if ``__str__`` itself fails."""
    try:
        message = str(exc)
    except Exception:
        message = f"<{type(exc).__name__}.__str__ failed>"
    return _clip(message, limit)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def _error(text: str) -> types.CallToolResult:
    if not text.isascii():  # a tool's message may hold lone surrogates, which UTF-8 cannot encode
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _cancel_requested() -> bool:
    """Whether the current task is being cancelled (not merely handed a tool's CancelledError)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not asyncio: only a real cancellation raises the backend's exception
        return True
    return task is None or task.cancelling() > 0
