"""``mcp-codegen watch``: regenerate on every save of a source, the configuration, or a project
file a tool module imports.

The watcher keeps one build session (``mcp_codegen._generator.pipeline.BuildSession``) and runs
it on each save: a cached ``generate``, so it inspects only the modules whose inputs changed. The
session keeps a worker started for the next rebuild, with libcst and pydantic imported and no
user code: a worker that has imported user code is never used
again (it exits after its build), and a fresh one is started right after. File events come from
watchfiles (inotify / FSEvents / ReadDirectoryChangesW, debounced). After each rebuild one line
says what changed; errors print at ``path:line:col`` and watching goes on. Ctrl-C stops the
watcher and every worker. The session keeps cache entries decoded in memory between rebuilds
(its ``CacheTiers``, ``mcp_codegen._generator.cache.stored_entries``), and each rebuild's entries
are written to disk after the rebuild's line (``BuildSession.deferred_writes``).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp_codegen._generator.cache.stored_entries import CacheTiers
from mcp_codegen._generator.config import Config, load_config
from mcp_codegen._generator.pipeline import BuildResult, BuildSession
from mcp_codegen._generator.project import CACHE_DIR
from mcp_codegen._shared.diagnostics import CodegenError, ExitCode
from mcp_codegen._shared.extras import missing_extra
from mcp_codegen._shared.format import PRIVATE_KEY, module_path
from mcp_codegen._shared.reader import GeneratedModuleError, parse_literal_module

#: watchfiles' settings: group the events of one save (editors write a file in several steps),
#: a save is taken once STEP_MS pass without another event (editors write a file within a few ms;
#: the step is waited on every save, so it is short), and return to Python at least every IDLE_MS when nothing happens.
DEBOUNCE_MS = 400
STEP_MS = 10
IDLE_MS = 100


def _tools(files: dict[str, str]) -> dict[str, dict[str, object]]:
    """``{generated file: {tool name: its entry}}`` read back from rendered module texts."""
    found: dict[str, dict[str, object]] = {}
    for path, text in files.items():
        try:
            values = parse_literal_module(text, path)
        except GeneratedModuleError:
            continue
        for tool in values.get("TOOLS", ()) or ():
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                found.setdefault(path, {})[tool["name"]] = tool
    return found


def _texts(output: Path) -> dict[str, str]:
    """``{generated file: its text}`` of the modules under ``output`` (none when it is absent)."""
    found = {}
    for path in sorted(output.rglob("*.py")) if output.is_dir() else ():
        try:
            found[path.relative_to(output).as_posix()] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return found


def _rebuilt_tools(result: BuildResult) -> dict[str, dict[str, object]]:
    """The same for the modules the build assembled, without parsing their texts: each entry as
    the template renders it (``tool_entry``), which reads back equal."""
    # Imported here: the renderer only once a rebuild assembled modules.
    from mcp_codegen._generator.render.modules import tool_entry

    return {
        module_path(definition.source.module): {
            tool.name: tool_entry(tool) for tool in definition.tools
        }
        for definition in result.rebuilt
        if definition.tools
    }


#: The keys of a tool's ``x-codegen`` entry that only say where its source is: lines move when
#: another tool of the module is edited, which does not change this one.
LOCATION_KEYS = frozenset({"line", "column", "parameters", "fields"})


def _located_nowhere(entry: object) -> object:
    """``entry`` without its source location (``None`` stays ``None``: the tool is absent)."""
    if not isinstance(entry, dict) or not isinstance(entry.get(PRIVATE_KEY), dict):
        return entry
    private = {k: v for k, v in entry[PRIVATE_KEY].items() if k not in LOCATION_KEYS}
    return {**entry, PRIVATE_KEY: private}


def changed_tools(before: dict[str, object], after: dict[str, object]) -> int:
    """How many tools were added, removed or changed (a moved source line is not a change)."""
    return sum(
        _located_nowhere(before.get(name)) != _located_nowhere(after.get(name))
        for name in before.keys() | after.keys()
    )


class Watcher:
    def __init__(self, config_file: Path | None, stream: Any = sys.stdout) -> None:
        self.config_file = config_file
        self.stream = stream
        self.config: Config = load_config(config_file)
        # Run on each save; a rebuild reads from disk only the cache entries it has not seen.
        self.session = BuildSession(self.config, tiers=CacheTiers(keep_in_memory=True))
        self.inputs: set[Path] = set()
        self.tools: dict[str, dict[str, object]] = {}  # generated file -> tool name -> entry
        # The generated tree's texts before the first rebuild: what a file the watcher has not
        # seen yet held, so a rebuild counts only its tools that changed.
        self.found: dict[str, str] | None = None

    def _say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def _keep_worker_ready(self) -> None:
        """A fresh worker for the next rebuild (the last one imported user code and is gone)."""
        self.session.keep_warm(1)

    def close(self) -> None:
        """Stop the worker kept for the next rebuild."""
        self.session.close()

    def rebuild(self, reason: str = "") -> BuildResult | None:
        """Regenerate and say what changed; the cache entries are written after that line."""
        with self.session.deferred_writes():
            return self._rebuild(reason)

    def _rebuild(self, reason: str) -> BuildResult | None:
        start = time.perf_counter()
        try:
            self.config = load_config(self.config_file)
        except CodegenError as exc:
            for diagnostic in exc.diagnostics:
                print(diagnostic, file=sys.stderr, flush=True)
            self._say(f"mcp-codegen watch: {len(exc.diagnostics)} error(s) in the configuration")
            return None
        if self.found is None:
            self.found = _texts(self.config.output)
        found = self.found
        self.session.reconfigure(self.config)
        result, report = self.session.generate()
        elapsed = time.perf_counter() - start
        for diagnostic in result.diagnostics:
            print(diagnostic, file=sys.stderr, flush=True)
        self.inputs = {self.config.root / name for name in result.inputs}
        if report is None:
            self._say(
                f"mcp-codegen watch: {len(result.errors)} error(s); nothing written "
                f"({elapsed:.2f} s){reason}"
            )
            self._keep_worker_ready()
            return result
        rebuilt = _rebuilt_tools(result)
        files = {f.relative_path: f.content for f in result.files}
        changed = 0
        for name in {*report.written, *report.removed}:  # only what was written is compared
            before = self.tools.pop(name, None)
            if before is None:  # a file as it was when watching started
                text = found.get(name)
                before = _tools({name: text}).get(name, {}) if text is not None else {}
            if name in rebuilt:
                after = rebuilt[name]
            else:  # taken from the cache: read back from its text
                after = _tools({name: files[name]}).get(name, {}) if name in files else {}
            changed += changed_tools(before, after)
            if after:
                self.tools[name] = after
        self._say(
            f"mcp-codegen watch: {changed} tool(s) changed, {len(report.written)} file(s) "
            f"written, {len(report.removed)} removed ({elapsed:.2f} s){reason}"
        )
        self._keep_worker_ready()  # after the line: starting it is not part of the rebuild
        return result

    def relevant(self, path: Path) -> bool:
        """A source, the configuration, or a project file the last build imported."""
        config = self.config
        if path == config.config_file or path in self.inputs:
            return True
        if path.suffix != ".py" or _under(path, config.output) or CACHE_DIR in path.parts:
            return False
        return any(path == source or _under(path, source) for source in config.sources)

    def run(self, stop: threading.Event | None = None) -> int:
        # Imported here: an optional dependency (the `watch` extra).
        import watchfiles

        roots = {self.config.root, *self.config.python_path}
        # The watch is set up (inotify & co.) on the generator's first step, which with
        # yield_on_timeout returns within IDLE_MS. It is set up before the first build, so a save
        # during that build is not lost, and "watching" is printed only once saves are seen.
        events = watchfiles.watch(
            *sorted(roots),
            stop_event=stop,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            rust_timeout=IDLE_MS,
            yield_on_timeout=True,
        )
        pending = next(events, None)
        self.rebuild()
        self._say(f"mcp-codegen watch: watching {', '.join(sorted(map(str, roots)))}; Ctrl-C stops")
        for changes in _chain(pending, events):
            if not changes:  # an idle step
                continue
            paths = sorted({Path(name).resolve() for _, name in changes})
            hit = [p for p in paths if self.relevant(p)]
            if not hit:
                continue
            names = ", ".join(self.config.relative(p) for p in hit[:3])
            more = f" and {len(hit) - 3} more" if len(hit) > 3 else ""
            self.rebuild(f" after {names}{more}")
        return ExitCode.OK


def _chain(first: set[Any] | None, rest: Iterator[set[Any]]) -> Iterator[set[Any]]:
    if first is None:  # stopped before the first step
        return
    yield first
    yield from rest


def _under(path: Path, directory: Path) -> bool:
    return path.is_relative_to(directory)


def main(config_file: Path | None) -> int:
    """Watch until Ctrl-C (exit 130) or SIGTERM (exit 143); either way no worker is left running.

    A SIGINT that the shell ignores (a background job of a script) is left ignored.
    """
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        print(missing_extra("mcp-codegen watch", "watchfiles", "watch"), file=sys.stderr)
        return ExitCode.USAGE
    watcher = Watcher(config_file)
    terminated = threading.Event()

    def on_sigterm(signum: int, frame: object) -> None:
        # Stopped like Ctrl-C (watchfiles turns any exception of a signal handler into KeyboardInterrupt).
        terminated.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        return watcher.run()
    except KeyboardInterrupt:
        return 143 if terminated.is_set() else 130
    finally:
        watcher.close()
        signal.signal(signal.SIGTERM, previous)
