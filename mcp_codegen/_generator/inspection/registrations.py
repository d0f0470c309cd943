"""What the imported servers actually register (worker process only): the no-silent-omission check.

The scanner reads registrations from source; a form it does not understand (a helper that
registers in a loop, a computed function, a decorator it was not told about) would otherwise
leave a tool out of the generated modules without a word. So while the worker imports user
modules, every framework's tool store is watched: each tool a real server registers is
recorded with its name, the function behind it and the user-code frames of the call. The
generator (``mcp_codegen._generator.pipeline``) then checks every recorded tool against what it
generated and reports each one it neither generated nor reported, at the registration.

Watched stores (whichever of them are installed; a framework is patched when it is imported):
SDK 2.x ``MCPServer`` and SDK 1.x ``FastMCP`` (``ToolManager.add_tool``), fastmcp 2.x
(``ToolManager.add_tool``) and fastmcp 3.x/4.x (``LocalProvider.add_tool``). Each store's
creation is watched too (its ``__init__``): a record says which code created the server it
lands on, so the generator counts only the project's own servers, not those of another
installed package that a project module imports (``Registration.server``).

Tools that no registration makes are watched where their source is attached: a provider added
to a fastmcp 3.x/4.x server (``AggregateProvider.add_provider``, which ``FastMCP(providers=...)``
and ``from_openapi`` call), and a fastmcp 2.x ``FastMCPOpenAPI`` / ``FastMCPProxy`` created. Each
is one record with ``provider`` set (``mcp_codegen._registration.providers`` says which count).

Each record also says which module bodies were running and which source the worker was
processing: the build cache stores each record with a source, so that a build answered from
the cache checks the same registrations as a build that imports everything (``attributed``).
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from mcp_codegen._generator.discover import may_attach_providers
from mcp_codegen._registration.import_patch import patch_now_or_on_import
from mcp_codegen._registration.own_servers import FRAMES_KEPT, creation, user_frames
from mcp_codegen._registration.providers import tool_providers
from mcp_codegen._shared.format import source_digest
from mcp_codegen._shared.frames import frame_position

#: module -> (class name, framework) whose ``add_tool`` is watched
_STORES: dict[str, tuple[str, str]] = {
    "mcp.server.mcpserver.tools.tool_manager": ("ToolManager", "mcp"),
    "mcp.server.fastmcp.tools.tool_manager": ("ToolManager", "mcp1"),
    "fastmcp.tools.tool_manager": ("ToolManager", "fastmcp"),
    "fastmcp.server.providers.local_provider.decorators.tools": ("ToolDecoratorMixin", "fastmcp"),
    "fastmcp.server.providers.local_provider": ("LocalProvider", "fastmcp"),
}
_MARK = "__codegen_watched__"


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
    #: the code that created the server this tool lands on (``own_servers.Creation``); None
    #: when the store's creation was not seen (counted as the project's: never a silent omission)
    server: tuple[tuple[str, bool, str], ...] | None = None
    #: the absolute files of the module bodies running at the registration, innermost first
    running: tuple[str, ...] = ()
    #: the source (relative path) the worker was importing when this was recorded
    source: str | None = None
    #: the configured factory call (``factories``) whose call made this registration: the
    #: generated tree has the tool from that call, and a registration an import makes at the
    #: same call site under the same name is the same tool (``omissions``)
    factory: str | None = None
    #: the registered function's ``__name__`` (as registered, wrappers kept): the tool's name
    #: when the registration took it from there (``fn.__name__ = ...`` is a name set at run time)
    function_name: str | None = None
    #: set when this record is no tool but a provider attached to a server, whose tools no
    #: registration makes (``_registration.providers``): the provider's class name (``name`` is
    #: then empty and ``frames`` are where it was attached)
    provider: str | None = None

    def relocated(self, move: Callable[[str], str]) -> Registration:
        """This record with every file path passed through ``move`` (the build cache stores
        them relative to the project root, so a restored cache works in another checkout)."""
        return replace(
            self,
            frames=tuple((move(f), line, column) for f, line, column in self.frames),
            function_file=move(self.function_file) if self.function_file else None,
            server=None
            if self.server is None
            else tuple((move(f), body, name) for f, body, name in self.server),
            running=tuple(move(f) for f in self.running),
        )


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
_source: str | None = None  # the source being imported (``recording``)
#: id(store) -> (the store, its creation chain, see ``Registration.server``)
_created: dict[int, tuple[Any, tuple[tuple[str, bool, str], ...]]] = {}


def registered_at(path: str, line: int, column: int) -> list[tuple[str, Any]]:
    """``(tool name, function)`` of each tool real servers registered at import by the call at
    ``path:line:column`` (1-based column of the call's first character)."""
    return list(_by_site.get((os.path.realpath(path), line, column), []))


def function_location(received: Any, module_path: str) -> tuple[str, str | None]:
    """``module:qualname`` of a function a server received (where the hook looks it up), and
    the digest of the file defining it when that is not ``module_path`` (the hook's freshness
    check for a function defined elsewhere), else None."""
    owner = getattr(received, "__module__", None) or ""
    digest = None
    defining = getattr(sys.modules.get(owner), "__file__", None)
    if isinstance(defining, str) and Path(defining).resolve() != Path(module_path).resolve():
        try:
            digest = source_digest(Path(defining).read_bytes())
        except OSError:
            digest = None
    return f"{owner}:{getattr(received, '__qualname__', '')}", digest


def registered_function(path: str, qualname: str) -> Any:
    """The function a real server registered at import whose ``def`` is ``qualname`` in the
    file ``path`` (unwrapped), when exactly one was; else None."""
    found = _functions.get((os.path.realpath(path), qualname), [])
    return found[0] if len(found) == 1 else None


@contextmanager
def recording(source: str | None = None) -> Iterator[None]:
    """Record registrations made inside this block (user modules being imported; ``source``:
    the relative path of the source whose import this is)."""
    global _active, _source
    _active += 1
    outer, _source = _source, source if source is not None else _source
    try:
        yield
    finally:
        _active -= 1
        _source = outer


def recorded() -> list[Registration]:
    """Everything recorded so far in this process."""
    return list(_recorded)


def recorded_count() -> int:
    """How many registrations were recorded so far (a mark for ``forget_since``)."""
    return len(_recorded)


def made_by_factory(count: int, factory: str, source: str) -> None:
    """Mark what was recorded after the mark ``count`` as made by the call of ``factory`` while
    the worker inspected ``source`` (where the build cache keeps the records)."""
    _recorded[count:] = [
        replace(record, factory=factory, source=source) for record in _recorded[count:]
    ]


def forget_since(count: int) -> None:
    """Drop what was recorded after the mark ``count``: an import that a build without a
    split session would not have made (``mcp_codegen._generator.workers.ahead``)."""
    del _recorded[count:]


def watch() -> None:
    """Watch the tool stores of every framework, now if imported, else when it is imported."""
    patch_now_or_on_import(_WATCHED)


def _patch(name: str, module: ModuleType) -> None:
    class_name, framework = _STORES[name]
    owner = getattr(module, class_name, None)
    if owner is not None and "__init__" in vars(owner):
        _watch_creation(owner)
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


def _watch_creation(owner: Any) -> None:
    """Record which code creates each store of ``owner`` (each server's)."""
    original = owner.__init__
    if getattr(original, _MARK, False):
        return

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        # The store is kept alive with its record: an id is never reused for another store.
        _created[id(self)] = (self, creation(sys._getframe(1)))

    setattr(__init__, _MARK, True)
    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    owner.__init__ = __init__


#: module -> class whose ``add_provider`` (fastmcp 3.x and later) or ``__init__`` (the fastmcp
#: 2.x server classes of ``providers.SERVER_CLASSES``) is watched for tools no registration makes
_PROVIDER_HOSTS: dict[str, str] = {
    "fastmcp.server.providers.aggregate": "AggregateProvider",
    "fastmcp.server.openapi": "FastMCPOpenAPI",
    "fastmcp.server.openapi.server": "FastMCPOpenAPI",
    "fastmcp.server.proxy": "FastMCPProxy",
}


def _patch_provider_host(name: str, module: ModuleType) -> None:
    owner = getattr(module, _PROVIDER_HOSTS[name], None)
    method = "add_provider" if name.endswith(".aggregate") else "__init__"
    original = vars(owner).get(method) if isinstance(owner, type) else None
    if original is None or getattr(original, _MARK, False):
        return

    def add_provider(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        # the server's own store was created first: its creation says whose server this is
        local = getattr(self, "_local_provider", None)
        if _active and local is not None:
            provider = args[0] if args else kwargs.get("provider")
            for kind in tool_providers(provider, into_servers=False):
                _record_provider(kind, local)
        return result

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if _active and not hasattr(self, "_local_provider"):  # 3.x: seen at add_provider
            _record_provider(type(self).__name__, getattr(self, "_tool_manager", None))

    patched = add_provider if method == "add_provider" else __init__
    setattr(patched, _MARK, True)
    patched.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(owner, method, patched)


def _creation_of(store: Any) -> tuple[tuple[str, bool, str], ...] | None:
    """The creation chain of ``store`` (``Registration.server``), when its creation was seen."""
    created = _created.get(id(store))
    return created[1] if created is not None and created[0] is store else None


def _record_provider(kind: str, store: Any) -> None:
    """One record of a tool-building provider ``kind`` attached to the server of ``store``."""
    server = _creation_of(store)
    frames = _user_frames(sys._getframe(2))
    bodies = _running_modules(sys._getframe(2))
    _recorded.append(
        Registration(
            "", "fastmcp", frames, None, None, None, None, server, bodies, _source, provider=kind
        )
    )


_WATCHED = {
    **dict.fromkeys(_STORES, _patch),
    **dict.fromkeys(_PROVIDER_HOSTS, _patch_provider_host),
}


def _record(tool: Any, framework: str, store: Any = None) -> None:
    name = getattr(tool, "name", None)
    if not isinstance(name, str):
        return
    function = getattr(tool, "fn", None)
    file = line = qualname = copy_of = function_name = None
    if function is not None:  # a copy is the same function, renamed, in another server's store
        first = _first_names.setdefault(id(function), (function, name, store))
        # renamed as compositions name their copies (fastmcp's ``import_server``: prefix_name);
        # the same function registered on another server under any other name is the user's
        if first[0] is function and first[2] is not store and name.endswith(f"_{first[1]}"):
            copy_of = first[1]
    if callable(function):
        received = target = getattr(function, "__func__", function)  # a bound method
        with suppress(ValueError):
            target = inspect.unwrap(target)
        code = getattr(getattr(target, "__func__", target), "__code__", None)
        if code is not None:
            file, line = os.path.abspath(code.co_filename), code.co_firstlineno
        qualname = getattr(target, "__qualname__", None)
        # the registered object's own (the framework reads it there, not behind its wrappers)
        function_name = getattr(received, "__name__", None)
        if file is not None and isinstance(qualname, str):
            _functions.setdefault((os.path.realpath(file), qualname), []).append(received)
    frames = _user_frames(sys._getframe(2))
    bodies = _running_modules(sys._getframe(2))
    if callable(function):
        # A call site counts only while its own module's body runs (imported by whoever): a
        # call in a method that another module's import calls depends on which module this
        # worker imported first, so it would make the output depend on the worker layout.
        running = {os.path.realpath(body) for body in bodies}
        for frame_file, frame_line, frame_column in frames:
            site = (os.path.realpath(frame_file), frame_line, frame_column)
            if site[0] in running:
                _by_site.setdefault(site, []).append((name, function))
    server = _creation_of(store)
    _recorded.append(
        Registration(
            name,
            framework,
            frames,
            file,
            line,
            qualname,
            copy_of,
            server,
            bodies,
            _source,
            function_name=function_name if isinstance(function_name, str) else None,
        )
    )


def _running_modules(frame: FrameType | None) -> tuple[str, ...]:
    """The absolute paths of the modules whose top-level code is on the stack, innermost first."""
    running: list[str] = []
    while frame is not None:
        if frame.f_code.co_name == "<module>" and not frame.f_code.co_filename.startswith("<"):
            running.append(os.path.abspath(frame.f_code.co_filename))
        frame = frame.f_back
    return tuple(running)


_REGISTERS = re.compile(rb"\.(?:add_)?tool\b")


def registers_at_import(data: bytes) -> bool:
    """A module without tools the scanner could read, that may still register some at import
    (``register = mcp.tool()``, ``adder = mcp.add_tool``) or attach a provider whose tools no
    registration makes (``FastMCP.from_openapi(...)``): it is imported so the tools its servers
    register are checked (``mcp_codegen._generator.inspection.omissions``)."""
    return _REGISTERS.search(data) is not None or may_attach_providers(data)


def attributed(
    records: Iterable[Registration], imported_alone: Mapping[str, str]
) -> dict[str, list[Registration]]:
    """Each record under the source whose cache entry keeps it: the innermost running module
    body among ``imported_alone`` (real path -> relative path of each source that a build
    imports whenever it redoes it), else the source the worker was importing. Whichever
    worker imported a module first, a record lands with the same source, and that source's
    entry depends on every file the record's code came from."""
    found: dict[str, list[Registration]] = {}
    for record in records:
        owner = next(
            (
                imported_alone[real]
                for body in record.running
                if (real := os.path.realpath(body)) in imported_alone
            ),
            record.source,
        )
        if owner is not None:
            found.setdefault(owner, []).append(record)
    return found


def _user_frames(frame: FrameType | None) -> tuple[tuple[str, int, int], ...]:
    """The calling frames outside the frameworks and the import machinery, innermost first."""
    found: list[tuple[str, int, int]] = []
    for user, file in islice(user_frames(frame), FRAMES_KEPT):
        line, column = frame_position(user)
        found.append((file, line, column + 1))
    return tuple(found)
