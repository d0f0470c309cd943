"""Stage 2a (in the isolated worker): import a tool module and resolve each tool's type hints.

Runs in: worker, parent. (The parent only reads ``registrar_of`` while it assembles.)
"""

from __future__ import annotations

import importlib
import inspect
import linecache
import os
import sys
import types
import typing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcp_codegen._generator.inspection import unsupported
from mcp_codegen._generator.inspection.output_guard import OutputImportError
from mcp_codegen._generator.model import ScannedModule, ScannedTool
from mcp_codegen._generator.project import project_root, relative_to_root
from mcp_codegen._registration import registrar as registrar_module
from mcp_codegen._registration.registrar import (
    RegistrarError,
    StandInUsed,
    capture_app,
    stand_in_reached,
)
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.frames import traceback_position


@dataclass(frozen=True)
class ResolvedParameter:
    name: str
    kind: str
    annotation: Any  # ``inspect.Parameter.empty`` when unannotated
    default: Any  # ``inspect.Parameter.empty`` when required


@dataclass(frozen=True)
class ResolvedTool:
    scanned: ScannedTool
    function: Any
    parameters: tuple[ResolvedParameter, ...]
    return_annotation: Any  # ``inspect.Signature.empty`` when unannotated
    #: The object the tool decorator received (a functools.wraps wrapper, say), when it is not
    #: ``function`` itself: frameworks read ``__doc__`` from it, and follow ``__wrapped__``
    #: only for the signature.
    received: Any = None


class ResolveFailure(Exception):
    """Carries diagnostics out of the resolver; caught inside the worker, never across stages."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("; ".join(str(d) for d in diagnostics))


def _located_error(module: ScannedModule, line: int, column: int, message: str) -> ResolveFailure:
    return ResolveFailure([Diagnostic(module.relative_path, line, column, message)])


def _error_position(module: ScannedModule, exc: BaseException) -> tuple[int, int]:
    """The innermost traceback frame inside the tool module, else the top of the file."""
    if isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename) == Path(module.path):
        return exc.lineno or 1, exc.offset or 1
    line = 1
    for frame, lineno in _walk_tb(exc.__traceback__):
        if Path(frame.f_code.co_filename) == Path(module.path):
            line = lineno
    return line, 1


def _walk_tb(tb: types.TracebackType | None):  # type: ignore[no-untyped-def]
    while tb is not None:
        yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


def _unsupported_at_registration(module: ScannedModule, exc: BaseException) -> Diagnostic | None:
    """A framework that infers at registration (``MCPServer``, fastmcp) could not describe a
    tool's parameter: the error at that parameter, not an import failure of the module."""
    if not isinstance(exc, unsupported.schema_errors()) or isinstance(exc, TypeError):
        return None
    frames = [frame for frame, _ in _walk_tb(exc.__traceback__)]
    found = unsupported.registered_function(frames, module.path, module.tools)
    if found is None:
        return None
    tool, function = found
    return unsupported.unsupported_parameter(
        tool,
        unsupported.resolved_annotations(function),
        module.relative_path,
        "the server infers its schema when the tool is registered, so give the parameter a "
        "type pydantic can describe (a JSON value: str, int, a list, a BaseModel, ...)",
    )


def _import_failure(module: ScannedModule, exc: BaseException) -> str:
    """What went wrong while importing ``module``, and how to fix it."""
    if isinstance(exc, SystemExit):
        return (
            f"module {module.module} called sys.exit({exc.code!r}) while being imported; "
            'guard side effects with `if __name__ == "__main__":`'
        )
    if isinstance(exc, OutputImportError):
        return (
            f"importing {module.module} imports {exc.name}, the generator's own output: a cycle "
            "(its schemas would come from the previous output, and a fresh checkout could not "
            "generate them); import generated modules inside the functions that use them, or "
            "serve them with mcp_codegen.runtime"
        )
    return (
        f"importing {module.module} failed: {type(exc).__name__}: {exc}; "
        "fix the module so that it imports cleanly"
    )


def import_module(module: ScannedModule) -> types.ModuleType:
    """Import the module by name, making sure the name maps to the scanned file."""
    if module.import_root not in sys.path:
        sys.path.insert(0, module.import_root)
    try:
        loaded = importlib.import_module(module.module)
    except BaseException as exc:  # user code may raise anything, even SystemExit
        at_parameter = _unsupported_at_registration(module, exc)
        if at_parameter is not None:
            raise ResolveFailure([at_parameter]) from None
        line, col = _error_position(module, exc)
        raise _located_error(module, line, col, _import_failure(module, exc)) from None
    loaded_file = getattr(loaded, "__file__", None)
    if loaded_file is None or Path(loaded_file).resolve() != Path(module.path).resolve():
        raise _located_error(
            module,
            1,
            1,
            f"`import {module.module}` loads {loaded_file!r}, not this file; another module of "
            "that name shadows it on sys.path — rename one of them",
        )
    return loaded


