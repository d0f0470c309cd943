"""The build cache: the last build as a whole, and each source module's inspection on its own.

Four kinds of entries (``mcp_codegen._generator.cache.stored_entries``), all keyed without a
machine's paths:

- a **build** entry answers an unchanged project without libcst, pydantic, jinja2 or a worker.
  Its key covers the environment, every configuration value and every source file's content;
  it records the files and distributions the workers imported, and is used only while they are
  as recorded. It names the rendering and manifest entries that hold its generated files rather
  than holding their text (an edit's build writes a few kilobytes, not every generated file
  again: 2.9 MB at 1,000 tools), and is a miss when one of them has been pruned;
- a **module** entry holds what a worker found in one source (its scan, tools and diagnostics).
  Its key covers the environment, the configuration a worker is given (``settings_key``) and the
  source itself (path, import name, content), with the classes each configured factory's module
  imports from it (the scan reads them: ``scan.factory_reach``); it records every project file
  the module imported, transitively, as the worker saw it (``mcp_codegen._generator.workers.child``),
  and the installed distributions, and is used only while they are unchanged. The scan and the inspection are
  pickled apart and read only once the build has started the workers for the modules it redoes.
  It also holds the tools real servers registered while the module was imported
  (``registrations.attributed``): a module taken from the cache is not imported, and the
  no-silent-omission check must see what a build without the cache sees. So it is written
  once the build's workers are done (``store_registrations``);
- a **rendering** entry holds a module assembled and rendered, keyed on its module entry, its
  dependencies and every configuration value: configuration applied in this process
  (``box_field``, ``version``) re-renders from the module entry and never needs a worker;
- a **manifest** entry holds the rendered manifest (``generated/__init__.py``), keyed on all it
  is made of (the module paths, every configuration value, the environment and the inference
  libraries' versions): an edit that changes no module path renders it without jinja2.

A module with errors is never stored; any doubt is a miss.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from mcp_codegen._generator.cache.keys import (
    FileHashes,
    config_key,
    digest,
    environment_key,
    generator_digest_memo,
    installed_version,
    relative,
    settings_key,
)
from mcp_codegen._generator.cache.stored_entries import CacheTiers, EntryStore
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import (
    InspectedModule,
    ModuleDefinition,
    RenderedFile,
    ScannedModule,
    SourceFile,
)
from mcp_codegen._generator.project import CACHE_DIR
from mcp_codegen._generator.scan.factory_reach import FactoryReach
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import INFERENCE_DISTRIBUTIONS, MANIFEST, module_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # records arrive from the workers; the fast path never imports inspection
    from mcp_codegen._generator.inspection.registrations import Registration


class UnreadableEntry(Exception):
    """A stored scan that passed its entry's checksum but cannot be read (a foreign pickle)."""


@dataclass(frozen=True)
class StoredRendering:
    """A module's stored assembled and rendered output."""

    definition: Callable[[], ModuleDefinition]
    rendered: RenderedFile | None
    problems: list[Diagnostic]
    tool_count: int
    factory: bool  # has tools defined by a factory (their names are checked across modules)


def _located_nowhere(module: ScannedModule) -> ScannedModule:
    """``module`` without the fields that name where the checkout is: blanked in an entry, taken
    from this build's ``SourceFile`` when the entry is used (``SourceFile.location``)."""
    return replace(module, path="", import_root="")


