"""The one module that knows the stage order: sources -> scan -> inspect -> assemble -> render ->
write, as a ``BuildSession`` that the one-shot commands run once and ``watch`` and the daemon run
on every save or request.

Over 600 lines: the stage order and what each stage hands the next are one decision, kept in one
place (the session, the record of each module, and one build's stages as methods).

Stages overlap in time but not in data: worker processes scan and inspect each source in turn;
this process assembles, renders and checks each inspection as it arrives
(``mcp_codegen._generator.render.module_output``), takes unchanged modules from the build cache,
and does what spans modules (name clashes, the manifest, the server records) and the writing.
Each module's outcome is one ``ModuleBuild`` record; each stage of one build is one method of
``_Build``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mcp_codegen._generator.cache.store import BuildCache, UnreadableEntry
from mcp_codegen._generator.cache.stored_entries import CacheTiers
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.cross_module import (
    name_clashes,
    named_modules,
    project_dirs,
    registrations_by_source,
    unused_factories,
)
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
    WriteReport,
)
from mcp_codegen._generator.progress import Progress
from mcp_codegen._generator.workers.prestart import WORKER_HASH_SEED, WarmWorkers, worker_count
from mcp_codegen._generator.write.output import apply, compare, target_problems, unsafe
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.distributions import installed_sdk1

if TYPE_CHECKING:
    from mcp_codegen._generator.workers.pool import InspectSession
    from mcp_codegen._generator.workers.server_records import ServerProbes


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


@dataclass(frozen=True, slots=True)
class ModuleBuild:
    """One module's outcome in one build: assembled here from its inspection, or taken from the
    build cache (then ``inspection`` is ``None`` and its definition is read only on demand)."""

    source: SourceFile
    scan: ScannedModule | None
    #: this build's inspection (a worker's, or a stored one assembled again); ``None`` when the
    #: rendered output was taken from the cache
    inspection: InspectedModule | None
    #: the assembled module, or ``None`` when only ``read_stored_definition`` can give it
    definition: ModuleDefinition | None
    #: a cached module's definition, unpickled only when factory tools' names must be compared
    read_stored_definition: Callable[[], ModuleDefinition] | None
    rendered: RenderedFile | None
    tool_count: int
    #: has tools defined by a factory (their names are checked across modules)
    factory: bool
    problems: tuple[Diagnostic, ...]
    #: ``(module, file)`` keys of what the module's import read, once known (the cache's)
    dependencies: Mapping[str, str | None] | None = None

    def assembled(self) -> ModuleDefinition:
        """The definition, read from the cache if it was not assembled by this build."""
        if self.definition is not None:
            return self.definition
        assert self.read_stored_definition is not None
        return self.read_stored_definition()


@dataclass(frozen=True, slots=True)
class _CachedModule:
    """A module whose inputs are unchanged: readers of its stored scan and inspection."""

    source: SourceFile
    read_scan: Callable[[], ScannedModule | None]
    read_inspection: Callable[[], InspectedModule | None]
    dependencies: dict[str, str | None]


class BuildSession:
    """Builds of one project: the configuration, the build cache and its tiers, and the worker
    processes.

    The one-shot commands run it once; ``mcp-codegen watch`` and the build daemon keep one and
    run it on every save or request. ``hash_seed`` is the workers' ``PYTHONHASHSEED`` (another
    one only to probe for changes, always without the cache). ``warm``: workers started before
    the session (``prestart.start_early``), adopted: its builds take them, and ``keep_warm``
    starts the next ones there; ``close`` stops those no build took. ``tiers``: the cache tiers
    over the disk that every build of the session uses (``CacheTiers``: watch and the daemon
    keep entries in memory; by default a fresh one that keeps none), adopted like ``warm``.
    """

    def __init__(
        self,
        config: Config,
        *,
        use_cache: bool = True,
        hash_seed: str = WORKER_HASH_SEED,
        warm: WarmWorkers | None = None,
        tiers: CacheTiers | None = None,
    ) -> None:
        self.config = config
        self.use_cache = use_cache
        self.hash_seed = hash_seed
        self.warm = warm
        self.tiers = CacheTiers() if tiers is None else tiers
        self.builds = 0

    def keep_warm(self, count: int = 1) -> None:
        """Have ``count`` fresh workers waiting for the next build (``watch``, the daemon): a
        worker that imported user code ends with its build, so each build needs new ones."""
        if self.warm is None:
            self.warm = WarmWorkers(self.config.root, cached=self.use_cache)
        self.warm.keep(count)

    def close(self) -> None:
        """Stop the warm workers that no build took."""
        if self.warm is not None:
            self.warm.stop()

    @contextlib.contextmanager
    def deferred_writes(self) -> Iterator[None]:
        """The cache entries the builds inside put are written when it ends (also by an
        exception), after the caller has answered (``CacheTiers.deferred_writes``)."""
        with self.tiers.deferred_writes():
            yield

    def reconfigure(self, config: Config, *, use_cache: bool = True) -> None:
        """Build ``config`` from now on (a watched configuration was saved, a daemon request)."""
        self.config = config
        self.use_cache = use_cache

    def build(self, progress: Progress | None = None) -> BuildResult:
        """Run every stage up to rendering, in memory. Returns diagnostics instead of raising.

        With the cache, an unchanged project (see ``mcp_codegen._generator.cache.store``) reuses
        the last build. ``progress`` hears of each module as it is done.
        """
        progress = progress or Progress(sys.stderr, enabled=False)
        try:
            return _Build(self, progress).run()
        finally:
            self.builds += 1
            progress.close()

    def generate(self, progress: Progress | None = None) -> tuple[BuildResult, WriteReport | None]:
        """Build, then write only if the whole build succeeded."""
        result = self.build(progress)
        if result.errors:
            return result, None
        return result, apply(list(result.files), self.config.output, verified=result.verified)

    def check(self, progress: Progress | None = None) -> tuple[BuildResult, WriteReport | None]:
        """Build and compare with the output directory; writes nothing (but the build cache)."""
        result = self.build(progress)
        if result.errors:
            return result, None
        return result, compare(list(result.files), self.config.output)


class _Build:
    """One build of a session: its stages, in order, and what they have found so far."""

    def __init__(self, session: BuildSession, progress: Progress) -> None:
        self.config = session.config
        self.warm = session.warm
        self.hash_seed = session.hash_seed
        self.use_cache = session.use_cache
        self.tiers = session.tiers
        self.progress = progress
        self.cache: BuildCache | None = None
        self.files: list[Any] = []
        self.contents: dict[Any, bytes] = {}
        self.sources: list[SourceFile] = []
        self.by_path: dict[str, SourceFile] = {}
        self.diagnostics: list[Diagnostic] = []
        self.modules: dict[str, ModuleBuild] = {}  # relative path -> outcome
        self.scanned_by: dict[str, ScannedModule] = {}
        self.dependencies: dict[str, str | None] = {}
        self.registrations: list[Any] = []  # what real servers registered in the workers
        #: the registered names of the tools kept with the framework (``FRAMEWORK_MARKER``)
        self.kept_names: frozenset[str] = frozenset()
        self.checked: set[str] = set()  # files rendered and checked to be literal-only here
        #: modules assembled before their dependencies were known: stored once they are
        self.awaiting_inputs: set[str] = set()
        self.inspect_again: list[SourceFile] = []  # stored entries unreadable after all
        self.complete = True  # every module's dependencies are known: the build may be stored
        self.cache_warnings: list[Diagnostic] = []
        #: framework flavors: the server probes, started with the workers (fewer misses than
        #: cores) or else once the scans are in, and told what to import then
        self.probes: ServerProbes | None = None
        self.awaiting_scans: set[str] | None = None

    def run(self) -> BuildResult:
        try:
            return self.stages()
        finally:
            if self.probes is not None:  # a failed build's: not waited for
                self.probes.cancel()

    def stages(self) -> BuildResult:
        if (whole := self.read()) is not None:
            return whole
        cached, misses = self.take_cache_entries()
        self.inspect_misses(misses, cached)
        if self.inspect_again:
            self.inspect_in_workers(self.inspect_again)
        scanned = self.scanned_in_source_order()
        self.cross_module_checks(scanned)
        if _has_errors(self.diagnostics):
            return self.failed(self.diagnostics)
        done = [self.modules[m.relative_path] for m in scanned if m.relative_path in self.modules]
        definitions = self.definitions(done)
        if clashes := name_clashes(list(definitions), per_server=self.config.flavor != "clean"):
            return self.failed([*self.diagnostics, *clashes])
        modules = [m.rendered for m in done if m.rendered is not None]
        extra = self.server_records(done)
        manifest = self.manifest(modules)
        if isinstance(manifest, BuildResult):  # failed
            return manifest
        result = BuildResult(
            inputs=tuple(
                sorted(k.partition(":")[2] for k in self.dependencies if k[:5] == "file:")
            ),
            files=(*modules, *extra, manifest),
            tool_count=sum(m.tool_count for m in done),
            definitions=definitions,
            diagnostics=_sorted(self.diagnostics),
            verified=frozenset([*self.checked, manifest.relative_path]),
            rebuilt=tuple(
                self.modules[m.relative_path].assembled()
                for m in scanned
                if m.relative_path in self.modules
                and self.modules[m.relative_path].inspection is not None
            ),
        )
        self.store(result)
        return _with_target_checks(result, self.config)

    # -- reading the sources, and the whole build from the cache --------------------------------

    def read(self) -> BuildResult | None:
        """Discover and read the sources; the whole build when the cache has it."""
        config = self.config
        self.files, problems = discover_sources(config)
        self.contents, unreadable = read_sources(self.files, config)
        self.diagnostics.extend([*problems, *unreadable])
        stored = self.use_cache and self.hash_seed == WORKER_HASH_SEED and not self.diagnostics
        cache = self.cache = BuildCache(config, self.contents, self.tiers) if stored else None
        if cache is not None and isinstance(cached := cache.load(), BuildResult):
            warned = replace(
                cached,
                verified=frozenset(),
                diagnostics=_sorted([*cached.diagnostics, *cache.finish()]),
            )
            return _with_target_checks(warned, config)
        self.sources = [
            source
            for path, data in self.contents.items()
            if may_define_tools(source := load_source(path, config, data), config.decorators)
        ]
        self.by_path = {source.relative_path: source for source in self.sources}
        return None

    def take_cache_entries(self) -> tuple[list[_CachedModule], list[SourceFile]]:
        """Modules whose inputs are unchanged (their entries, not yet read) and the others."""
        self.progress.start(len(self.sources))
        cached: list[_CachedModule] = []
        misses: list[SourceFile] = []
        for source in self.sources:
            hit = self.cache.load_module(source) if self.cache is not None else None
            if hit is None:
                misses.append(source)
            else:
                cached.append(_CachedModule(source, *hit))
        return cached, misses

    # -- the modules: from the workers, or from the cache meanwhile -----------------------------

    def inspect_misses(self, misses: list[SourceFile], cached: list[_CachedModule]) -> None:
        """The workers start on the misses while this process takes the cached modules.

        The biggest sources go first, so the last ones handed out are short and no worker idles
        long at the end."""
        misses.sort(key=lambda source: -len(source.data))
        workers = self.start_workers(misses) if misses else None
        if misses and self.records_servers() and len(misses) < worker_count():
            # Imported here: only the framework flavors record servers (a clean build never does).
            from mcp_codegen._generator.workers.server_records import ServerProbes

            # On a core the workers leave idle, they import the SDK while the scans run (~1 s
            # each). Beside as many workers as cores they only slowed them: 1.05-1.11x
            # (bench/results/2026-12-07-cold-small-builds.md); those start after the scans.
            self.probes = ServerProbes(self.config)
        try:
            if workers is not None:
                workers.start(misses)
                workers.wait_for_scans()
                # Imported once the scans are in: this overlaps the inspect workers' work.
                from mcp_codegen._generator.render.modules import prepare_module_template

                prepare_module_template()
            for entry in cached:
                self.take_cached(entry)
            if workers is not None:
                self.awaiting_scans = {s.relative_path for s in misses} - set(self.scanned_by)
                self.start_server_probes()
                workers.wait()
        finally:
            if workers is not None:
                self.registrations.extend(workers.registrations())
                workers.close()

    def inspect_in_workers(self, sources: list[SourceFile]) -> None:
        """Scan and inspect ``sources`` in workers, start to end (rendered here)."""
        workers = self.start_workers(sources, capped=False)
        try:
            workers.run(sources)
        finally:
            self.registrations.extend(workers.registrations())
            workers.close()

    def start_workers(self, sources: list[SourceFile], *, capped: bool = True) -> InspectSession:
        # Imported here, not at the top: a cache hit must not pay for the worker machinery.
        from mcp_codegen._generator.workers.pool import InspectSession

        return InspectSession(
            self.config,
            on_scanned=self.record_scan,
            on_result=self.assemble_and_render,
            hash_seed=self.hash_seed,
            on_done=self.record_done,
            workers=len(sources) if capped else None,
            warm=self.warm,
            cached=self.use_cache,
        )

    def take_cached(self, entry: _CachedModule) -> None:
        """A module whose inputs are unchanged: its stored rendering, else its stored inspection
        assembled here, else (an entry unreadable after all) inspected again."""
        cache, source = self.cache, entry.source
        assert cache is not None
        try:
            module = entry.read_scan()
        except UnreadableEntry:  # a foreign pickle under a valid checksum (warned)
            self.inspect_again.append(source)
            return
        self.dependencies.update(entry.dependencies)
        self.registrations.extend(cache.stored_registrations(source))
        if module is not None:
            self.record_scan(module)
        if module is None or not module.inspectable:
            self.progress.module_done(0)
            return
        render_key = cache.render_key(source, entry.dependencies)
        if (stored := cache.load_rendered(render_key, source)) is not None:
            self.diagnostics.extend(stored.problems)
            self.modules[source.relative_path] = ModuleBuild(
                source=source,
                scan=module,
                inspection=None,
                definition=None,
                read_stored_definition=stored.definition,
                rendered=stored.rendered,
                tool_count=stored.tool_count,
                factory=stored.factory,
                problems=tuple(stored.problems),
                dependencies=entry.dependencies,
            )
            self.progress.module_done(stored.tool_count)
        elif (inspected := entry.read_inspection()) is not None:
            self.assemble_and_render(inspected, render_key)
        else:  # unreadable after all: inspected again
            self.inspect_again.append(source)

    def scanned_in_source_order(self) -> list[ScannedModule]:
        """The scans this build has, in the sources' order (the order of the outputs)."""
        return [m for s in self.sources if (m := self.scanned_by.get(s.relative_path))]

    def record_scan(self, module: ScannedModule) -> None:
        self.scanned_by[module.relative_path] = module
        self.diagnostics.extend(module.diagnostics)
        if self.awaiting_scans:
            self.awaiting_scans.discard(module.relative_path)
            self.start_server_probes()

    def assemble_and_render(
        self, inspected: InspectedModule, render_key: str | None = None
    ) -> None:
        """A module's output, made here from its inspection (a worker's, or a stored one): the
        workers ran user code, this process renders and checks what it writes."""
        # Imported here: the renderer and its templates are not needed by a cache hit.
        from mcp_codegen._generator.render.module_output import module_output

        done = module_output(inspected, self.config)
        self.accept(inspected, done.definition, done.rendered, list(done.problems), render_key)
        if done.checked and done.rendered is not None:
            self.checked.add(done.rendered.relative_path)

    def accept(
        self,
        inspected: InspectedModule,
        definition: ModuleDefinition,
        rendered: RenderedFile | None,
        problems: list[Diagnostic],
        render_key: str | None = None,
    ) -> None:
        """Record a module assembled by this build; store its rendering once its key is known."""
        key = inspected.module.relative_path
        if self.cache is not None and render_key is not None:
            self.cache.store_rendered(render_key, definition, rendered, problems)
        elif self.cache is not None:  # stored once its inputs are known (``record_done``)
            self.awaiting_inputs.add(key)
        self.diagnostics.extend(problems)
        self.modules[key] = ModuleBuild(
            source=self.by_path[key],
            scan=inspected.module,
            inspection=inspected,
            definition=definition,
            read_stored_definition=None,
            rendered=rendered,
            tool_count=len(definition.tools),
            factory=any("factory" in tool.extra for tool in definition.tools),
            problems=tuple(problems),
        )
        self.progress.module_done(len(definition.tools))

    def record_done(
        self,
        source: SourceFile,
        module: ScannedModule | None,
        imported: list[tuple[str, str | None]],
    ) -> None:
        """A worker is done with ``source``: its cache entry, now that its inputs are known."""
        key = source.relative_path
        outcome = self.modules.get(key)
        if outcome is None or outcome.inspection is None:
            self.progress.module_done(0)
        if self.cache is None:
            return
        inspection = outcome.inspection if outcome is not None else None
        found = self.cache.store_module(source, module, inspection, imported)
        if found is None:
            self.complete = False
            return
        self.dependencies.update(found)
        if outcome is not None:
            self.modules[key] = outcome = replace(outcome, dependencies=found)
        if key in self.awaiting_inputs and outcome is not None:
            self.awaiting_inputs.discard(key)
            self.cache.store_rendered(
                self.cache.render_key(source, found),
                outcome.assembled(),
                outcome.rendered,
                list(outcome.problems),
            )

    # -- what spans modules ---------------------------------------------------------------------

    def cross_module_checks(self, scanned: list[ScannedModule]) -> None:
        """Store the registrations, then check names, omissions, factories and that any tool
        was found at all."""
        # Imported here, not at the top: a whole build taken from the cache needs neither.
        from mcp_codegen._generator.assemble.finalize import duplicate_names
        from mcp_codegen._generator.inspection.omissions import kept_names, omissions

        config, cache, diagnostics = self.config, self.cache, self.diagnostics
        if cache is not None:
            cache.store_registrations(
                registrations_by_source(self.registrations, self.sources, self.scanned_by)
            )
        # Pruned once, at the end: by ``store_build``, or by ``failed`` (a build not stored).
        self.cache_warnings = cache.finish(prune=False) if cache is not None else []
        diagnostics.extend(self.cache_warnings)
        # framework flavors: names are unique per server, checked on the definitions later
        diagnostics.extend(duplicate_names(scanned, across_modules=config.flavor == "clean"))
        project_files = {os.path.realpath(f): config.relative(f) for f in self.files}
        diagnostics.extend(
            omissions(
                self.registrations,
                scanned,
                diagnostics,
                project_files,
                project_dirs(config, self.sources),
                named_modules(config),
            )
        )
        self.kept_names = kept_names(self.registrations, diagnostics, project_files)
        diagnostics.extend(unused_factories(config, scanned, self.contents))
        if not scanned and not _has_errors(diagnostics):
            diagnostics.append(
                Diagnostic(
                    config.relative(config.config_file),
                    0,
                    0,
                    f"the sources ({len(self.files)} .py files) define no tools decorated with "
                    f"any of {', '.join(config.decorators)}; check `sources` and `decorators` "
                    "in [tool.mcp-codegen]",
                )
            )

    def definitions(self, done: list[ModuleBuild]) -> tuple[ModuleDefinition, ...]:
        """The assembled modules, read from the cache only when factory tools' names (or, in
        the framework flavors, all names) must be compared; none when some were not read, as
        for a whole cached build (``--vary-hash-seed`` then builds afresh)."""
        if self.config.flavor != "clean" or any(m.factory for m in done):
            return tuple(m.assembled() for m in done)
        definitions = tuple(m.definition for m in done if m.definition is not None)
        return definitions if len(definitions) == len(done) else ()

    def records_servers(self) -> bool:
        """Whether the build records its servers' openings: a framework flavor's, with the MCP
        SDK 2.x (a 1.x SDK cannot open a server the way the fast path answers)."""
        return self.config.flavor != "clean" and installed_sdk1() is None

    def server_records(self, done: list[ModuleBuild]) -> list[RenderedFile]:
        """The framework flavors' server records: the fast path of ``mcp-codegen run``."""
        if self.config.flavor == "clean":
            return []
        if (version := installed_sdk1()) is not None:
            where = self.config.relative(self.config.config_file)
            self.diagnostics.append(
                Diagnostic(
                    where,
                    0,
                    0,
                    f"no server records are written: the stdio fast path of `mcp-codegen run` "
                    f"answers as the MCP SDK 2.x does, and mcp {version} is installed (`run` "
                    "serves through the framework)",
                    severity="warning" if self.config.run_targets else "info",
                )
            )
            return []
        # Imported here: only the framework flavors record servers (a clean build never does).
        from mcp_codegen._generator.render.modules import render_servers
        from mcp_codegen._generator.workers.server_records import record_servers

        started, self.probes = self.probes, None
        servers, notes, probed = record_servers(
            self.config, [m.assembled() for m in done], started, self.kept_names
        )
        self.diagnostics.extend(notes)
        if probed is None:
            self.complete = False
        elif self.cache is not None:  # a run target's module changed: records taken again
            self.dependencies.update(self.cache.hashes.classify(probed))
        return [render_servers(servers, self.config)] if servers is not None else []

    def start_server_probes(self) -> None:
        """Framework flavors: tell the server probes (started now, or with the workers) the
        modules the scans predict will be built with tools, so they import them while the
        workers inspect (``record_servers`` probes again when the assembled modules differ). A
        probe takes about as long as a worker: each imports the framework and the tool
        modules."""
        if not self.records_servers() or self.awaiting_scans:
            return
        if self.probes is not None and self.probes.settings is not None:
            return
        # Imported here: only the framework flavors record servers (a clean build never does).
        from mcp_codegen._generator.workers.server_records import ServerProbes, probe_settings

        # a module already built (from the cache) as it is; a miss if its scan found tools
        built = [
            m
            for m in self.scanned_in_source_order()
            if m.relative_path in self.modules or m.inspectable
        ]
        with_tools = [
            m.module
            for m in built
            if (done := self.modules.get(m.relative_path)) is None or done.tool_count
        ]
        if with_tools:
            if self.probes is None:
                self.probes = ServerProbes(self.config)
            self.probes.send(probe_settings(self.config, built, with_tools))

    def manifest(self, modules: list[RenderedFile]) -> RenderedFile | BuildResult:
        """The manifest, or the failed build when it is not literal-only.

        It changes only with the list of modules and the configuration: taken from the cache,
        an edit's build neither renders it nor reads the installed versions it records."""
        cache = self.cache
        manifest = cache.load_manifest(modules) if cache is not None else None
        rendered_now = manifest is None
        if manifest is None:
            # Imported here: an edit's build takes the manifest from the cache, and no renderer.
            from mcp_codegen._generator.render.modules import render_manifest

            manifest = render_manifest(modules, self.config)
        if cache is not None and (late := cache.finish(prune=False)):  # a bad stored manifest
            self.diagnostics.extend(late)
            self.cache_warnings.extend(late)
        if problems := unsafe(manifest):  # a stored one too: the cache directory is writable
            return self.failed([*self.diagnostics, *problems])
        if cache is not None and rendered_now:
            cache.store_manifest(modules, manifest)
        return manifest

    def store(self, result: BuildResult) -> None:
        """Store the whole build when every module's inputs are known; prune either way."""
        cache = self.cache
        if cache is not None and self.complete:
            kept = tuple(d for d in result.diagnostics if d not in self.cache_warnings)
            cache.store_build(
                replace(result, definitions=(), rebuilt=(), diagnostics=kept), self.dependencies
            )
        elif cache is not None:
            cache.finish()  # pruned

    def failed(self, found: list[Diagnostic]) -> BuildResult:
        if self.cache is not None:
            self.cache.finish()
        return BuildResult(diagnostics=_sorted(found))