def received_object(obj: Any) -> Any:
    """The callable the tool decorator received: ``obj`` itself, or the function inside a
    framework's tool object (``FunctionTool.fn``). functools.wraps wrappers are kept."""
    for attribute in ("fn", "func", "function"):
        inner = getattr(obj, attribute, None)
        if callable(inner) and not isinstance(obj, types.FunctionType):
            return inner
    return obj


def _unwrap(obj: Any) -> Any:
    """The plain function behind framework tool objects and functools.wraps decorators."""
    obj = received_object(obj)
    try:
        return inspect.unwrap(obj)
    except ValueError:
        return obj


def registrar_of(tool: ScannedTool) -> tuple[str, str] | None:
    """``(registration function, its server parameter)`` for a tool defined directly inside a
    module-level function and decorated through one of its parameters::

        def register_tools(app):      # -> ("register_tools", "app")
            @app.tool()
            def search(query: str) -> list[str]: ...

    The server may also be reached through an attribute of that object (``@ctx.mcp.tool()``,
    -> ``(..., "ctx")``): the recording app answers attribute chains too. ``None`` for every
    other nesting (classes, deeper functions).
    """
    outer, nested, inner = tool.qualname.partition(".<locals>.")
    head, _, attribute = tool.decorator.partition(".")
    if (
        tool.registered_at is not None
        or tool.factory is not None
        or not nested
        or "." in outer
        or "." in inner
        or not attribute
    ):
        return None
    return outer, head


_REGISTERED: dict[tuple[str, str, str], dict[str, Any]] = {}
#: the same calls: (real path, line, column) of each registering call -> the functions passed
_SITES: dict[tuple[str, str, str], dict[tuple[str, int, int], list[Any]]] = {}


def _registered_function(
    loaded: types.ModuleType, module: ScannedModule, tool: ScannedTool, site: tuple[str, str]
) -> Any:
    """Call the registration function with a recording app and take the tool it decorated."""
    outer, parameter = site
    key = (module.module, outer, parameter)
    where = f"{outer}({parameter})"
    _capture(loaded, module, tool, site)
    function = _REGISTERED[key].get(tool.qualname)
    reached = stand_in_reached(function) if function is not None else None
    if reached is not None:
        name, what = reached
        where_found = next((p.position for p in tool.parameters if p.name == name), tool.position)
        raise _located_error(
            module,
            where_found.line,
            where_found.column,
            f"tool {tool.name!r}: {what}, a value {outer}() computes from a parameter the "
            "generator only has a stand-in for, so its schema cannot be known at build time; "
            "use a module-level constant or type there",
        )
    if function is None:
        raise _located_error(
            module,
            tool.position.line,
            tool.position.column,
            f"calling {where} did not register {tool.qualname} through {tool.decorator}; the "
            "registration function must apply the decorator each time it runs",
        )
    return function


def _capture(
    loaded: types.ModuleType, module: ScannedModule, tool: ScannedTool, site: tuple[str, str]
) -> None:
    """Call the registration function ``site`` names once, with a recording app and stand-ins
    (``_REGISTERED``, ``_SITES``); its failures are errors at ``tool`` or where a stand-in was used."""
    outer, parameter = site
    key = (module.module, outer, parameter)
    where = f"{outer}({parameter})"
    if key not in _REGISTERED:
        registrar = getattr(loaded, outer, None)
        if not inspect.isfunction(registrar):
            raise _located_error(
                module,
                tool.position.line,
                tool.position.column,
                f"tool {tool.name!r} is defined inside {outer}, which is not a module-level "
                "function after import; keep the registration function bound to its name",
            )
        try:
            app = capture_app(registrar, parameter, stand_ins=True)
            _REGISTERED[key], _SITES[key] = app.recorded, app.sites
        except StandInUsed as exc:
            path, line, column = _use_site(module, exc)
            raise ResolveFailure(
                [
                    Diagnostic(
                        path,
                        line,
                        column,
                        f"{outer}() uses `{exc.parameter}` {exc.operation} while registering "
                        f"tool {tool.name!r}; the generator calls {outer}() with a stand-in for "
                        "that parameter (only the server matters for listing tools), so what "
                        "this use decides cannot be known at build time: use the parameter only "
                        "inside the tool bodies, or replace it with a module-level constant",
                    )
                ]
            ) from None
        except RegistrarError as exc:
            raise _located_error(
                module,
                tool.position.line,
                tool.position.column,
                f"cannot call {where} to reach tool {tool.name!r}: {exc}",
            ) from None
        except Exception as exc:
            line, column = _error_position(module, exc)
            raise _located_error(
                module,
                line,
                column,
                f"calling {where} with a recording app, to reach tool {tool.name!r}, raised "
                f"{type(exc).__name__}: {exc}; a registration function should only register",
            ) from None


