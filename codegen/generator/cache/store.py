"""The build cache: the last build as a whole, and each source module's inspection on its own.

Two kinds of entries (``codegen.generator.cache.entries``), both keyed without a machine's paths:

- a **build** entry answers an unchanged project without libcst, pydantic, jinja2 or a worker.
  Its key covers the environment, every configuration value and every source file's content;
  it records the files and distributions the workers imported, and is used only while they are
  as recorded;
- a **module** entry holds what a worker found in one source (its scan, tools and diagnostics).
  Its key covers the environment, the configuration a worker is given (``settings_key``) and the
  source itself (path, import name, content); it records every project file the module imported,
  transitively, as the worker saw it (``codegen.generator.workers.child``), and the installed
  distributions, and is used only while they are unchanged. Assembling and rendering are redone
  in this process from the entries, so configuration applied there (``box_field``, ``version``)
  never needs a worker.

A module with errors is never stored; any doubt is a miss.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from codegen.generator.cache.entries import EntryStore
from codegen.generator.cache.keys import (
    FileHashes,
    config_key,
    digest,
    environment_key,
    relative,
    settings_key,
)
from codegen.generator.config import Config
from codegen.generator.model import InspectedModule, ScannedModule, SourceFile
from codegen.generator.project import CACHE_DIR
from codegen.shared.diagnostics import Diagnostic

#: Fields of a ``ScannedModule`` that name where the checkout is: blanked in an entry, taken from
#: this build's ``SourceFile`` when the entry is used.
_LOCATION = {"path": "", "import_root": ""}


class BuildCache:
    """The stored builds and modules of one project."""

    def __init__(self, config: Config, contents: Mapping[Path, bytes]) -> None:
        """``contents``: every source file's bytes, in discovery order."""
        self.config = config
        self.store = EntryStore(config.root / CACHE_DIR)
        self.hashes = FileHashes(config)
        sources = []
        for path, data in contents.items():
            name = relative(path, config.root)
            self.hashes.remember(name, data)
            sources.append((name, self.hashes.of(name)))
        self._module_base = (environment_key(), settings_key(config))
        self.build_key = digest(("build", environment_key(), config_key(config), sources))

    # -- whole builds -------------------------------------------------------------------------

    def load(self) -> Any | None:
        stored = self.store.get(self.build_key)
        try:
            if stored is None or not self.hashes.current(dict(stored["dependencies"])):
                return None
            return stored["result"]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            self.store.warnings.append(
                f"the stored build was ignored: it holds {type(exc).__name__}: {exc}"
            )
            return None

    def store_build(self, result: Any, dependencies: Mapping[str, str | None]) -> None:
        self.store.put(self.build_key, {"dependencies": dict(dependencies), "result": result})
        self.store.prune()

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
            )
        )

    def load_module(
        self, source: SourceFile
    ) -> tuple[ScannedModule | None, InspectedModule | None, dict[str, str | None]] | None:
        """The stored scan and inspection of ``source`` if nothing it depends on changed."""
        stored = self.store.get(self.module_key(source))
        if stored is None:
            return None
        try:
            dependencies = dict(stored["dependencies"])
            if not self.hashes.current(dependencies):
                return None
            scanned, tools, diagnostics = stored["scanned"], stored["tools"], stored["diagnostics"]
            if scanned is None:
                return None, None, dependencies
            if not isinstance(scanned, ScannedModule):
                raise TypeError(type(scanned).__name__)
            scanned = replace(scanned, **source.location())
            if tools is None:
                return scanned, None, dependencies
            inspected = InspectedModule(
                module=scanned, tools=tuple(tools), diagnostics=tuple(diagnostics)
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            self.store.warnings.append(
                f"cache entry for {source.relative_path} was ignored: it holds "
                f"{type(exc).__name__}: {exc}; the module is inspected again"
            )
            return None
        return scanned, inspected, dependencies

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
        self.store.put(
            self.module_key(source),
            {
                "dependencies": dependencies,
                "scanned": replace(scanned, **_LOCATION) if scanned is not None else None,
                "tools": inspected.tools if inspected is not None else None,
                "diagnostics": inspected.diagnostics if inspected is not None else (),
            },
        )
        return dependencies

    def finish(self) -> list[Diagnostic]:
        """Prune when this build wrote entries; the warnings of entries that were ignored."""
        if self.store.written:
            self.store.prune()
        return [
            Diagnostic(relative(self.store.directory, self.config.root), 0, 0, w, "warning")
            for w in self.store.warnings
        ]


def _has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in diagnostics)
