"""Factory calls: ``"pkg.server:create_server(namespace='')"`` (config ``factories``, ``verify``).

A server built by a factory registers tools whose names or descriptions come from the factory's
arguments, so only calling it tells what it serves. A call is written with literal arguments
only, parsed with ``ast`` (never evaluated as code), and run in the worker process.

Runs in: any.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from dataclasses import dataclass
from typing import Any


class FactoryCallError(ValueError):
    """The text is not ``module:function(literal arguments)``."""


@dataclass(frozen=True)
class FactoryCall:
    """A parsed factory call."""

    text: str  # as written in the config, recorded in the generated modules
    module: str
    qualname: str  # a module-level function (or ``Class.method``)
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]

    def call(self) -> Any:
        """Import the module, call the factory, await its result if it is a coroutine."""
        obj: Any = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            obj = getattr(obj, part)
        result = obj(*self.args, **dict(self.kwargs))
        if inspect.isawaitable(result):
            import anyio

            async def wait(awaitable: Any = result) -> Any:
                return await awaitable

            result = anyio.run(wait)
        return result


_USAGE = (
    "write module:function(arguments) with literal arguments only, e.g. "
    "\"pkg.server:create_server(namespace='')\""
)


def parse_factory_call(text: str) -> FactoryCall:
    """``module:function(args)`` -> ``FactoryCall``; ``FactoryCallError`` says what is wrong."""
    module, colon, rest = text.strip().partition(":")
    if not colon or not module or not rest:
        raise FactoryCallError(f"{text!r} is not a factory call; {_USAGE}")
    if not all(part.isidentifier() for part in module.split(".")):
        raise FactoryCallError(f"{text!r}: {module!r} is not a module name; {_USAGE}")
    try:
        tree = ast.parse(rest, mode="eval").body
    except SyntaxError as exc:
        raise FactoryCallError(f"{text!r} is not a call ({exc.msg}); {_USAGE}") from None
    if not isinstance(tree, ast.Call):
        raise FactoryCallError(
            f"{text!r} does not call the factory (add the parentheses); {_USAGE}"
        )
    qualname = ast.unparse(tree.func)
    if not all(part.isidentifier() for part in qualname.split(".")):
        raise FactoryCallError(f"{text!r}: {qualname!r} is not a function name; {_USAGE}")

    def literal(node: ast.expr) -> Any:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise FactoryCallError(
                f"{text!r}: argument `{ast.unparse(node)}` is not a literal (the generator "
                f"calls the factory with fixed values only); {_USAGE}"
            ) from None

    if any(isinstance(a, ast.Starred) for a in tree.args) or any(
        k.arg is None for k in tree.keywords
    ):
        raise FactoryCallError(f"{text!r}: * and ** arguments are not allowed; {_USAGE}")
    return FactoryCall(
        text=text.strip(),
        module=module,
        qualname=qualname,
        args=tuple(literal(a) for a in tree.args),
        kwargs=tuple((k.arg, literal(k.value)) for k in tree.keywords if k.arg),
    )


def registered_functions(server: Any, framework: str) -> dict[str, Any]:
    """Tool name -> the function registered for it on a framework server object."""
    if framework in ("mcp", "mcp1"):
        return {tool.name: tool.fn for tool in server._tool_manager.list_tools()}
    if framework == "fastmcp":
        import anyio

        async def listed() -> list[Any]:
            if hasattr(server, "list_tools"):  # fastmcp 3.x and 4.x
                return list(await server.list_tools())
            return list((await server.get_tools()).values())  # fastmcp 2.x: name -> tool

        return {tool.name: getattr(tool, "fn", None) for tool in anyio.run(listed)}
    return {}


def factory_functions(text: str) -> dict[str, Any]:
    """``"module:qualname"`` -> function, for every tool the server of factory call ``text``
    registers: how a server of the generated modules reaches a tool whose ``x-codegen.factory``
    is ``text`` (its ``x-codegen.function`` is the key)."""
    return factory_server(text)[1]


def factory_server(text: str) -> tuple[Any, dict[str, Any]]:
    """The server factory call ``text`` returns, and ``factory_functions(text)`` of it."""
    from codegen.registration.served import framework_of

    server = parse_factory_call(text).call()
    found = {}
    for function in registered_functions(server, framework_of(server)).values():
        function = inspect.unwrap(function)
        found[f"{function.__module__}:{function.__qualname__}"] = function
    return server, found
