"""Factory calls: ``"pkg.server:create_server(namespace='')"`` (config ``factories``, ``verify``).

A server built by a factory registers tools whose names or descriptions come from the factory's
arguments, so only calling it tells what it serves. A call is written with literal arguments
only, parsed with ``ast`` (never evaluated as code), and run in the worker process.

The server may be reached through a chain after the call: attributes and further calls with
literal arguments, ``pkg.server:CatalogServer('books').mcp`` or ``pkg.app:make().build()``.
Only names, attribute access and calls of literals are accepted; nothing else is evaluated.

Runs in: any.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
from collections.abc import Iterator
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
    #: what follows the factory call: ``("attribute", name)`` or ``("call", args, kwargs)``
    chain: tuple[tuple[Any, ...], ...] = ()
    #: ``module:function(args).chain`` with the spacing normalised (``ast.unparse``): how a
    #: server record of ``generated/__servers__.py`` names the ``mcp-codegen run`` target
    target: str = ""

    def call(self) -> Any:
        """Import the module, call the factory and follow the chain after it, awaiting each
        call's result that is a coroutine. An entry that goes on to serve (``main()`` ending in
        ``app.run()``) does not block: while the call runs, each framework's ``run`` (and its
        async form) only notes its server and returns, and when the call gives no server, the
        last server it asked to run is the one built."""
        asked: list[Any] = []
        with _runs_return(asked):
            obj: Any = importlib.import_module(self.module)
            for part in self.qualname.split("."):
                obj = getattr(obj, part)
            result = _awaited(obj(*self.args, **dict(self.kwargs)))
            for step in self.chain:
                if step[0] == "attribute":
                    result = getattr(result, step[1])
                else:
                    result = _awaited(result(*step[1], **dict(step[2])))
        if asked and not _is_server(result):
            return asked[-1]
        return result


#: (module, class, method) of each framework's way to start serving, sync or async
_RUNS = (
    ("mcp.server.mcpserver", "MCPServer", "run"),
    ("mcp.server.mcpserver", "MCPServer", "run_stdio_async"),
    ("mcp.server.fastmcp", "FastMCP", "run"),
    ("mcp.server.fastmcp", "FastMCP", "run_stdio_async"),
    ("fastmcp", "FastMCP", "run"),
    ("fastmcp", "FastMCP", "run_async"),
)


@contextlib.contextmanager
def _runs_return(asked: list[Any]) -> Iterator[None]:
    """Within the block, each installed framework's ``run`` methods append their server to
    ``asked`` and return None (a coroutine for an async one) instead of serving."""
    patched: list[tuple[Any, str, Any]] = []
    for module_name, class_name, method in _RUNS:
        try:
            owner = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue
        original = getattr(owner, method, None)
        if original is None:
            continue
        patched.append((owner, method, vars(owner).get(method)))
        setattr(owner, method, _noted(original, asked))
    try:
        yield
    finally:
        for owner, method, own in reversed(patched):
            if own is None:  # inherited: the class's own attribute goes again
                delattr(owner, method)
            else:
                setattr(owner, method, own)


def _noted(method: Any, asked: list[Any]) -> Any:
    if inspect.iscoroutinefunction(method):

        async def run_async(self: Any, *args: Any, **kwargs: Any) -> None:
            asked.append(self)

        return run_async

    def run(self: Any, *args: Any, **kwargs: Any) -> None:
        asked.append(self)

    return run


def _is_server(value: Any) -> bool:
    # json (with served): the stdio front imports this module for a factory-call target
    from mcp_codegen._registration.served import UnsupportedServer, framework_of

    try:
        framework_of(value)
    except UnsupportedServer:
        return False
    return True


def _awaited(result: Any) -> Any:
    if inspect.isawaitable(result):
        import anyio  # comes only with a framework (mcp, fastmcp), which is optional

        async def wait(awaitable: Any = result) -> Any:
            return await awaitable

        return anyio.run(wait)
    return result


_USAGE = (
    "write module:function(arguments) with literal arguments only, optionally followed by "
    "attributes and calls that reach the server, e.g. \"pkg.server:create_server(namespace='')\" "
    "or \"pkg.server:CatalogServer('books').mcp\""
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
    steps: list[ast.expr] = []  # the chain, outermost first
    node: ast.expr = tree
    while isinstance(node, ast.Attribute | ast.Call):
        steps.append(node)
        node = node.func if isinstance(node, ast.Call) else node.value
    if not isinstance(node, ast.Name):
        raise FactoryCallError(
            f"{text!r}: `{ast.unparse(node)}` is not a name, an attribute or a call; only "
            f"names, attributes and calls with literal arguments are read (nothing is "
            f"evaluated); {_USAGE}"
        )
    steps.reverse()
    first = next((i for i, step in enumerate(steps) if isinstance(step, ast.Call)), None)
    if first is None:
        raise FactoryCallError(
            f"{text!r} does not call the factory (add the parentheses); {_USAGE}"
        )
    factory = steps[first]
    assert isinstance(factory, ast.Call)
    qualname = ast.unparse(factory.func)

    def literal(node: ast.expr) -> Any:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise FactoryCallError(
                f"{text!r}: argument `{ast.unparse(node)}` is not a literal (the generator "
                f"calls the factory with fixed values only); {_USAGE}"
            ) from None

    def arguments(call: ast.Call) -> tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            raise FactoryCallError(f"{text!r}: * and ** arguments are not allowed; {_USAGE}")
        return (
            tuple(literal(a) for a in call.args),
            tuple((k.arg, literal(k.value)) for k in call.keywords if k.arg),
        )

    args, kwargs = arguments(factory)
    chain: list[tuple[Any, ...]] = []
    for step in steps[first + 1 :]:
        if isinstance(step, ast.Attribute):
            chain.append(("attribute", step.attr))
        else:
            assert isinstance(step, ast.Call)
            chain.append(("call", *arguments(step)))
    return FactoryCall(
        text=text.strip(),
        module=module,
        qualname=qualname,
        args=args,
        kwargs=kwargs,
        chain=tuple(chain),
        target=f"{module}:{ast.unparse(tree)}",
    )


def is_factory_call(target: str) -> bool:
    """Whether a ``module:...`` target calls a factory (``module:function(...)``) rather than
    naming an object or a console-script function."""
    return "(" in target.partition(":")[2]


def registered_functions(server: Any, framework: str) -> dict[str, Any]:
    """Tool name -> the function registered for it on a framework server object."""
    if framework in ("mcp", "mcp1"):
        return {tool.name: tool.fn for tool in server._tool_manager.list_tools()}
    if framework == "fastmcp":
        import anyio  # with fastmcp, as above

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
    from mcp_codegen._registration.served import framework_of  # json: as in _is_server

    server = parse_factory_call(text).call()
    found = {}
    for function in registered_functions(server, framework_of(server)).values():
        function = inspect.unwrap(function)
        found[f"{function.__module__}:{function.__qualname__}"] = function
    return server, found
