"""``FunctionTool.from_function`` under ``use_generated``: a tool the application builds itself.

A server that registers by call, ``mcp.add_tool(FunctionTool.from_function(fn, ...))`` (or its
own ``FunctionTool`` subclass's ``from_function``), hands ``LocalProvider.add_tool`` a finished
``Tool``: fastmcp has inferred its schemas by then, so patching ``add_tool`` saves nothing and
the hook only adds its own work (a published server of 47 such tools started ~10% slower hooked
than plain, docs/fastpath-run.md). Here ``from_function`` itself takes the inferred parts from
the generated entry: fastmcp's own ``from_function`` runs, with every option and check, but the
``ParsedFunction`` it asks for is made from the entry (its input and output schemas) and from
the function (its name and docstring, parsed by fastmcp's own parser) instead of inferred, and
the tool is an instance of a subclass of the class asked for that infers ``fn`` and
``return_type`` on its first call, as ``GeneratedFunctionTool`` does.

Only where that is surely the same tool: a plain function or bound method (not a partial, a
callable object or a staticmethod, whose names and docstrings fastmcp reads elsewhere), with a
current entry of flavor ``"fastmcp"`` under the name the tool gets (``name=``, else
``metadata.name``, else the function's; a function carrying fastmcp's decorator metadata is
left alone) — checked again on the built tool. Anything else, a stale or missing entry
included, is fastmcp's ``from_function`` unchanged and says nothing: the tool then reaches
``add_tool`` built and is registered as before this patch existed.

Imported only by the fastmcp patch, so it may import fastmcp.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import Any

from fastmcp.tools import function_parsing
from fastmcp.tools.function_parsing import ParsedFunction
from fastmcp.tools.function_tool import FunctionTool

from mcp_codegen.runtime._hook.fastmcp_tool import GeneratedFunctionTool

_MARK = "__mcp_codegen_original__"
_PENDING = threading.local()  # (fn, entry): the ParsedFunction the current build takes
_SUBCLASSES: dict[type, type] = {}


def install(index_of: Callable[[], Any]) -> bool:
    """Patch ``FunctionTool.from_function`` and ``ParsedFunction.from_function`` (once);
    False, and nothing patched, for a fastmcp without the parts this reads."""
    built = FunctionTool.__dict__.get("from_function")
    parsed = ParsedFunction.__dict__.get("from_function")
    parse_docstring = getattr(function_parsing, "parse_docstring", None)
    if not (isinstance(built, classmethod) and isinstance(parsed, classmethod)):
        return False
    if parse_docstring is None or getattr(built.__func__, _MARK, None) is not None:
        return False
    build = built.__func__
    parse = parsed.__func__

    def from_function(cls: type, fn: Any, *args: Any, **kwargs: Any) -> Any:
        entry = _entry(index_of, fn, args, kwargs)
        if entry is None:
            return build(cls, fn, *args, **kwargs)
        _PENDING.value = (fn, entry)
        try:
            tool = build(_listed_class(cls), fn, **kwargs)
        finally:
            _PENDING.value = None
        if tool.name != entry["name"]:  # a name this module did not foresee: fastmcp's way
            return build(cls, fn, **kwargs)
        tool._source_fn = fn
        return tool

    def parsed_from_function(cls: type, fn: Any, *args: Any, **kwargs: Any) -> Any:
        pending = getattr(_PENDING, "value", None)
        if pending is None or pending[0] is not fn or args or kwargs or cls is not ParsedFunction:
            return parse(cls, fn, *args, **kwargs)
        _PENDING.value = None
        entry = pending[1]
        output_schema = entry.get("outputSchema")
        return ParsedFunction(
            fn=fn,
            name=fn.__name__,
            description=parse_docstring(fn).description,
            input_schema=dict(entry["inputSchema"]),
            output_schema=dict(output_schema) if output_schema is not None else None,
        )

    for function, original in ((from_function, build), (parsed_from_function, parse)):
        setattr(function, _MARK, original)
        function.__doc__ = original.__doc__
    FunctionTool.from_function = classmethod(from_function)  # type: ignore[method-assign,assignment]
    ParsedFunction.from_function = classmethod(parsed_from_function)  # type: ignore[method-assign,assignment]
    return True


def _entry(
    index_of: Callable[[], Any], fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any] | None:
    index = index_of()
    if index is None or args or not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        return None
    # fastmcp is optional
    from fastmcp.decorators import get_fastmcp_meta

    if get_fastmcp_meta(fn) is not None:  # its metadata may name it: fastmcp decides
        return None
    metadata = kwargs.get("metadata")
    name = kwargs.get("name") or getattr(metadata, "name", None) or fn.__name__
    if not isinstance(name, str):
        return None
    return index.current_entry(fn, name, "fastmcp")  # type: ignore[no-any-return]


def _listed_class(cls: type) -> type:
    """``cls`` itself when it already infers on first call, else a subclass of it that does
    (named as ``cls``; its own methods, ``convert_result`` say, still run)."""
    if issubclass(cls, GeneratedFunctionTool):
        return cls
    if cls is FunctionTool:
        return GeneratedFunctionTool
    found = _SUBCLASSES.get(cls)
    if found is None:
        namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        found = _SUBCLASSES[cls] = type(cls.__name__, (GeneratedFunctionTool, cls), namespace)
    return found