def _use_site(module: ScannedModule, exc: BaseException) -> tuple[str, int, int]:
    """``(path, line, column)`` of the innermost user-code frame of ``exc``'s traceback."""
    site = (module.relative_path, 1, 1)
    root = project_root(module.path, module.relative_path)
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if Path(code.co_filename).resolve() != Path(registrar_module.__file__).resolve():
            line, column = traceback_position(tb)
            text = linecache.getline(code.co_filename, line).encode("utf-8")
            character = len(text[:column].decode("utf-8", "replace")) + 1
            path = relative_to_root(Path(code.co_filename), root)
            site = (path, line, character)
        tb = tb.tb_next
    return site


def _factory_hint(module: ScannedModule, tool: ScannedTool) -> str:
    """The ``factories`` entry for the function around ``tool`` (``factory_entry``)."""
    # only an error's hint: at the top, ~0.8 ms on every worker's start
    from mcp_codegen._generator.scan.factory_entry import factory_hint

    root = project_root(module.path, module.relative_path)
    server = tool.decorator.rpartition(".")[0]
    return factory_hint(module.module, module.path, tool.qualname, root, server=server)


def find_function(loaded: types.ModuleType, module: ScannedModule, tool: ScannedTool) -> Any:
    """The plain function of ``tool`` (``__wrapped__`` followed to its end)."""
    return _unwrap(find_received(loaded, module, tool))


def find_received(loaded: types.ModuleType, module: ScannedModule, tool: ScannedTool) -> Any:
    """The object the tool decorator received, as far as import shows it: the module attribute
    (or the function a registration function passed to its server), outside any framework
    tool object, with functools.wraps wrappers kept."""
    if tool.registered_at is not None:
        return _registered_at(loaded, module, tool)
    if "<locals>" in tool.qualname:
        site = registrar_of(tool)
        if site is not None:
            return _registered_function(loaded, module, tool, site)
        # the parent imports this module for registrar_of: the registration watch is a worker's
        from mcp_codegen._generator.inspection.registrations import registered_function

        held = registered_function(module.path, tool.qualname)
        if held is not None:  # inside a method, on a server an object holds: as registered
            return held
        raise _located_error(
            module,
            tool.position.line,
            tool.position.column,
            f"tool {tool.name!r} is defined inside a function ({tool.qualname}) that no server "
            "registered it from while the module was imported, so it cannot be reached; create "
            "the server (or the object holding it) at module level, list the call that builds "
            f"it in `factories`{_factory_hint(module, tool)}, or move the tool into a "
            "module-level registration function "
            "that takes the server object (def register(app): @app.tool() ...)",
        )
    obj: Any = loaded
    for part in tool.qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise _located_error(
                module,
                tool.position.line,
                tool.position.column,
                f"{tool.qualname} is not an attribute of {module.module} after import (was it "
                "deleted or rebound?); keep the decorated function bound to its name",
            )
    received = received_object(obj)
    if not callable(received):
        raise _located_error(
            module,
            tool.position.line,
            tool.position.column,
            f"{tool.qualname} is not callable after import; the tool decorator must return the "
            "function or an object wrapping it",
        )
    return received


