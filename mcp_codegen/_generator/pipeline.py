"""The one module that knows the stage order: sources -> scan -> inspect -> assemble -> render ->
write.

Stages overlap in time but not in data: worker processes scan, inspect, assemble, render and
check each source in turn (``mcp_codegen._generator.render.module_output``), so the per-module work is
spread over the cores; this process collects the rendered modules as they arrive, takes unchanged
ones from the build cache, and does only what spans modules (name clashes, the manifest, the
server records) and the writing.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from mcp_codegen._generator.cache.store import BuildCache, UnreadableEntry
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.discover import (
    discover_sources,
    load_source,
    may_define_tools,
    read_sources,
)
from mcp_codegen._generator.model import (
    InspectedModule,
    ModuleDefinition,
    RenderedFile,
    ScannedModule,
    SourceFile,
    ToolDefinition,
    WriteReport,
)
from mcp_codegen._generator.progress import Progress
from mcp_codegen._generator.workers.prestart import WORKER_HASH_SEED
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import SERVER_KEY, module_path

#: From this many modules to inspect, the workers also render them (``module_output``). A lone
#: module (an edit, a save in watch mode) is rendered here: its worker then need not import the
#: renderer on the critical path, which this process imports anyway for the manifest. (At 5
#: modules, rendering here or in the workers measured the same CPU within noise.)
RENDER_IN_WORKERS_FROM = 2


@dataclass(frozen=True)
class BuildResult:
    files: tuple[RenderedFile, ...] = ()
    tool_count: int = 0
    #: The assembled modules (not kept by the build cache: a cached build has only its files).
    definitions: tuple[ModuleDefinition, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    #: The project files the build read, relative to the root: sources and every project file
    #: they imported (what ``mcp-codegen watch`` watches; empty without the build cache).
    inputs: tuple[str, ...] = ()
    #: The files this build rendered and checked to be literal-only modules (files taken from
    #: the cache were not, so writing them checks them again).
    verified: frozenset[str] = frozenset()
    #: The modules assembled by this build (not taken from the cache), even when
    #: ``definitions`` is empty: what ``mcp-codegen watch`` compares tools with.
    rebuilt: tuple[ModuleDefinition, ...] = ()

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")


def _by_source(
    registrations: list[Any], sources: list[SourceFile], scanned_by: dict[str, ScannedModule]
) -> dict[str, list[Any]]:
    """The registrations each source's cache entry keeps (``registrations.attributed``)."""
    from mcp_codegen._generator.inspection.registrations import attributed, registers_at_import

    imported_alone = {}
    for source in sources:
        module = scanned_by.get(source.relative_path)
        if module.inspectable if module is not None else registers_at_import(source.data):
            imported_alone[os.path.realpath(source.path)] = source.relative_path
    return attributed(registrations, imported_alone)


def _project_dirs(config: Config, sources: list[SourceFile]) -> list[str]:
    """The project root and each source's top-level package directory: code the project owns."""
    found = {str(config.root)}
    for source in sources:
        top = os.path.join(source.import_root, source.module.split(".")[0])
        if os.path.isdir(top):
            found.add(top)
    return sorted(found)


def _named(config: Config) -> frozenset[str]:
    """The modules ``run_targets`` and ``factories`` name: their servers are the project's."""
    return frozenset(
        entry.partition(":")[0].strip() for entry in (*config.run_targets, *config.factories)
    )


def _has_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> bool:
    return any(d.severity == "error" for d in diagnostics)


