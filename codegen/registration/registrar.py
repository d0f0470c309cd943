"""Reach tools that are defined inside registration functions (standard library only).

Published servers often write::

    def register_tools(app):
        @app.tool()
        def search(query: str) -> list[str]: ...

``search`` exists only while ``register_tools`` runs, so it cannot be imported by path. The
generator and the runtime both call the registration function with a ``RecordingApp`` in place of
the server object and keep the functions it decorates, keyed by ``__qualname__``
(``"register_tools.<locals>.search"``). The generated module records where to find them:
``x-codegen.registrar = "pkg.mod:register_tools"`` and ``x-codegen.registrar_parameter = "app"``.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import Any


class RegistrarError(Exception):
    """The registration function cannot be called with a recording app."""


class NeedsState(RegistrarError):
    """The registration function has parameters besides the server that only the user's own
    server can supply (state and helpers the tool bodies use): ``missing`` names them."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = tuple(missing)
        super().__init__(
            f"the registration function also needs {', '.join(missing)}, which the generator "
            "cannot supply; give those parameters defaults, or define the tools at module level"
        )


class RecordingApp:
    """Stands in for a server object: every method works as a decorator, with or without
    arguments (``@app.tool``, ``@app.tool()``, ``@app.tool("name", title=...)``), or as a
    registration call (``app.add_tool(fn, ...)``, ``app.add_tool(Tool.from_function(fn))``), and
    returns the function unchanged. Every
    function passed through it is recorded under its ``__qualname__``."""

    def __init__(self) -> None:
        self.recorded: dict[str, Callable[..., Any]] = {}
        self.closed = False  # set once the registration function returned

    def __getattr__(self, attribute: str) -> _Member:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self.refuse_after_registering(attribute)
        return _Member(self)

    def refuse_after_registering(self, attribute: str) -> None:
        """A tool body that uses the server object (or an attribute of it) gets this recording
        app, not the real object: say so instead of handing it a recording stand-in."""
        if self.closed:
            raise RegistrarError(
                f"a tool used {attribute!r} of the object its registration function received; "
                "tools served from generated modules get a recording stand-in for that object "
                "(the server, or the object holding it), so use it only while registering, and "
                "pass other state through module-level names"
            )

    def _keep(self, function: Callable[..., Any]) -> Callable[..., Any]:
        self.recorded[getattr(function, "__qualname__", repr(function))] = function
        return function

    def _method(self, *args: Any, **kwargs: Any) -> Any:
        if args and callable(args[0]) and not isinstance(args[0], str):
            return self._keep(args[0])  # ``@app.tool`` or ``app.add_tool(fn, name=...)``
        inner = getattr(args[0], "fn", None) if args else None
        if callable(inner):  # ``app.add_tool(Tool.from_function(fn, ...))`` (fastmcp)
            self._keep(inner)
            return args[0]
        return self._keep  # ``@app.tool()`` / ``@app.tool("name", ...)``


class _Member:
    """An attribute of a ``RecordingApp``: callable as its methods are, and with attributes of
    its own, so a server reached through an attribute (``@ctx.mcp.tool()``) is recorded too."""

    __slots__ = ("_app",)

    def __init__(self, app: RecordingApp) -> None:
        self._app = app

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._app._method(*args, **kwargs)

    def __getattr__(self, attribute: str) -> _Member:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self._app.refuse_after_registering(attribute)
        return self


class StandInUsed(Exception):
    """A stand-in for a registration function's parameter was used while registering."""

    def __init__(self, parameter: str, operation: str) -> None:
        self.parameter = parameter
        self.operation = operation
        super().__init__(f"parameter {parameter!r} was used ({operation}) while registering")


class StandIn:
    """Passed for a registration function's parameters other than the server (state and
    helpers the tool bodies use later): registering must not use it. Any use raises
    ``StandInUsed``, which the generator reports at the line and column of the use."""

    __slots__ = ("_parameter",)

    def __init__(self, parameter: str) -> None:
        object.__setattr__(self, "_parameter", parameter)

    def __repr__(self) -> str:
        return f"<stand-in for parameter {self._parameter!r}>"

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # protocol probes (copy, pickle, inspect) see nothing
            raise AttributeError(attribute)
        raise StandInUsed(self._parameter, f"attribute {attribute!r}")


def _refuse(operation: str) -> Callable[..., Any]:
    def refuse(self: StandIn, *args: Any, **kwargs: Any) -> Any:
        raise StandInUsed(object.__getattribute__(self, "_parameter"), operation)

    return refuse


for _method in [
    "__setattr__",
    "__delattr__",
    "__call__",
    "__bool__",
    "__len__",
    "__iter__",
    "__contains__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__str__",
    "__format__",
    "__bytes__",
    "__int__",
    "__float__",
    "__index__",
    "__hash__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__floordiv__",
    "__mod__",
    "__rmod__",
    "__or__",
    "__ror__",
    "__and__",
    "__enter__",
    "__exit__",
    "__aenter__",
    "__await__",
]:
    setattr(StandIn, _method, _refuse(_method.strip("_")))

_GLOBALS_LOCK = threading.Lock()


def capture(
    registrar: Callable[..., Any], parameter: str, *, stand_ins: bool = False
) -> dict[str, Callable[..., Any]]:
    """Call ``registrar`` with a ``RecordingApp`` as ``parameter``; the functions it registered.

    ``parameter`` is one of the registrar's parameters, or a global of its module (a
    module-level server used inside ``def register_tools(): @mcp.tool() ...``), which is
    replaced by the recording app while the registrar runs. Other parameters without a default
    get a ``StandIn`` when ``stand_ins`` is true (the generator: only listing matters) and are
    refused otherwise with ``NeedsState`` (serving needs the real objects).
    """
    try:
        signature = inspect.signature(registrar)
    except (TypeError, ValueError) as exc:
        raise RegistrarError(
            f"cannot read the signature of the registration function: {exc}"
        ) from None
    namespace = getattr(registrar, "__globals__", {})
    is_global = parameter not in signature.parameters
    if is_global and parameter not in namespace:
        raise RegistrarError(
            f"the registration function has no parameter {parameter!r} and its module has no "
            f"global {parameter!r}; the tool decorator's object must be one of its parameters or "
            "a module-level server"
        )
    missing = [
        name
        for name, p in signature.parameters.items()
        if name != parameter
        and p.default is inspect.Parameter.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if missing and not stand_ins:
        raise NeedsState(missing)
    app = RecordingApp()
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    for name, p in signature.parameters.items():
        if name == parameter:
            value: Any = app
        elif name in missing:
            value = StandIn(name)
        else:
            continue
        if p.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional.append(value)
        else:
            keywords[name] = value
    if is_global:
        with _GLOBALS_LOCK:
            saved = namespace[parameter]
            namespace[parameter] = app
            try:
                result = registrar(*positional, **keywords)
            finally:
                namespace[parameter] = saved
    else:
        result = registrar(*positional, **keywords)
    app.closed = True
    if inspect.isawaitable(result):
        close = getattr(result, "close", None)
        if close is not None:
            close()
        raise RegistrarError("the registration function is async; make it a plain function")
    return app.recorded
