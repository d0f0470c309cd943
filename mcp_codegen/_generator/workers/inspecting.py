"""An ``inspect`` or ``both`` worker's loop (``serve``): each source imported, each tool resolved,
described (``mcp_codegen._generator.schema``) or built by the framework (``flavors``), with where
its models are written, which server lists it and which function it registered.

Runs in: worker. An ``inspect`` or ``both`` worker imports it before the settings arrive
(``mcp_codegen._generator.workers.child.main``); a ``scan`` worker never does.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from mcp_codegen._generator.flavors import build_module_tools
from mcp_codegen._generator.flavors.server_keys import server_keys, unlisted_names
from mcp_codegen._generator.inspection.model_sources import SourceIndex, tool_models
from mcp_codegen._generator.inspection.output_guard import guard_output_package
from mcp_codegen._generator.inspection.registrations import (
    forget_since,
    function_location,
    recorded,
    recorded_count,
    recording,
    registers_at_import,
    watch,
)
from mcp_codegen._generator.inspection.resolve import ResolveFailure, import_module, resolve_tool
from mcp_codegen._generator.model import (
    InspectedTool,
    ScannedModule,
    ScannedTool,
    SourceFile,
)
from mcp_codegen._generator.scan.factory_reach import FactoryReach
from mcp_codegen._generator.schema.describe import describe_module, inspect_tool
from mcp_codegen._generator.workers.ahead import ImportAhead, ImportedAhead, import_ahead
from mcp_codegen._generator.workers.imports import ImportGraph
from mcp_codegen._generator.workers.messages import read_message, write_message
from mcp_codegen._generator.workers.scanning import factory_keys, scan_reporting
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import PRIVATE_KEY, SERVER_KEY, UNLISTED_KEY


def inspect_module(
    module: ScannedModule,
    injected: frozenset[str],
    permissive_fallback: bool,
    events: BinaryIO,
    flavor: str = "clean",
    root: str | None = None,
    places: tuple[Path, Path] | None = None,
    failure: Any = None,
    objects: list[Any] | None = None,
) -> tuple[ScannedModule, list[InspectedTool], list[Diagnostic]]:
    """Import and inspect one module; ``places``: the project root and the output directory
    (where server objects are looked for, to key each framework tool by its server);
    ``failure``: the ``ResolveFailure`` its import raised when it was imported ahead;
    ``objects`` gains what the schemas are built from (``ImportGraph.dependencies``). Returns
    the module too: a configured factory's call site that registers functions defined
    elsewhere becomes one tool per function (``flavors.factories.expand_call_sites``)."""
    try:
        if failure is not None:  # raised when it was imported ahead (``workers.ahead``)
            raise failure
        with recording(module.relative_path):
            loaded = import_module(module)
    except ResolveFailure as failed:
        return module, [], failed.diagnostics
    tools, diagnostics = [], []
    resolved_tools = []
    made = [tool for tool in module.tools if tool.factory is not None]
    if made:  # defined inside a configured factory: as the factory's server lists them
        # only for a configured factory (~12 ms, with the framework's server types)
        from mcp_codegen._generator.flavors.factories import build_factory_tools, expand_call_sites

        module = expand_call_sites(module)
        made = [tool for tool in module.tools if tool.factory is not None]
        tools, diagnostics = build_factory_tools(flavor, module, made)
    for tool in module.tools:
        if tool.factory is not None:
            continue
        _progress(events, module.relative_path)
        try:
            resolved = resolve_tool(module, loaded, tool)
            resolved_tools.append((tool, resolved))
            if objects is not None:
                objects.extend(_schema_inputs(resolved))
        except ResolveFailure as failure:
            diagnostics.extend(failure.diagnostics)
        except Exception as exc:
            diagnostics.append(_cannot_build(module, tool, exc))
    if flavor != "clean":  # flavors "mcp"/"fastmcp": the framework describes them, all at once
        framework_tools = [resolved for _, resolved in resolved_tools]
        if framework_tools:
            tools.extend(_framework_module(module, framework_tools, injected, flavor, diagnostics))
        if places is not None:
            _key_by_server(module, loaded, places, tools)
        _mark_unlisted(module, loaded, tools)
        tools = _with_models(tools, resolved_tools, root)
        return module, _with_registered_functions(module, tools, resolved_tools), diagnostics
    try:
        batch = describe_module(module, [resolved for _, resolved in resolved_tools], injected)
    except Exception:  # each tool is then described on its own, with its own diagnostics
        batch = None
    for tool, resolved in resolved_tools:
        _progress(events, module.relative_path)
        try:
            tools.append(inspect_tool(module, resolved, injected, permissive_fallback, batch))
        except ResolveFailure as failure:
            diagnostics.extend(failure.diagnostics)
        except Exception as exc:
            diagnostics.append(_cannot_build(module, tool, exc))
    tools = _with_models(tools, resolved_tools, root)
    return module, _with_registered_functions(module, tools, resolved_tools), diagnostics


def _schema_inputs(resolved: Any) -> list[Any]:
    """What a resolved tool's schemas are built from."""
    return [
        resolved.function,
        resolved.received,
        resolved.return_annotation,
        *((parameter.annotation, parameter.default) for parameter in resolved.parameters),
    ]