def _sorted(diagnostics: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    return tuple(sorted(set(diagnostics)))


def build(
    config: Config,
    *,
    use_cache: bool = True,
    hash_seed: str = WORKER_HASH_SEED,
    progress: Progress | None = None,
) -> BuildResult:
    """Run every stage up to rendering, in memory. Returns diagnostics instead of raising.

    With ``use_cache``, an unchanged project (see ``mcp_codegen._generator.cache.store``) reuses the last build.
    ``hash_seed`` is the workers' ``PYTHONHASHSEED`` (another one only to probe for changes).
    ``progress`` hears of each module as it is done.
    """
    progress = progress or Progress(sys.stderr, enabled=False)
    try:
        return _build(config, use_cache, hash_seed, progress)
    finally:
        progress.close()


def _build(config: Config, use_cache: bool, hash_seed: str, progress: Progress) -> BuildResult:
    diagnostics: list[Diagnostic] = []
    files, problems = discover_sources(config)
    contents, unreadable = read_sources(files, config)
    diagnostics.extend([*problems, *unreadable])
    stored = use_cache and hash_seed == WORKER_HASH_SEED and not diagnostics
    cache = BuildCache(config, contents) if stored else None
    if cache is not None and isinstance(cached := cache.load(), BuildResult):
        warned = replace(
            cached,
            verified=frozenset(),
            diagnostics=_sorted([*cached.diagnostics, *cache.finish()]),
        )
        return _with_target_checks(warned, config)
    # Imported here, not at the top: a cache hit must not pay for the worker machinery.
    from mcp_codegen._generator.workers.pool import InspectSession

    sources = [
        source
        for path, data in contents.items()
        if may_define_tools(source := load_source(path, config, data), config.decorators)
    ]
    #: relative path -> (definition, or a function that reads it from the cache; rendered file;
    #: tool count; defines factory tools)
    built: dict[str, tuple[Any, RenderedFile | None, int, bool]] = {}
    inspected_by: dict[str, InspectedModule] = {}
    scanned_by: dict[str, ScannedModule] = {}
    dependencies: dict[str, str | None] = {}
    complete = True  # every module's dependencies are known: the build may be stored

    def record_scan(module: ScannedModule) -> None:
        scanned_by[module.relative_path] = module
        diagnostics.extend(module.diagnostics)

    checked: set[str] = set()  # files rendered and checked to be literal-only here
    unrendered: dict[str, tuple[ModuleDefinition, RenderedFile | None, list[Diagnostic]]] = {}

    def assemble_and_render(inspected: InspectedModule, render_key: str | None = None) -> None:
        """A module's output made here: a stored inspection, or one a worker could not render."""
        from mcp_codegen._generator.render.module_output import module_output

        done = module_output(inspected, config)
        accept(inspected, done.definition, done.rendered, list(done.problems), render_key)
        if done.checked and done.rendered is not None:
            checked.add(done.rendered.relative_path)

    def take_output(inspected: InspectedModule, output: tuple[Any, ...]) -> None:
        """A module's output as its worker made it (``mcp_codegen._generator.render.module_output``),
        checked here to be literal-only: the worker ran user code, this process writes."""
        tools, rendered, problems = output
        module = inspected.module
        problems = list(problems)
        if rendered is not None and (
            not isinstance(rendered, RenderedFile)
            or rendered.relative_path != module_path(module.module)
        ):  # never written where the module's own name does not say
            where = getattr(rendered, "relative_path", type(rendered).__name__)
            problems.append(
                Diagnostic(
                    module.relative_path,
                    1,
                    1,
                    f"internal error: the worker rendered this module as {where!r}; "
                    "nothing was written; please report this",
                )
            )
            rendered = None
        if rendered is not None:
            found = unsafe(rendered)
            problems.extend(found)
            if not found:
                checked.add(rendered.relative_path)
        accept(inspected, ModuleDefinition(source=module, tools=tuple(tools)), rendered, problems)

    def accept(
        inspected: InspectedModule,
        definition: ModuleDefinition,
        rendered: RenderedFile | None,
        problems: list[Diagnostic],
        render_key: str | None = None,
    ) -> None:
        key = inspected.module.relative_path
        inspected_by[key] = inspected
        if cache is not None and render_key is not None:
            cache.store_rendered(render_key, definition, rendered, problems)
        elif cache is not None:  # stored once its inputs are known (``record_done``)
            unrendered[key] = (definition, rendered, problems)
        finish_module(key, definition, rendered, problems)

    def finish_module(
        key: str,
        definition: ModuleDefinition,
        rendered: RenderedFile | None,
        problems: list[Diagnostic],
    ) -> None:
        diagnostics.extend(problems)
        factory = any("factory" in tool.extra for tool in definition.tools)
        built[key] = (definition, rendered, len(definition.tools), factory)
        progress.module_done(len(definition.tools))

    def record_done(
        source: SourceFile, module: ScannedModule | None, imported: list[tuple[str, str | None]]
    ) -> None:
        nonlocal complete
        if source.relative_path not in inspected_by:
            progress.module_done(0)
        if cache is None:
            return
        found = cache.store_module(source, module, inspected_by.get(source.relative_path), imported)
        if found is None:
            complete = False
            return
        dependencies.update(found)
        if (done := unrendered.pop(source.relative_path, None)) is not None:
            cache.store_rendered(cache.render_key(source, found), *done)

    # Modules whose inputs are unchanged come from the cache; the others go to the workers,
    # which start on them while this process assembles (or takes from the cache) the rest.
    progress.start(len(sources))
    misses: list[SourceFile] = []
    misses_late: list[SourceFile] = []
    hits = []
    for source in sources:
        hit = cache.load_module(source) if cache is not None else None
        if hit is None:
            misses.append(source)
        else:
            hits.append((source, hit))
    session = None
    registrations: list[Any] = []  # what real servers registered in the workers (omissions)
    if misses:
        # Workers scan each source, import and inspect it, then assemble, render and check its
        # module; this process only collects the texts. The biggest sources go first, so the
        # last ones handed out are short and no worker idles long at the end.
        misses.sort(key=lambda source: -len(source.data))
        session = InspectSession(
            config,
            on_scanned=record_scan,
            on_result=assemble_and_render,
            hash_seed=hash_seed,
            on_done=record_done,
            workers=len(misses),
            on_output=take_output if len(misses) >= RENDER_IN_WORKERS_FROM else None,
            inspections=cache is not None,
        )
    from mcp_codegen._generator.write.output import unsafe  # once the workers are starting

    try:
        if session is not None:
            session.start(misses)
            session.wait_for_scans()
        # Imported once the scans are in: this overlaps the inspect workers' work.
        from mcp_codegen._generator.assemble.finalize import duplicate_names
        from mcp_codegen._generator.inspection.omissions import omissions

        if session is not None and session.on_output is None:  # this process renders the module
            from mcp_codegen._generator.render.modules import prepare_module_template

            prepare_module_template()
        for source, (read_scan, read_inspected, found) in hits:
            try:
                module = read_scan()
            except UnreadableEntry:  # a foreign pickle under a valid checksum (warned)
                misses_late.append(source)
                continue
            dependencies.update(found)
            registrations.extend(cache.stored_registrations(source))  # type: ignore[union-attr]
            if module is not None:
                record_scan(module)
            if module is None or not module.inspectable or cache is None:
                progress.module_done(0)
                continue
            render_key = cache.render_key(source, found)
            if (stored := cache.load_rendered(render_key, source)) is not None:
                diagnostics.extend(stored.problems)
                built[source.relative_path] = (
                    stored.definition,
                    stored.rendered,
                    stored.tool_count,
                    stored.factory,
                )
                progress.module_done(stored.tool_count)
            elif (inspected := read_inspected()) is not None:
                assemble_and_render(inspected, render_key)
            else:  # unreadable after all: inspected again
                misses_late.append(source)
        if session is not None:
            session.wait()
    finally:
        if session is not None:
            registrations.extend(session.registrations())
            session.close()
    if misses_late:  # stored scans or inspections that could not be read after all
        session = InspectSession(
            config,
            on_scanned=record_scan,
            on_result=assemble_and_render,
            hash_seed=hash_seed,
            on_done=record_done,
            on_output=take_output,
            inspections=cache is not None,
        )
        try:
            session.run(misses_late)
        finally:
            registrations.extend(session.registrations())
            session.close()
    scanned = [m for s in sources if (m := scanned_by.get(s.relative_path)) is not None]
    if cache is not None:
        cache.store_registrations(_by_source(registrations, sources, scanned_by))
    # Pruned once, at the end: by ``store_build``, or by ``failed`` (a build that is not stored).
    cache_warnings = cache.finish(prune=False) if cache is not None else []

    def failed(found: list[Diagnostic]) -> BuildResult:
        if cache is not None:
            cache.finish()
        return BuildResult(diagnostics=_sorted(found))

    diagnostics.extend(cache_warnings)

    # framework flavors: names are unique per server, checked on the definitions below
    diagnostics.extend(duplicate_names(scanned, across_modules=config.flavor == "clean"))
    project_files = {os.path.realpath(f): config.relative(f) for f in files}
    diagnostics.extend(
        omissions(
            registrations,
            scanned,
            diagnostics,
            project_files,
            _project_dirs(config, sources),
            _named(config),
        )
    )
    diagnostics.extend(_unused_factories(config, scanned))
    if not scanned and not _has_errors(diagnostics):
        diagnostics.append(
            Diagnostic(
                config.relative(config.config_file),
                0,
                0,
                f"the sources ({len(files)} .py files) define no tools decorated with any of "
                f"{', '.join(config.decorators)}; check `sources` and `decorators` in "
                "[tool.mcp-codegen]",
            )
        )
    if _has_errors(diagnostics):
        return failed(diagnostics)
    done = [built[m.relative_path] for m in scanned if m.relative_path in built]
    # Definitions taken from the cache are read only when factory tools' names must be compared.
    if config.flavor != "clean" or any(factory for *_, factory in done):
        done = [(_definition(d), rendered, n, f) for d, rendered, n, f in done]
    definitions = tuple(d for d, *_ in done if isinstance(d, ModuleDefinition))
    if len(definitions) < len(done):
        definitions = ()  # like a whole cached build: ``--vary-hash-seed`` builds afresh
    if clashes := _name_clashes(list(definitions), per_server=config.flavor != "clean"):
        return failed([*diagnostics, *clashes])
    tool_count = sum(n for _, _, n, _ in done)
    modules = [rendered for _, rendered, _, _ in done if rendered is not None]
    extra: list[RenderedFile] = []  # generated files the manifest does not list as modules
    if config.flavor != "clean":  # the fast path of `mcp-codegen run` (framework servers)
        from mcp_codegen._generator.render.modules import render_servers
        from mcp_codegen._generator.workers.server_records import record_servers

        servers, notes, probed = record_servers(config, [_definition(d) for d, *_ in done])
        diagnostics.extend(notes)
        if probed is None:
            complete = False
        elif cache is not None:  # a run target's module changed: the records must be taken again
            dependencies.update(cache.hashes.classify(probed))
        if servers is not None:
            extra.append(render_servers(servers, config))
    # The manifest changes only with the list of modules and the configuration: taken from the
    # cache, an edit's build neither renders it nor reads the installed versions it records.
    manifest = cache.load_manifest(modules) if cache is not None else None
    rendered_now = manifest is None
    if manifest is None:
        from mcp_codegen._generator.render.modules import render_manifest

        manifest = render_manifest(modules, config)
    if cache is not None and (late := cache.finish(prune=False)):  # a bad stored manifest
        diagnostics.extend(late)
        cache_warnings.extend(late)
    if problems := unsafe(manifest):  # a stored one too: the cache directory is writable
        return failed([*diagnostics, *problems])
    if cache is not None and rendered_now:
        cache.store_manifest(modules, manifest)
    result = BuildResult(
        inputs=tuple(sorted(k.partition(":")[2] for k in dependencies if k.startswith("file:"))),
        files=(*modules, *extra, manifest),
        tool_count=tool_count,
        definitions=definitions,
        diagnostics=_sorted(diagnostics),
        verified=frozenset([*checked, manifest.relative_path]),
        rebuilt=tuple(
            built[m.relative_path][0]
            for m in scanned
            if m.relative_path in inspected_by and m.relative_path in built
        ),
    )
    if cache is not None and complete:
        kept = tuple(d for d in result.diagnostics if d not in cache_warnings)
        cache.store_build(
            replace(result, definitions=(), rebuilt=(), diagnostics=kept), dependencies
        )
    elif cache is not None:
        cache.finish()  # pruned
    return _with_target_checks(result, config)


def _definition(value: Any) -> ModuleDefinition:
    return value if isinstance(value, ModuleDefinition) else value()


def _unused_factories(config: Config, scanned: list[ScannedModule]) -> list[Diagnostic]:
    """A ``factories`` entry that defines none of the scanned tools is a mistake in the config."""
    used = {tool.factory for module in scanned for tool in module.tools}
    return [
        Diagnostic(
            config.relative(config.config_file),
            0,
            0,
            f"factories: {call} defines no tool found in `sources` (no tool decorator inside "
            "that function); add the factory's file to `sources`, or remove the entry",
        )
        for call in config.factories
        if call.strip() not in used
    ]


def _name_clashes(definitions: list[ModuleDefinition], *, per_server: bool) -> list[Diagnostic]:
    """Tool names known only after the build must be unique too: names chosen by factory
    servers, and in the framework flavors every name across modules (``duplicate_names``
    checked the names written in source before, within each module).

    ``per_server``: a name may repeat on different servers (a composed package: fastmcp
    ``mount`` / ``import_server``, several SDK servers), each keyed by ``x-codegen.server`` or
    its factory call; a tool whose server is unknown (no key) clashes with every other."""
    seen: dict[str, list[tuple[ModuleDefinition, ToolDefinition]]] = {}
    clashes = []
    for definition in definitions:
        for tool in definition.tools:
            earlier = seen.setdefault(tool.name, [])
            other = next(
                (
                    (d, t)
                    for d, t in earlier
                    if _clash(tool, t, per_server) and d.source is not definition.source
                ),
                None,
            )
            earlier.append((definition, tool))
            if other is None:
                continue
            where = other[0].source.relative_path
            server = _server_of(tool)
            on = f" on server {server}" if per_server and server is not None else ""
            hint = (
                "change the factory's arguments in `factories` or one of the names"
                if "factory" in tool.extra or "factory" in other[1].extra
                else "pass a distinct name= to one of them"
            )
            clashes.append(
                Diagnostic(
                    definition.source.relative_path,
                    tool.position.line,
                    tool.position.column,
                    f"duplicate tool name {tool.name!r}{on}: also generated at {where}:"
                    f"{other[1].position.line}:{other[1].position.column}; {hint}",
                )
            )
    return clashes


def _server_of(tool: ToolDefinition) -> str | None:
    key = tool.extra.get("factory") or tool.extra.get(SERVER_KEY)
    return key if isinstance(key, str) else None


def _clash(tool: ToolDefinition, other: ToolDefinition, per_server: bool) -> bool:
    if not per_server:  # clean: one flat list; source names were checked before
        return "factory" in tool.extra or "factory" in other.extra
    mine, theirs = _server_of(tool), _server_of(other)
    return mine is None or theirs is None or mine == theirs


def _with_target_checks(result: BuildResult, config: Config) -> BuildResult:
    """Add problems with the output directory as it is now (never cached: the disk changes)."""
    from mcp_codegen._generator.write.output import target_problems

    problems = target_problems(list(result.files), config.output, config.relative(config.output))
    if not problems:
        return result
    return replace(result, diagnostics=_sorted([*result.diagnostics, *problems]))


def generate(
    config: Config, *, use_cache: bool = True, progress: Progress | None = None
) -> tuple[BuildResult, WriteReport | None]:
    """Build, then write only if the whole build succeeded."""
    result = build(config, use_cache=use_cache, progress=progress)
    if result.errors:
        return result, None
    from mcp_codegen._generator.write.output import apply

    return result, apply(list(result.files), config.output, verified=result.verified)


def check(
    config: Config, *, use_cache: bool = True, progress: Progress | None = None
) -> tuple[BuildResult, WriteReport | None]:
    """Build and compare with the output directory; writes nothing (but the build cache)."""
    result = build(config, use_cache=use_cache, progress=progress)
    if result.errors:
        return result, None
    from mcp_codegen._generator.write.output import compare

    return result, compare(list(result.files), config.output)
