"""What the imported servers actually register (worker process only): the no-silent-omission check.

The scanner reads registrations from source; a form it does not understand (a helper that
registers in a loop, a computed function, a decorator it was not told about) would otherwise
leave a tool out of the generated modules without a word. So while the worker imports user
modules, every framework's tool store is watched: each tool a real server registers is
recorded with its name, the function behind it and the user-code frames of the call. The
generator (``mcp_codegen.generator.pipeline``) then checks every recorded tool against what it
generated and reports each one it neither generated nor reported, at the registration.

Watched stores (whichever of them are installed; a framework is patched when it is imported):
SDK 2.x ``MCPServer`` and SDK 1.x ``FastMCP`` (``ToolManager.add_tool``), fastmcp 2.x
(``ToolManager.add_tool``) and fastmcp 3.x/4.x (``LocalProvider.add_tool``).
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from types import FrameType, ModuleType
from typing import Any

from mcp_codegen.registration.import_patch import patch_now_or_on_import

#: module -> (class name, framework) whose ``add_tool`` is watched
_STORES: dict[str, tuple[str, str]] = {
    "mcp.server.mcpserver.tools.tool_manager": ("ToolManager", "mcp"),
    "mcp.server.fastmcp.tools.tool_manager": ("ToolManager", "mcp1"),
    "fastmcp.tools.tool_manager": ("ToolManager", "fastmcp"),
    "fastmcp.server.providers.local_provider.decorators.tools": ("ToolDecoratorMixin", "fastmcp"),
    "fastmcp.server.providers.local_provider": ("LocalProvider", "fastmcp"),
}
_MARK = "__codegen_watched__"
_FRAMES_KEPT = 12


@dataclass(frozen=True)
class Registration:
    """One tool a real server registered while user modules were imported."""

    name: str
    framework: str
    #: user-code frames of the registering call, innermost first: (absolute file, line, column)
    frames: tuple[tuple[str, int, int], ...]
    function_file: str | None  # where the registered function is defined (unwrapped)
    function_line: int | None
    function_qualname: str | None
    #: the name this very function object was registered under first in another server's
    #: store, when this registration copies that tool (fastmcp 3.x ``import_server``): a
    #: composition the framework renames, not a name computed at run time
    copy_of: str | None = None


_recorded: list[Registration] = []
#: id(registered function) -> (the function, the name and the store it was first registered in)
_first_names: dict[int, tuple[Any, str, Any]] = {}
#: (real path of the defining file, __qualname__) -> the functions real servers registered:
#: how the worker reaches a tool defined inside a method or held by an object
_functions: dict[tuple[str, str], list[Any]] = {}
#: (real path, line, column) of each user-code frame of a registering call -> the functions
#: registered there, as the server received them (a bound method stays bound): how the worker
#: reaches the function of ``mcp.tool()(obj.method)`` or ``mcp.add_tool(imported)``
_by_site: dict[tuple[str, int, int], list[tuple[str, Any]]] = {}
_active = 0


def registered_at(path: str, line: int, column: int) -> list[tuple[str, Any]]:
    """``(tool name, function)`` of each tool real servers registered at import by the call at
    ``path:line:column`` (1-based column of the call's first character)."""
    return list(_by_site.get((os.path.realpath(path), line, column), []))


def registered_function(path: str, qualname: str) -> Any:
    """The function a real server registered at import whose ``def`` is ``qualname`` in the
    file ``path`` (unwrapped), when exactly one was; else None."""
    found = _functions.get((os.path.realpath(path), qualname), [])
    return found[0] if len(found) == 1 else None


@contextmanager
def recording() -> Iterator[None]:
    """Record registrations made inside this block (user modules being imported)."""
    global _active
    _active += 1
    try:
        yield
    finally:
        _active -= 1


def recorded() -> list[Registration]:
    """Everything recorded so far in this process."""
    return list(_recorded)


def recorded_count() -> int:
    """How many registrations were recorded so far (a mark for ``forget_since``)."""
    return len(_recorded)


def forget_since(count: int) -> None:
    """Drop what was recorded after the mark ``count``: an import that a build without a
    split session would not have made (``mcp_codegen.generator.workers.ahead``)."""
    del _recorded[count:]


def watch() -> None:
    """Watch the tool stores of every framework, now if imported, else when it is imported."""
    patch_now_or_on_import(_WATCHED)


def _patch(name: str, module: ModuleType) -> None:
    class_name, framework = _STORES[name]
    owner = getattr(module, class_name, None)
    original = getattr(owner, "add_tool", None) if owner is not None else None
    if original is None or getattr(original, _MARK, False):
        return
    # Only the class that defines add_tool is patched (LocalProvider inherits the mixin's).
    if "add_tool" not in vars(owner):
        return

    def add_tool(self: Any, *args: Any, **kwargs: Any) -> Any:
        tool = original(self, *args, **kwargs)
        if _active:
            _record(tool, framework, self)
        return tool

    setattr(add_tool, _MARK, True)
    add_tool.__wrapped__ = original  # type: ignore[attr-defined]
    owner.add_tool = add_tool  # type: ignore[union-attr]


_WATCHED = dict.fromkeys(_STORES, _patch)


def _record(tool: Any, framework: str, store: Any = None) -> None:
    name = getattr(tool, "name", None)
    if not isinstance(name, str):
        return
    function = getattr(tool, "fn", None)
    file = line = qualname = copy_of = None
    if function is not None:  # a copy is the same function, renamed, in another server's store
        first = _first_names.setdefault(id(function), (function, name, store))
        if first[0] is function and first[1] != name and first[2] is not store:
            copy_of = first[1]
    if callable(function):
        target = getattr(function, "__func__", function)  # a bound method
        with suppress(ValueError):
            target = inspect.unwrap(target)
        code = getattr(getattr(target, "__func__", target), "__code__", None)
        if code is not None:
            file, line = os.path.abspath(code.co_filename), code.co_firstlineno
        qualname = getattr(target, "__qualname__", None)
        if file is not None and isinstance(qualname, str):
            received = getattr(function, "__func__", function)
            _functions.setdefault((os.path.realpath(file), qualname), []).append(received)
    frames = _user_frames(sys._getframe(2))
    if callable(function):
        # A call site counts only while its own module's body runs (imported by whoever): a
        # call in a method that another module's import calls depends on which module this
        # worker imported first, so it would make the output depend on the worker layout.
        running = _running_modules(sys._getframe(2))
        for frame_file, frame_line, frame_column in frames:
            site = (os.path.realpath(frame_file), frame_line, frame_column)
            if site[0] in running:
                _by_site.setdefault(site, []).append((name, function))
    _recorded.append(Registration(name, framework, frames, file, line, qualname, copy_of))


def _running_modules(frame: FrameType | None) -> set[str]:
    """The real paths of the modules whose top-level code is on the stack."""
    running = set()
    while frame is not None:
        if frame.f_code.co_name == "<module>":
            running.add(os.path.realpath(frame.f_code.co_filename))
        frame = frame.f_back
    return running


def _library_dirs() -> tuple[str, ...]:
    import sysconfig

    import mcp_codegen

    # Directories end with a separator: a user package named ``mcp_clickhouse`` or
    # ``fastmcp_tools`` beside ``mcp`` / ``fastmcp`` in site-packages is not the framework.
    dirs = [os.path.dirname(os.path.abspath(mcp_codegen.__file__)) + os.sep]
    dirs += [os.path.abspath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib",)]
    for package in ("mcp", "fastmcp", "pydantic", "functools", "contextlib"):
        module = sys.modules.get(package)
        location = getattr(module, "__file__", None)
        if location:
            dirs.append(
                os.path.dirname(os.path.abspath(location)) + os.sep
                if location.endswith("__init__.py")
                else os.path.abspath(location)
            )
    return tuple(dirs)


def _user_frames(frame: FrameType | None) -> tuple[tuple[str, int, int], ...]:
    """The calling frames outside the frameworks and the import machinery, innermost first."""
    skip = _library_dirs()
    found: list[tuple[str, int, int]] = []
    while frame is not None and len(found) < _FRAMES_KEPT:
        code = frame.f_code
        file = code.co_filename
        if not file.startswith("<") and not os.path.abspath(file).startswith(skip):
            line, column = frame.f_lineno, 0
            positions = list(code.co_positions())
            index = frame.f_lasti // 2
            if 0 <= index < len(positions):
                start, _, col, _ = positions[index]
                if start is not None and col is not None:
                    line, column = start, col
            found.append((os.path.abspath(file), line, column + 1))
        frame = frame.f_back
    return tuple(found)