def _has_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> bool:
    return any(d.severity == "error" for d in diagnostics)


def _sorted(diagnostics: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    return tuple(sorted(set(diagnostics)))


def _with_target_checks(result: BuildResult, config: Config) -> BuildResult:
    """Add problems with the output directory as it is now (never cached: the disk changes)."""
    problems = target_problems(list(result.files), config.output, config.relative(config.output))
    if not problems:
        return result
    return replace(result, diagnostics=_sorted([*result.diagnostics, *problems]))


def build(
    config: Config,
    *,
    use_cache: bool = True,
    hash_seed: str = WORKER_HASH_SEED,
    progress: Progress | None = None,
    warm: WarmWorkers | None = None,
) -> BuildResult:
    """One build of a session made for it (``BuildSession.build``); ``warm`` stays the
    caller's to stop."""
    session = BuildSession(config, use_cache=use_cache, hash_seed=hash_seed, warm=warm)
    return session.build(progress)


def generate(
    config: Config, *, use_cache: bool = True, progress: Progress | None = None
) -> tuple[BuildResult, WriteReport | None]:
    """Build, then write only if the whole build succeeded (``BuildSession.generate``)."""
    return BuildSession(config, use_cache=use_cache).generate(progress)


def check(
    config: Config, *, use_cache: bool = True, progress: Progress | None = None
) -> tuple[BuildResult, WriteReport | None]:
    """Build and compare with the output directory (``BuildSession.check``)."""
    return BuildSession(config, use_cache=use_cache).check(progress)
