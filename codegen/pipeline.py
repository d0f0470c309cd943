"""The one module that knows the stage order: scan -> inspect -> assemble -> render -> write.

Stages overlap in time but not in data: files are scanned while worker processes inspect the
modules already scanned, and each inspected module is assembled and rendered as it arrives.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from codegen.cache import BuildCache
from codegen.config import Config
from codegen.errors import Diagnostic
from codegen.model import InspectedModule, ModuleDefinition, RenderedFile, WriteReport
from codegen.sources import discover_sources
from codegen.write import apply, compare, target_problems


@dataclass(frozen=True)
class BuildResult:
    files: tuple[RenderedFile, ...] = ()
    definitions: tuple[ModuleDefinition, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")

    @property
    def tool_count(self) -> int:
        return sum(len(d.tools) for d in self.definitions)


def _has_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> bool:
    return any(d.severity == "error" for d in diagnostics)


def _sorted(diagnostics: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    return tuple(sorted(set(diagnostics)))


def build(config: Config, *, use_cache: bool = True) -> BuildResult:
    """Run every stage up to rendering, in memory. Returns diagnostics instead of raising.

    With ``use_cache``, an unchanged project (see ``codegen.cache``) reuses the last build.
    """
    diagnostics: list[Diagnostic] = []
    files, problems = discover_sources(config)
    diagnostics.extend(problems)
    cache = BuildCache(config, files) if use_cache and not problems else None
    if cache is not None and (cached := cache.load()) is not None:
        return _with_target_checks(cached, config)
    # Imported here, not at the top: a cache hit must not pay for libcst, pydantic or jinja2.
    from codegen.assemble import assemble_module, duplicate_names
    from codegen.isolate import InspectSession
    from codegen.render import render_manifest, render_module
    from codegen.scan import scan_file

    built: dict[str, tuple[ModuleDefinition, RenderedFile | None]] = {}

    def assemble_and_render(inspected: InspectedModule) -> None:
        definition, found = assemble_module(inspected, config)
        diagnostics.extend(found)
        rendered = None
        if definition.tools and not _has_errors(found):
            rendered = render_module(definition, config)
        built[inspected.module.module] = (definition, rendered)

    scanned = []
    session = InspectSession(config, expected_modules=len(files), on_result=assemble_and_render)
    try:
        for path in files:
            module = scan_file(path, config)
            if module is None:
                continue
            scanned.append(module)
            diagnostics.extend(module.diagnostics)
            if module.tools and not _has_errors(module.diagnostics):
                session.submit(module)  # inspected while the remaining files are scanned
        session.results()
    finally:
        session.close()

    diagnostics.extend(duplicate_names(scanned))
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
        return BuildResult(diagnostics=_sorted(diagnostics))
    definitions = [built[m.module][0] for m in scanned if m.module in built]
    modules = [r for m in scanned if m.module in built and (r := built[m.module][1]) is not None]
    rendered = [*modules, render_manifest(modules, sum(len(d.tools) for d in definitions), config)]
    result = BuildResult(
        files=tuple(rendered), definitions=tuple(definitions), diagnostics=_sorted(diagnostics)
    )
    if cache is not None:
        cache.store(result, session.dependencies())
    return _with_target_checks(result, config)


def _with_target_checks(result: BuildResult, config: Config) -> BuildResult:
    """Add problems with the output directory as it is now (never cached: the disk changes)."""
    problems = target_problems(list(result.files), config.output, config.relative(config.output))
    if not problems:
        return result
    return replace(result, diagnostics=_sorted([*result.diagnostics, *problems]))


def generate(config: Config, *, use_cache: bool = True) -> tuple[BuildResult, WriteReport | None]:
    """Build, then write only if the whole build succeeded."""
    result = build(config, use_cache=use_cache)
    if result.errors:
        return result, None
    return result, apply(list(result.files), config.output)


def check(config: Config, *, use_cache: bool = True) -> tuple[BuildResult, WriteReport | None]:
    """Build and compare with the output directory; writes nothing (but the build cache)."""
    result = build(config, use_cache=use_cache)
    if result.errors:
        return result, None
    return result, compare(list(result.files), config.output)
