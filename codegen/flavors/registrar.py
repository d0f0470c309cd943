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
from collections.abc import Callable
from typing import Any


class RegistrarError(Exception):
    """The registration function cannot be called with a recording app."""


class RecordingApp:
    """Stands in for a server object: every method works as a decorator, with or without
    arguments (``@app.tool``, ``@app.tool()``, ``@app.tool("name", title=...)``), or as a
    registration call (``app.add_tool(fn, ...)``), and returns the function unchanged. Every
    function passed through it is recorded under its ``__qualname__``."""

    def __init__(self) -> None:
        self.recorded: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, attribute: str) -> Callable[..., Any]:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return self._method

    def _keep(self, function: Callable[..., Any]) -> Callable[..., Any]:
        self.recorded[getattr(function, "__qualname__", repr(function))] = function
        return function

    def _method(self, *args: Any, **kwargs: Any) -> Any:
        if args and callable(args[0]) and not isinstance(args[0], str):
            return self._keep(args[0])  # ``@app.tool`` or ``app.add_tool(fn, name=...)``
        return self._keep  # ``@app.tool()`` / ``@app.tool("name", ...)``


def capture(registrar: Callable[..., Any], parameter: str) -> dict[str, Callable[..., Any]]:
    """Call ``registrar`` with a ``RecordingApp`` as ``parameter``; the functions it registered.

    Every other parameter must have a default: nothing else can be made up.
    """
    try:
        signature = inspect.signature(registrar)
    except (TypeError, ValueError) as exc:
        raise RegistrarError(
            f"cannot read the signature of the registration function: {exc}"
        ) from None
    if parameter not in signature.parameters:
        raise RegistrarError(
            f"the registration function has no parameter {parameter!r}; the tool decorator's "
            "object must be one of its parameters"
        )
    missing = [
        name
        for name, p in signature.parameters.items()
        if name != parameter
        and p.default is inspect.Parameter.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if missing:
        raise RegistrarError(
            f"the registration function also needs {', '.join(missing)}, which the generator "
            "cannot supply; give those parameters defaults, or define the tools at module level"
        )
    app = RecordingApp()
    if signature.parameters[parameter].kind is inspect.Parameter.POSITIONAL_ONLY:
        result = registrar(app)
    else:
        result = registrar(**{parameter: app})
    if inspect.isawaitable(result):
        close = getattr(result, "close", None)
        if close is not None:
            close()
        raise RegistrarError("the registration function is async; make it a plain function")
    return app.recorded