class RegistrationFiles:
    """The files of the code that registered a module's tools: of every registration made while
    its module body ran, and of those made while it was inspected outside any other project
    module's body (a package ``__init__`` calling a helper). Indexed as records arrive, since a
    worker holds thousands."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.by_body: dict[str, set[str]] = {}

    def __call__(self, module_file: str | None, since: int) -> list[str]:
        records = recorded()
        kept = len(self.seen)
        if len(records) < kept or (kept and records[kept - 1] is not self.seen[-1]):
            self.seen, self.by_body, kept = [], {}, 0  # some were forgotten: index again
        for record in records[kept:]:
            self.seen.append(record)
            for body in record.running:
                self.by_body.setdefault(os.path.realpath(body), set()).update(_files_of(record))
        own = os.path.realpath(module_file) if module_file else None
        files = set(self.by_body.get(own, ())) if own else set()
        for record in records[since:]:
            running = [os.path.realpath(f) for f in record.running]
            if all(f == own or os.path.basename(f) == "__init__.py" for f in running):
                files.update(_files_of(record))
        return sorted(files)


def _files_of(record: Any) -> set[str]:
    files = {f for f, _, _ in record.frames} | {f for f, _, _ in record.server or ()}
    files.update(record.running)
    if record.function_file:
        files.add(record.function_file)
    return files


def _with_registered_functions(
    module: ScannedModule, tools: list[InspectedTool], resolved_tools: list[tuple[Any, Any]]
) -> list[InspectedTool]:
    """Each registered tool (``ScannedTool.registered_at``) with the ``module:qualname`` of the
    function its server received, where the hook looks it up, and the digest of the file that
    defines it when that is another file (the hook's freshness check)."""
    found: dict[str, tuple[str, str | None]] = {}
    for tool, resolved in resolved_tools:
        if tool.registered_at is None:
            continue
        received = resolved.received if resolved.received is not None else resolved.function
        found[tool.name] = function_location(received, module.path)
    if not found:
        return tools
    return [
        replace(t, function=found[t.name][0], function_sha256=found[t.name][1])
        if t.name in found
        else t
        for t in tools
    ]


_source_index: Any = None  # one SourceIndex per worker: each models file parsed once


def source_index(root: str) -> Any:
    """This worker's ``SourceIndex`` for the project at ``root``."""
    global _source_index
    if (
        _source_index is None
        or _source_index.root != os.path.realpath(root).rstrip(os.sep) + os.sep
    ):
        _source_index = SourceIndex(root)
    return _source_index


def _with_models(
    tools: list[InspectedTool], resolved_tools: list[tuple[ScannedTool, Any]], root: str | None
) -> list[InspectedTool]:
    """Each tool with where the models of its schemas are written (its field lines for ``diff``)."""
    if root is None:
        return tools
    index = source_index(root)
    by_name = {tool.name: resolved for tool, resolved in resolved_tools}
    found = []
    for tool in tools:
        resolved = by_name.get(tool.name)
        if resolved is not None:
            annotations = [p.annotation for p in resolved.parameters]
            annotations.append(resolved.return_annotation)
            try:
                home = getattr(resolved.function, "__module__", None)
                models = tool_models(annotations, resolved.return_annotation, index, home)
            except Exception:  # a class that cannot be read: the tool keeps its own lines
                models = None
            if models is not None and models.models:
                tool = replace(tool, models=models)
        found.append(tool)
    return found


def _key_by_server(
    module: ScannedModule, loaded: Any, places: tuple[Path, Path], tools: list[InspectedTool]
) -> None:
    """Name each framework tool's server in its ``x-codegen`` keys (``flavors.server_keys``)."""
    keys = server_keys(module, loaded, *places)
    for tool in tools:
        server = keys.get(tool.name)
        if server is not None and tool.flavored is not None:
            tool.flavored[PRIVATE_KEY][SERVER_KEY] = server


def _mark_unlisted(module: ScannedModule, loaded: Any, tools: list[InspectedTool]) -> None:
    """``x-codegen.unlisted`` on each tool its server registers but does not list (removed at
    import): the hook still finds its entry, listings skip it (``flavors.server_keys``)."""
    unlisted = unlisted_names(module, loaded)
    for tool in tools:
        if tool.name in unlisted and tool.flavored is not None:
            tool.flavored[PRIVATE_KEY][UNLISTED_KEY] = True


_PROGRESS_EVERY_S = 0.1
_last_progress = 0.0


def _progress(events: BinaryIO, key: str) -> None:
    """Tell the generator this worker is alive (what ``import_timeout`` measures), at most every
    ``_PROGRESS_EVERY_S``: a message per tool would cost more than some tools do."""
    global _last_progress
    now = time.monotonic()
    if now - _last_progress >= _PROGRESS_EVERY_S:
        _last_progress = now
        write_message(events, ("progress", key))


def _cannot_build(module: ScannedModule, tool: ScannedTool, exc: Exception) -> Diagnostic:
    if isinstance(exc, RecursionError):
        message = f"the types of {tool.name!r} nest too deeply to describe"
    else:
        message = f"cannot build the schema of {tool.name!r}: {type(exc).__name__}: {exc}"
    return Diagnostic(module.relative_path, tool.position.line, tool.position.column, message)


def _framework_module(
    module: ScannedModule,
    resolved: list[Any],
    injected: frozenset[str],
    flavor: str,
    diagnostics: list[Diagnostic],
) -> list[InspectedTool]:
    """Flavors "mcp"/"fastmcp": the framework's own tools/list entry for each tool."""
    try:
        built, problems = build_module_tools(flavor, module, resolved, injected)
    except ImportError as exc:
        diagnostics.append(Diagnostic(module.relative_path, 1, 1, str(exc)))
        return []
    except Exception as exc:
        diagnostics.append(
            Diagnostic(
                module.relative_path,
                1,
                1,
                f"flavor {flavor!r} could not list the tools of {module.module}: "
                f"{type(exc).__name__}: {exc}",
            )
        )
        return []
    diagnostics.extend(problems)
    return [
        InspectedTool(
            name=name,
            input_schema=None,
            output_schema=None,
            description=None,
            parameter_descriptions={},
            flavored=flavored,
        )
        for name, flavored in built.items()
    ]


def preload(flavor: str) -> None:
    """Import the flavor's framework while the parent is still scanning (it costs ~1 s)."""
    if flavor == "clean":
        return
    try:  # the flavor's framework, imported only in a worker and only for that flavor
        if flavor == "mcp":
            from mcp_codegen._generator.flavors.mcp import new_server  # the SDK, in new_server
        else:
            from mcp_codegen._generator.flavors.fastmcp import new_server  # fastmcp, likewise
        new_server()
    except Exception:  # reported per module, with a position, when the module is built
        pass


def scan_source(
    source: SourceFile,
    decorators: list[str],
    factories: dict[str, dict[str, str]],
    reach: FactoryReach,
    root: str,
    framework: bool,
) -> ScannedModule | None:
    """``scan_reporting``, the source's ``ast`` tree offered to this worker's ``SourceIndex``."""

    def offer(tree: Any) -> None:
        source_index(root).offer(source.path, source.data, tree)

    return scan_reporting(source, decorators, factories, reach, on_tree=offer, framework=framework)


def serve(requests: BinaryIO, events: BinaryIO, role: str) -> None:
    """An ``inspect`` or ``both`` worker (``mcp_codegen._generator.workers.child.main``): the
    settings, then each source, until the generator sends ``None``."""
    watch()  # before any framework is imported (the flavor's preload, user modules)
    worker = _start(read_message(requests), role, events)
    write_message(events, ("ready",))
    while (request := read_message(requests)) is not None:
        worker.answer(request)
    # Every tool a real server registered while user modules were imported (no silent omission).
    write_message(events, ("registered", recorded()))
    write_message(events, ("finished",))
    events.close()


def _start(settings: dict[str, Any], role: str, events: BinaryIO) -> _Worker:
    """Apply the settings: the project's directories on ``sys.path``, the output guarded, the
    flavor's framework imported, then the import graph started (after the libraries: only user
    code is recorded)."""
    for entry in reversed(settings["sys_path"]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    if settings.get("output"):
        guard_output_package(Path(settings["output"]))
    preload(settings.get("flavor", "clean"))
    places = (
        (Path(settings["sys_path"][0]).resolve(), Path(settings["output"]).resolve())
        if settings.get("output") and settings.get("sys_path")
        else None
    )
    return _Worker(
        settings=settings,
        events=events,
        injected=frozenset(settings["injected"]),
        factories=factory_keys(settings.get("factories", [])) if role == "both" else {},
        places=places,
        graph=ImportGraph(settings["sys_path"]),
        registration_files=RegistrationFiles(),
    )


@dataclass
class _Worker:
    """What a worker keeps between sources: its settings and the state built from them."""

    settings: dict[str, Any]
    events: BinaryIO
    injected: frozenset[str]
    factories: dict[str, dict[str, str]]
    places: tuple[Path, Path] | None
    graph: ImportGraph
    registration_files: RegistrationFiles
    reach: FactoryReach = field(default_factory=FactoryReach)
    ahead: dict[str, ImportedAhead] = field(default_factory=dict)
    #: the last source's garbage is collected only if more work follows
    unsettled: bool = False

    def answer(self, request: Any) -> None:
        """One request: a source to import ahead, or one to scan (unless scanned) and inspect."""
        if self.unsettled:
            _settle_heap()
            self.unsettled = False
        if isinstance(request, ImportAhead):
            self.ahead[request.source.relative_path] = import_ahead(request.source)
            return
        source, scan = request if isinstance(request, tuple) else (request, None)
        key = source.relative_path
        imported_ahead = self.ahead.pop(key, None)
        write_message(self.events, ("start", key))
        if isinstance(request, tuple):  # scanned by a ``scan`` worker (the pool checked it)
            module = scan
        else:
            settings = self.settings
            module = scan_source(
                source,
                settings["decorators"],
                self.factories,
                self.reach,
                settings["sys_path"][0],
                settings["flavor"] != "clean",
            )
            write_message(self.events, ("scanned", key, module))
        self._inspect(source, module, imported_ahead)
        # Settled when the next request arrives: after the last source the generator waits
        # for "finished", and a collection then would only delay it.
        self.unsettled = True

    def _inspect(
        self, source: SourceFile, module: ScannedModule | None, ahead: ImportedAhead | None
    ) -> None:
        """Import and inspect ``module`` (when it has tools), then send its ``done`` message."""
        key, settings = source.relative_path, self.settings
        tools: list[InspectedTool] = []
        diagnostics: list[Diagnostic] = []
        before = set(ahead.modules_before if ahead else sys.modules)
        marked = ahead.registrations if ahead else recorded_count()
        objects: list[Any] = []
        if module is not None and module.inspectable:
            expanded, tools, diagnostics = inspect_module(
                module,
                self.injected,
                settings["permissive_fallback"],
                self.events,
                settings.get("flavor", "clean"),
                settings["sys_path"][0],
                self.places,
                ahead.failure if ahead else None,
                objects,
            )
            if expanded is not module:  # the generator assembles the module as expanded
                module = expanded
                write_message(self.events, ("expanded", key, module))
        elif module is None and registers_at_import(source.data):
            if ahead is None:  # else imported already, registrations recorded
                import_ahead(source)  # as the inspection would; a failure registers nothing
        elif ahead is not None:  # imported, but a build without the split would not
            forget_since(ahead.registrations)
        imported: list[tuple[str, str | None]] = []
        if module is not None and module.inspectable:
            module_file = getattr(sys.modules.get(source.module), "__file__", None)
            imported = self.graph.dependencies(
                source.module,
                set(sys.modules) - before,
                objects,
                self.registration_files(module_file, marked),
            )
        write_message(self.events, ("done", key, tools, diagnostics, imported))


def _settle_heap() -> None:
    """Collect what the last source left behind, then freeze what survived (``gc.freeze``).

    A worker's heap is mostly libraries and user modules that live until it exits, and every
    source builds thousands of short-lived objects (a libcst tree, pydantic's schema passes).
    With CPython's default thresholds the automatic collections walked that growing heap over
    and over: ~25% of a worker's CPU on the synthetic 10,000-tool project. Instead, young
    collections are rare (``mcp_codegen._generator.collector``, so code that makes cyclic garbage in
    a loop is still collected) and after each source one full collection walks only the
    objects made since the last freeze. Frozen objects are still freed by reference counting;
    only a cycle among them that becomes garbage later stays until the worker exits.
    Collection never changes what a worker computes, only when memory comes back.
    """
    gc.collect()
    gc.freeze()
