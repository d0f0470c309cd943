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

Runs in: worker, server, parent. (The parent reads ``resolve.registrar_of``, which imports it.)
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from mcp_codegen._shared.frames import frame_position


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
        #: (real path, line, 1-based byte column) of each registering call -> the functions
        #: passed there (``app.tool()(obj.method)``, ``app.add_tool(imported)``)
        self.sites: dict[tuple[str, int, int], list[Callable[..., Any]]] = {}
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
        self.sites.setdefault(_calling_site(), []).append(function)
        return function

    def _method(self, *args: Any, **kwargs: Any) -> Any:
        for value in [*args, *kwargs.values()]:
            if isinstance(value, StandIn):
                raise StandInUsed(
                    object.__getattribute__(value, "_parameter"), "as a decorator argument"
                )
        if args and callable(args[0]) and not isinstance(args[0], str):
            return self._keep(args[0])  # ``@app.tool`` or ``app.add_tool(fn, name=...)``
        inner = getattr(args[0], "fn", None) if args else None
        if callable(inner):  # ``app.add_tool(Tool.from_function(fn, ...))`` (fastmcp)
            self._keep(inner)
            return args[0]
        return self._keep  # ``@app.tool()`` / ``@app.tool("name", ...)``


def _calling_site() -> tuple[str, int, int]:
    """Where the code outside this module that led here is: its file, line and the 1-based
    byte column of the call being made."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    line, column = frame_position(frame)
    return os.path.realpath(frame.f_code.co_filename), line, column + 1


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
        super().__init__(f"parameter {parameter!r} was used {operation} while registering")


class StandIn:
    """Passed for a registration function's parameters other than the server (state and
    services the tool bodies use later). Registering may use it for anything that does not
    decide what is served: attribute access, calls, indexing, iteration (of nothing), context
    managers, arithmetic and text give back further stand-ins (``container.config_manager``).
    Only a use that decides something raises ``StandInUsed``, which the generator reports at
    the line and column of the use: a truth test or membership test (a condition deciding
    whether a tool is registered) and a length. A stand-in reaching a decorator argument, an
    annotation or a default is found after registering (``stand_in_reached``)."""

    __slots__ = ("_parameter",)

    def __init__(self, parameter: str) -> None:
        object.__setattr__(self, "_parameter", parameter)

    def __repr__(self) -> str:
        return f"<stand-in for {self._parameter}>"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # protocol probes (copy, pickle, inspect) see nothing
            raise AttributeError(attribute)
        return StandIn(f"{self._parameter}.{attribute}")

    def __setattr__(self, attribute: str, value: Any) -> None:
        pass

    def __delattr__(self, attribute: str) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> StandIn:
        return StandIn(f"{self._parameter}(...)")

    def __getitem__(self, key: Any) -> StandIn:
        return StandIn(f"{self._parameter}[...]")

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def __delitem__(self, key: Any) -> None:
        pass

    def __iter__(self) -> Any:
        return iter(())

    def __aiter__(self) -> Any:
        return self

    async def __anext__(self) -> Any:
        raise StopAsyncIteration

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    async def __aenter__(self) -> StandIn:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    def __hash__(self) -> int:
        return id(self)


def _refuse(operation: str) -> Callable[..., Any]:
    def refuse(self: StandIn, *args: Any, **kwargs: Any) -> Any:
        raise StandInUsed(object.__getattribute__(self, "_parameter"), operation)

    return refuse


def _further(self: StandIn, *args: Any) -> StandIn:
    return StandIn(object.__getattribute__(self, "_parameter"))


# Deciding uses: a condition (``if container.enabled:``, ``if "x" in features:``) or a number.
for _method, _phrase in [
    ("__bool__", "in a condition"),
    ("__contains__", "in a membership test"),
    ("__int__", "as a number"),
    ("__float__", "as a number"),
    ("__index__", "as an index"),
]:
    setattr(StandIn, _method, _refuse(_phrase))
# Values computed from a stand-in are stand-ins; compared ones decide only when tested.
for _method in [
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__radd__",
    "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__floordiv__", "__mod__",
    "__rmod__", "__or__", "__ror__", "__and__", "__neg__",
]:  # fmt: skip
    setattr(StandIn, _method, _further)


def stand_in_reached(function: Callable[..., Any]) -> tuple[str, str] | None:
    """``(parameter name, what)`` when a stand-in became a default or an annotation of a
    registered function (it would decide the tool's schema), else None."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    for name, p in signature.parameters.items():
        if isinstance(p.default, StandIn):
            return name, f"the default of parameter {name!r} is {p.default!r}"
        if isinstance(p.annotation, StandIn):
            return name, f"the annotation of parameter {name!r} is {p.annotation!r}"
    if isinstance(signature.return_annotation, StandIn):
        return "return", f"the return annotation is {signature.return_annotation!r}"
    return None


_GLOBALS_LOCK = threading.Lock()


def capture(
    registrar: Callable[..., Any], parameter: str, *, stand_ins: bool = False
) -> dict[str, Callable[..., Any]]:
    """Call ``registrar`` with a ``RecordingApp`` as ``parameter``; the functions it registered
    (``capture_app`` says more)."""
    return capture_app(registrar, parameter, stand_ins=stand_ins).recorded


def capture_app(
    registrar: Callable[..., Any], parameter: str, *, stand_ins: bool = False
) -> RecordingApp:
    """Call ``registrar`` with a ``RecordingApp`` as ``parameter``; that app, which recorded the
    functions it registered by qualname and by the call that passed them.

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
    return app