def _registered_at(loaded: types.ModuleType, module: ScannedModule, tool: ScannedTool) -> Any:
    """The function a real server registered by the call at ``tool.registered_at`` while the
    module was imported (``mcp.tool()(obj.method)``, ``mcp.add_tool(imported)``): as the
    server received it, so a bound method stays bound and ``self`` is no parameter. A call in a
    registration function nobody called at import is reached by calling that function with a
    recording app, as for decorated tools (``registrar_of``)."""
    site = tool.registered_at
    assert site is not None
    # the parent imports this module for registrar_of: the registration watch is a worker's
    from mcp_codegen._generator.inspection.registrations import registered_at

    found = registered_at(module.path, site.line, site.column)
    registrar = registrar_of(replace(tool, registered_at=None))
    if not found and registrar is not None:
        _capture(loaded, module, tool, registrar)
        where = (os.path.realpath(module.path), site.line, site.column)
        passed = _SITES[(module.module, *registrar)].get(where, [])
        found = [(tool.name, function) for function in passed]
    # bound methods of several objects of one class (a class instantiated twice) are one function
    distinct = list({id(getattr(f, "__func__", f)): f for _, f in found}.values())
    names = sorted({name for name, _ in found})
    if found and tool.name not in names:
        problem = (
            f"registers it as {', '.join(map(repr, names))}, not {tool.name!r} (a framework "
            "that keeps the options of an earlier registration of the same function on the "
            "function, as fastmcp does, or a name changed at run time); pass the name the server "
            "uses literally (name=...), or register the function once"
        )
    elif len(distinct) == 1:
        return distinct[0]
    elif distinct:
        problem = (
            f"registers {len(distinct)} different functions at this call (a loop?); register "
            "each tool by its own call"
        )
    else:
        problem = (
            "registered nothing here while the module was imported (the call runs later: inside "
            "a function nobody calls at import, or on a server built at run time); make the "
            "call at module level or in code that runs at import, list the call that builds "
            f"the server in `factories`{_factory_hint(module, tool)}, or decorate the "
            "function with @<server>.tool(...) "
            "where it is defined"
        )
    raise _located_error(
        module,
        tool.position.line,
        tool.position.column,
        f"tool {tool.name!r}: `{tool.qualname.rpartition('.<locals>.')[2]}` is not defined in this "
        f"module, so the generator takes the function the server registers; but this call "
        f"{problem}",
    )


def _closure_namespace(function: Any) -> dict[str, Any]:
    code = getattr(function, "__code__", None)
    closure = getattr(function, "__closure__", None) or ()
    namespace: dict[str, Any] = {}
    if code is not None:
        for name, cell in zip(code.co_freevars, closure, strict=False):
            try:
                namespace[name] = cell.cell_contents
            except ValueError:  # empty cell
                continue
    return namespace


def resolve_tool(
    module: ScannedModule, loaded: types.ModuleType, tool: ScannedTool
) -> ResolvedTool:
    """Resolve annotations with ``get_type_hints``, forward references and closures included."""
    received = find_received(loaded, module, tool)
    function = _unwrap(received)
    try:
        # The signature the framework sees: a decorator's ``__signature__`` (one that hides an
        # injected parameter) wins over the wrapped function's, as in ``inspect.signature``.
        signature = inspect.signature(received)
    except (TypeError, ValueError) as exc:
        raise _located_error(
            module,
            tool.position.line,
            tool.position.column,
            f"cannot read the signature of {tool.qualname}: {exc}",
        ) from None
    globalns = getattr(function, "__globals__", vars(loaded))
    localns = _closure_namespace(function)
    hints: dict[str, Any] = {}
    scanned_params = {p.name: p for p in tool.parameters}
    raw = dict(getattr(function, "__annotations__", {}) or {})
    for name, annotation in raw.items():
        try:
            hints[name] = typing.get_type_hints(
                _Holder({name: annotation}),
                globalns=globalns,
                localns=localns,
                include_extras=True,
            )[name]
        except Exception as exc:
            scanned = scanned_params.get(name)
            line, col = (
                (scanned.position.line, scanned.position.column)
                if scanned
                else (tool.position.line, tool.position.column)
            )
            what = "return annotation" if name == "return" else f"annotation of parameter {name!r}"
            source = scanned.annotation_source if scanned else tool.return_annotation_source
            raise _located_error(
                module,
                line,
                col,
                f"cannot resolve the {what} ({source}): {type(exc).__name__}: {exc}; import the "
                "name at module level (not only under TYPE_CHECKING) or fix the spelling",
            ) from None
    parameters = tuple(
        ResolvedParameter(
            name=p.name,
            kind=p.kind.name,
            annotation=hints.get(
                p.name, p.annotation if not isinstance(p.annotation, str) else p.empty
            ),
            default=p.default,
        )
        for p in signature.parameters.values()
    )
    return ResolvedTool(
        scanned=tool,
        function=function,
        parameters=parameters,
        return_annotation=hints.get("return", inspect.Signature.empty),
        received=None if received is function else received,
    )


class _Holder:
    """Lets ``get_type_hints`` evaluate one annotation at a time, so errors name the parameter."""

    def __init__(self, annotations: dict[str, Any]) -> None:
        self.__annotations__ = annotations