class BuildCache:
    """The stored builds and modules of one project."""

    def __init__(
        self, config: Config, contents: Mapping[Path, bytes], tiers: CacheTiers | None = None
    ) -> None:
        """``contents``: every source file's bytes, in discovery order. ``tiers``: those of the
        build session (its memory tier, its deferred writes); without, a fresh one."""
        self.config = config
        self.store = EntryStore(
            config.root / CACHE_DIR, tiers=CacheTiers() if tiers is None else tiers
        )
        self.hashes = FileHashes(config)
        sources = []
        for path, data in contents.items():
            name = relative(path, config.root)
            self.hashes.remember(name, data)
            sources.append((name, self.hashes.of(name)))
        environment = environment_key(generator_digest_memo())
        self._module_base = (environment, settings_key(config))
        self._reach = FactoryReach()
        self._config_key = config_key(config)
        self._environment = environment
        self._reported = 0  # warnings returned by ``finish`` so far
        #: relative path -> (key, entry) of each module entry waiting for its registrations
        self._pending: dict[str, tuple[str, dict[str, Any]]] = {}
        #: relative path -> the registrations stored with each module entry this build read
        self._registrations: dict[str, list[Registration]] = {}
        #: relative path -> (key, file) of each rendered file this build read or wrote as an
        #: entry of its own: the build entry names those entries instead of holding the text
        self._file_entries: dict[str, tuple[str, RenderedFile]] = {}
        self.build_key = digest(("build", environment, self._config_key, sources))

    # -- whole builds -------------------------------------------------------------------------

    def load(self) -> Any | None:
        stored = self.store.get(self.build_key)
        try:
            if stored is None or not self.hashes.current(dict(stored["dependencies"])):
                return None
            files = [self._stored_file(file) for file in stored["files"]]
            if any(file is None for file in files):  # an entry it names was pruned
                return None
            return replace(stored["result"], files=tuple(files))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            self.store.warnings.append(
                f"the stored build was ignored: it holds {type(exc).__name__}: {exc}"
            )
            return None

    def _stored_file(self, file: object) -> RenderedFile | None:
        """A build entry's file: itself, or read from the module or manifest entry it names."""
        if isinstance(file, RenderedFile):
            return file
        relative_path, key = file  # type: ignore[misc]
        found = self.store.get(key)
        if found is None:
            return None
        if not isinstance(found, RenderedFile):  # a module's rendering: (..., rendered, ...)
            found = found[1]
        if not isinstance(found, RenderedFile) or found.relative_path != relative_path:
            raise TypeError(f"entry {key} does not hold {relative_path}")
        return found

    def store_build(self, result: Any, dependencies: Mapping[str, str | None]) -> None:
        """Store ``result``, naming the entries that hold its rendered files already: an edit's
        build writes a small entry, not every generated file again."""
        files = []
        for file in result.files:
            key, stored = self._file_entries.get(file.relative_path, (None, None))
            files.append((file.relative_path, key) if stored is file else file)
        self.store.put(
            self.build_key,
            {
                "dependencies": dict(dependencies),
                "files": files,
                "result": replace(result, files=()),
            },
        )
        self.store.prune()

    # -- the manifest -------------------------------------------------------------------------

    def _manifest_key(self, modules: Sequence[RenderedFile]) -> str:
        """Everything ``render_manifest`` reads: the module paths, every config value, the
        generator (code, templates, version) and the versions of the inference libraries."""
        paths = sorted(m.relative_path for m in modules)
        distributions = sorted(set(INFERENCE_DISTRIBUTIONS[self.config.flavor]))
        versions = [(name, installed_version(name)) for name in distributions]
        return digest(("manifest", self._environment, self._config_key, paths, versions))

    def load_manifest(self, modules: Sequence[RenderedFile]) -> RenderedFile | None:
        stored = self.store.get(self._manifest_key(modules))
        if stored is None:
            return None
        if not isinstance(stored, RenderedFile) or stored.relative_path != MANIFEST:
            self.store.warnings.append(
                f"the stored manifest was ignored: it holds {type(stored).__name__}"
            )
            return None
        self._file_entries[MANIFEST] = (self._manifest_key(modules), stored)
        return stored

    def store_manifest(self, modules: Sequence[RenderedFile], manifest: RenderedFile) -> None:
        key = self._manifest_key(modules)
        self.store.put(key, manifest)
        self._file_entries[MANIFEST] = (key, manifest)

    # -- modules ------------------------------------------------------------------------------

    def module_key(self, source: SourceFile) -> str:
        import_root = relative(source.import_root, self.config.root)
        return digest(
            (
                "module",
                *self._module_base,
                source.relative_path,
                source.module,
                import_root,
                source.sha256,
                # the scan also reads which classes each factory's module imports from this one
                self._reach.read_for(source, self.config.factories),
            )
        )

    def load_module(
        self, source: SourceFile
    ) -> (
        tuple[
            Callable[[], ScannedModule | None],
            Callable[[], InspectedModule | None],
            dict[str, str | None],
        ]
        | None
    ):
        """If nothing ``source`` depends on changed: a function that reads its stored scan, one
        that reads its stored inspection, and its dependencies. Both are unpickled only when
        called: the build learns which modules it redoes, and starts their worker, before it
        reads the others (the scan of each, its stored inspection only when its rendered output
        is not stored). ``read_scan`` raises ``UnreadableEntry`` for a scan that cannot be read
        after all (the warning is recorded): the module is then inspected again."""
        stored = self.store.get(self.module_key(source))
        if stored is None:
            return None
        try:
            dependencies = dict(stored["dependencies"])
            if not self.hashes.current(dependencies):
                return None
            scanned_payload, payload = stored["scanned"], stored["inspected"]
            root = str(self.config.root)
            self._registrations[source.relative_path] = [
                record.relocated(lambda path: os.path.join(root, path))
                for record in stored["registrations"]
            ]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            self._ignored(source, exc)
            return None

        @cache
        def scan() -> ScannedModule | None:
            try:
                scanned = None if scanned_payload is None else pickle.loads(scanned_payload)
                if scanned is not None and not isinstance(scanned, ScannedModule):
                    raise TypeError(type(scanned).__name__)
            except Exception as exc:  # checked by its entry's checksum: only a foreign pickle
                self._ignored(source, exc)
                raise UnreadableEntry(source.relative_path) from None
            return replace(scanned, **source.location()) if scanned else None

        def inspected() -> InspectedModule | None:
            scanned = scan()
            if scanned is None or payload is None:
                return None
            try:
                tools, diagnostics = pickle.loads(payload)
                return InspectedModule(
                    module=scanned, tools=tuple(tools), diagnostics=tuple(diagnostics)
                )
            except Exception as exc:  # checked by its entry's checksum: only a foreign pickle
                self._ignored(source, exc)
                return None

        return scan, inspected, dependencies

    def _ignored(self, source: SourceFile, exc: BaseException) -> None:
        self.store.warnings.append(
            f"cache entry for {source.relative_path} was ignored: it holds "
            f"{type(exc).__name__}: {exc}; the module is inspected again"
        )

    def store_module(
        self,
        source: SourceFile,
        scanned: ScannedModule | None,
        inspected: InspectedModule | None,
        imported: Iterable[tuple[str, str | None]],
    ) -> dict[str, str | None] | None:
        """Store one module unless it has errors; returns its dependencies."""
        problems = [
            *(scanned.diagnostics if scanned else ()),
            *(inspected.diagnostics if inspected else ()),
        ]
        if _has_errors(problems):
            return None
        if scanned is not None and scanned.inspectable and inspected is None:
            return None  # it was never inspected (a worker died): not an answer
        dependencies = self.hashes.classify(imported)
        dependencies["file:" + source.relative_path] = self.hashes.of(source.relative_path)
        self._pending[source.relative_path] = (
            self.module_key(source),
            {
                "dependencies": dependencies,
                # Each pickled apart: a build reads neither until it knows which modules it redoes,
                # and never the inspection when it finds the module's rendered output.
                "scanned": pickle.dumps(_located_nowhere(scanned), protocol=pickle.HIGHEST_PROTOCOL)
                if scanned is not None
                else None,
                "inspected": pickle.dumps(
                    (inspected.tools, inspected.diagnostics), protocol=pickle.HIGHEST_PROTOCOL
                )
                if inspected is not None
                else None,
            },
        )
        return dependencies

    def store_registrations(self, by_source: Mapping[str, Sequence[Registration]]) -> None:
        """Write the module entries of this build, each with the registrations recorded while
        its module was imported (paths relative to the project root)."""
        root = os.path.realpath(self.config.root) + os.sep

        def move(path: str) -> str:
            real = os.path.realpath(path)
            return real[len(root) :] if real.startswith(root) else path

        for relative_path, (key, entry) in sorted(self._pending.items()):
            records = by_source.get(relative_path, ())
            self.store.put(key, {**entry, "registrations": [r.relocated(move) for r in records]})
        self._pending.clear()

    def stored_registrations(self, source: SourceFile) -> list[Registration]:
        """The registrations stored with ``source``'s module entry (read by ``load_module``)."""
        return self._registrations.get(source.relative_path, [])

    def render_key(self, source: SourceFile, dependencies: Mapping[str, str | None]) -> str:
        """A module's assembled and rendered output: its inspection plus every config value."""
        return digest(
            ("render", self.module_key(source), sorted(dependencies.items()), self._config_key)
        )

    def load_rendered(self, key: str, source: SourceFile) -> StoredRendering | None:
        stored = self.store.get(key)
        if stored is None:
            return None
        try:
            payload, rendered, problems, tool_count, factory = stored
            if rendered is not None and not isinstance(rendered, RenderedFile):
                raise TypeError(type(rendered).__name__)
            if rendered is not None and rendered.relative_path != module_path(source.module):
                raise ValueError(f"a rendering of {rendered.relative_path}")
        except (TypeError, ValueError) as exc:
            self._ignored(source, exc)
            return None
        if rendered is not None:
            self._file_entries[rendered.relative_path] = (key, rendered)

        def definition() -> ModuleDefinition:
            """Unpickled only when needed (factory tools, whose names must be compared)."""
            loaded = pickle.loads(payload)
            return replace(loaded, source=replace(loaded.source, **source.location()))

        return StoredRendering(definition, rendered, list(problems), int(tool_count), bool(factory))

    def store_rendered(
        self,
        key: str,
        definition: ModuleDefinition,
        rendered: RenderedFile | None,
        problems: list[Diagnostic],
    ) -> None:
        if _has_errors(problems):
            return
        blank = replace(definition, source=_located_nowhere(definition.source))
        payload = pickle.dumps(blank, protocol=pickle.HIGHEST_PROTOCOL)
        factory = any("factory" in tool.extra for tool in definition.tools)
        self.store.put(key, (payload, rendered, tuple(problems), len(definition.tools), factory))
        if rendered is not None:
            self._file_entries[rendered.relative_path] = (key, rendered)

    def finish(self, prune: bool = True) -> list[Diagnostic]:
        """Prune when this build wrote entries (unless not ``prune``); the warnings of entries
        that were ignored since the last call."""
        if prune and self.store.written:
            self.store.prune()
        warnings = self.store.warnings[self._reported :]
        self._reported = len(self.store.warnings)
        return [
            Diagnostic(relative(self.store.directory, self.config.root), 0, 0, w, "warning")
            for w in warnings
        ]


def _has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in diagnostics)
