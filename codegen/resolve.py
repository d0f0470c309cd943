"""Stage 2a (in the isolated worker): import a tool module and resolve each tool's type hints."""

from __future__ import annotations

import importlib
import inspect
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.errors import Diagnostic
from codegen.model import ScannedModule, ScannedTool


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


def import_module(module: ScannedModule) -> types.ModuleType:
    """Import the module by name, making sure the name maps to the scanned file."""
    if module.import_root not in sys.path:
        sys.path.insert(0, module.import_root)
    try:
        loaded = importlib.import_module(module.module)
    except SystemExit as exc:
        line, col = _error_position(module, exc)
        raise _located_error(
            module,
            line,
            col,
            f"module {module.module} called sys.exit({exc.code!r}) while being imported; "
            'guard side effects with `if __name__ == "__main__":`',
        ) from None
    except BaseException as exc:
        line, col = _error_position(module, exc)
        raise _located_error(
            module,
            line,
            col,
            f"importing {module.module} failed: {type(exc).__name__}: {exc}; "
            "fix the module so that it imports cleanly",
        ) from None
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


def _unwrap(obj: Any) -> Any:
    """The plain function behind framework tool objects and functools.wraps decorators."""
    for attribute in ("fn", "func", "function"):
        inner = getattr(obj, attribute, None)
        if callable(inner) and not isinstance(obj, types.FunctionType):
            obj = inner
            break
    try:
        return inspect.unwrap(obj)
    except ValueError:
        return obj


def find_function(loaded: types.ModuleType, module: ScannedModule, tool: ScannedTool) -> Any:
    if "<locals>" in tool.qualname:
        raise _located_error(
            module,
            tool.position.line,
            tool.position.column,
            f"tool {tool.name!r} is defined inside a function ({tool.qualname}), so it cannot be "
            "imported by path; move it to module level",
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
    function = _unwrap(obj)
    if not callable(function):
        raise _located_error(
            module,
            tool.position.line,
            tool.position.column,
            f"{tool.qualname} is not callable after import; the tool decorator must return the "
            "function or an object wrapping it",
        )
    return function


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
    function = find_function(loaded, module, tool)
    try:
        signature = inspect.signature(function)
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
            annotation=hints.get(p.name, inspect.Parameter.empty),
            default=p.default,
        )
        for p in signature.parameters.values()
    )
    return ResolvedTool(
        scanned=tool,
        function=function,
        parameters=parameters,
        return_annotation=hints.get("return", inspect.Signature.empty),
    )


class _Holder:
    """Lets ``get_type_hints`` evaluate one annotation at a time, so errors name the parameter."""

    def __init__(self, annotations: dict[str, Any]) -> None:
        self.__annotations__ = annotations
