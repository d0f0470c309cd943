"""Preparing a tool for its first call: find its function, read its signature, build converters."""

from __future__ import annotations

import concurrent.futures
import importlib
import inspect
import logging
from collections.abc import Callable
from typing import Any

from mcp_codegen._shared.protocols import LAST_BOXED
from mcp_codegen.runtime._call.arguments import alias, argument_adapter, is_async, type_hints
from mcp_codegen.runtime._call.failures import MAX_TOOL_MESSAGE, ToolCallError, describe
from mcp_codegen.runtime._call.injection import Injector, framework_context, is_fastmcp_dependency
from mcp_codegen.runtime._call.plan import Parameter, PreparedTool, compile_schema
from mcp_codegen.runtime._load.registry import ToolBinding, ToolRegistry

logger = logging.getLogger("mcp_codegen.runtime")


class Preparer:
    """Builds ``PreparedTool``s (without rules: the caller picks them by flavor)."""

    def __init__(self, registry: ToolRegistry, injector: Injector) -> None:
        self._registry = registry
        self._injector = injector
        # "module:function registrar_parameter" -> the functions its registration function defines
        self._registered: dict[str, dict[str, Callable[..., Any]]] = {}
        # factory call -> (its server, "module:qualname" -> the functions that server registers)
        self._made: dict[str, tuple[Any, dict[str, Callable[..., Any]]]] = {}

    def prepare(self, binding: ToolBinding) -> tuple[PreparedTool, Any]:
        """The prepared tool and its return annotation as written (for the framework rules)."""
        if binding.factory:
            function = self._factory_function(binding)
        elif binding.registrar:
            function = self._registered_function(binding)
        else:
            function = _import_function(binding, self._registry.origin)
        # The boxed variant; the caller derives the natural one (``PreparedTool.natural_rules``).
        tool = self._registry.get_tool(binding.name, LAST_BOXED)
        input_schema = tool["inputSchema"]
        properties = input_schema.get("properties")
        schema_keys = set(properties) if isinstance(properties, dict) else set()
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError) as exc:
            raise ToolCallError(f"Tool {binding.name!r}: cannot read the signature: {exc}") from exc
        hints = type_hints(function)
        parameters: list[Parameter] = []
        accepts_extra = False
        for parameter in signature.parameters.values():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                accepts_extra = True
                continue
            if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
                continue
            annotation = hints.get(parameter.name, parameter.annotation)
            key = alias(annotation, parameter.default) or parameter.name
            in_schema = key in schema_keys
            context = (
                None
                if in_schema or self._injector.has_factory(annotation)
                else framework_context(annotation)
            )
            if not in_schema and context is None and is_fastmcp_dependency(parameter.default):
                raise ToolCallError(
                    f"Tool {binding.name!r}: parameter {parameter.name!r} takes its value from a "
                    "fastmcp dependency (Depends(...) and the like), which this runtime does not "
                    "resolve; annotate it with a type the server supplies (fastmcp's or the SDK's "
                    "Context, or a class given to the server's dependencies)"
                )
            parameters.append(
                Parameter(
                    name=parameter.name,
                    key=key,
                    kind=parameter.kind,
                    annotation=annotation,
                    default=parameter.default,
                    in_schema=in_schema,
                    adapter=argument_adapter(binding, parameter.name, annotation, parameter.default)
                    if in_schema
                    else None,
                    context=context,
                )
            )
        prepared = PreparedTool(
            binding=binding,
            function=function,
            is_async=is_async(function),
            input_validator=compile_schema(input_schema, "inputSchema", binding.name),
            output_schema=tool.get("outputSchema"),
            parameters=tuple(parameters),
            accepts_extra=accepts_extra,
            return_annotation=hints.get("return", signature.return_annotation),
            box_field=binding.box_field,
        )
        return prepared, signature.return_annotation

    def _registered_function(self, binding: ToolBinding) -> Callable[..., Any]:
        """A tool defined inside a registration function: call the registration function once
        with a recording app (as the generator did) and take the function it registered."""
        registrar, parameter = binding.registrar, binding.registrar_parameter
        assert registrar is not None and parameter is not None
        key = f"{registrar} {parameter}"
        recorded = self._registered.get(key)
        if recorded is None:
            # ~18 ms (inspect): only for tools defined inside a registration function
            from mcp_codegen._registration.registrar import NeedsState, capture

            module, _, qualname = registrar.partition(":")
            function = _import_attribute(binding, module, qualname, registrar)
            try:
                recorded = capture(function, parameter)
            except NeedsState as exc:
                raise ToolCallError(self._needs_state(binding, exc.missing)) from exc
            except Exception as exc:  # RegistrarError, or the registration function raising
                logger.error("calling registration function %s failed", registrar, exc_info=True)
                raise ToolCallError(
                    f"Tool {binding.name!r}: cannot call its registration function {registrar} "
                    f"with a recording {parameter!r}: {type(exc).__name__}: "
                    f"{describe(exc, MAX_TOOL_MESSAGE)}"
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

    def _needs_state(self, binding: ToolBinding, missing: tuple[str, ...]) -> str:
        """Why a tool whose registration function takes state cannot run here, and what does."""
        return (
            f"Tool {binding.name!r}: its registration function {binding.registrar} also needs "
            f"{', '.join(missing)}, which only your own server passes it (the generator listed "
            "the tool with stand-ins for them), so this server cannot call it. Serve your own "
            "server with its framework and these generated schemas instead: `mcp-codegen run "
            f"--generated {self._registry.origin} MODULE:SERVER`, or "
            f"`mcp_codegen.runtime.use_generated({self._registry.origin!r})` at the top of your "
            'server module (README, "Keep your server"); or give those parameters defaults'
        )

    def _factory_function(self, binding: ToolBinding) -> Callable[..., Any]:
        """A tool defined inside a factory listed in ``factories``: call the recorded factory
        once (with its recorded literal arguments, as the generator did) and take the function
        its server registered under the tool's ``module:qualname``."""
        call = binding.factory
        assert call is not None
        found = self._made.get(call)
        if found is None:
            try:
                found = _call_factory(call)
            except Exception as exc:  # the factory raising, or a malformed recorded call
                logger.error("calling factory %s failed", call, exc_info=True)
                raise ToolCallError(
                    f"Tool {binding.name!r}: cannot call its factory {call}: "
                    f"{type(exc).__name__}: {describe(exc, MAX_TOOL_MESSAGE)}"
                ) from exc
            self._made[call] = found
        made = found[1]
        function = made.get(binding.function)
        if function is None:
            raise ToolCallError(
                f"Tool {binding.name!r}: the server of its factory {call} registers no "
                f"{binding.function} (it registers {', '.join(sorted(made)) or 'nothing'}); "
                "the generated modules are out of step with the source, regenerate them"
            )
        if not callable(function):
            raise ToolCallError(f"Tool {binding.name!r}: {binding.function} is not callable")
        return function

    def factory_server(self, binding: ToolBinding) -> Any:
        """The server the factory of ``binding`` returned (``None`` before its first call or for
        a tool of no factory): what a fastmcp ``Context`` of its tools refers to."""
        found = self._made.get(binding.factory) if binding.factory else None
        return None if found is None else found[0]


def _call_factory(call: str) -> tuple[Any, dict[str, Callable[..., Any]]]:
    """``mcp_codegen._registration.factory_calls.factory_server(call)`` in a thread of its own: it runs the
    framework's listing (and an async factory) with ``anyio.run``, which cannot nest in the
    event loop that is serving this call. Once per factory, like the first import of a tool."""
    # ~22 ms (ast, inspect): only for the tools of a factory's server
    from mcp_codegen._registration.factory_calls import factory_server

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="mcp-codegen-factory") as pool:
        return pool.submit(factory_server, call).result()


def _import_function(binding: ToolBinding, origin: str = "generated") -> Callable[..., Any]:
    keep_your_server = (
        "which only your own server can call. Serve your own server with its framework and "
        f"these generated schemas instead: `mcp-codegen run --generated {origin} MODULE:SERVER`, "
        f"or `mcp_codegen.runtime.use_generated({origin!r})` at the top of your server module "
        '(README, "Keep your server")'
    )
    if "<locals>" in binding.qualname:  # inside a method, on a server an object holds
        raise ToolCallError(
            f"Tool {binding.name!r}: {binding.function} is defined inside a method or function "
            f"and registered on a server that an object of yours holds, {keep_your_server}"
        )
    owner_path, dot, method = binding.qualname.rpartition(".")
    if dot:  # ``mcp.tool()(obj.method)``: a method needs the instance the server was given
        owner = _import_attribute(binding, binding.module, owner_path, binding.function)
        if isinstance(owner, type) and inspect.isfunction(inspect.getattr_static(owner, method)):
            raise ToolCallError(
                f"Tool {binding.name!r}: {binding.function} is a method, registered bound to an "
                f"object of yours (mcp.tool()(obj.{method})), {keep_your_server}"
            )
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
