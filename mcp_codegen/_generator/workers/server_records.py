"""Server records for the stdio fast path of ``mcp-codegen run``: what each server object says at
``initialize`` and lists at ``tools/list``, kept only where two imports agree (parent side).

The probe (``mcp_codegen._generator.flavors.servers``) runs twice at once (``ServerProbes``, started
with the build's workers when they leave a core idle, else once the scans are in, and told what
to import then): once with the workers'
environment (hash seed 0, the caller's environment, time zone and locale pinned) and once with
another hash seed and a reduced environment (``PATH``, ``HOME``, ``PYTHONPATH``, ``VIRTUAL_ENV`` and the pinned
values only), so a name, version, instructions or capability read from the environment, the hash
seed or the clock differs between them. Such a server keeps its record without ``initialize``
(``mcp-codegen run`` then serves it without the fast path) and ``generate`` warns once at the
line that binds it. A server whose tools/list is not exactly its generated entries (a tool
registered at run time, one kept with the framework) keeps no ``tools``: the fast path then lets
the framework answer tools/list. See docs/fastpath-run.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import ModuleDefinition, ScannedModule
from mcp_codegen._generator.workers.prestart import (
    WORKER_HASH_SEED,
    with_package_path,
    worker_environment,
)
from mcp_codegen._registration.factory_calls import (
    FactoryCallError,
    is_factory_call,
    parse_factory_call,
)
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import SERVER_KEY

#: The second probe's hash seed (any other than the workers').
PROBE_HASH_SEED = "1"
#: What the second probe keeps of the caller's environment (plus the workers' pinned values).
_KEPT_ENVIRONMENT = ("PATH", "HOME", "PYTHONPATH", "VIRTUAL_ENV", "SYSTEMROOT", "TMPDIR")


def probe_settings(
    config: Config, built: Sequence[ScannedModule], with_tools: Sequence[str]
) -> dict[str, Any]:
    """What the probe is told: ``built``, the modules a build assembles (in source order), and
    ``with_tools``, the names of those that define tools (imported, in that order)."""
    return {
        "sys_path": list(
            dict.fromkeys(
                [
                    str(config.root),
                    *(str(p) for p in config.python_path),
                    *(m.import_root for m in built),
                ]
            )
        ),
        "root": str(config.root),
        "output": str(config.output),
        "modules": list(with_tools),
        "targets": list(config.run_targets),
        # a server a factory builds is recorded under the call's text, a run target too
        "factories": list(config.factories),
        # the configured sources (a directory, or a file's) and the tool modules' directories:
        # a server object bound there is the project's, also in a module without tools
        # (``pkg/common/server.py`` of an installed ``sources = [".../pkg"]``)
        "source_dirs": sorted(
            {
                *(str(Path(m.path).parent) for m in built),
                *(str(s if s.is_dir() else s.parent) for s in config.sources),
            }
        ),
    }


class ServerProbes:
    """The two probes of one framework-flavor build, one process each: started before their
    settings are known, they import the MCP SDK meanwhile, and ``send`` gives them their
    settings once the scans predict them (two threads then wait for the answers). ``record_servers``
    takes them only if the settings it derives from the assembled modules are the ones sent,
    and otherwise cancels them and probes again."""

    def __init__(self, config: Config, settings: dict[str, Any] | None = None) -> None:
        self.limit = max(
            4 * config.import_timeout, 120.0
        )  # every tool inferred: slower than a worker
        self.settings: dict[str, Any] | None = None
        reduced = {k: v for k, v in os.environ.items() if k in _KEPT_ENVIRONMENT}
        pinned = worker_environment(PROBE_HASH_SEED)
        reduced.update(
            {k: pinned[k] for k in ("TZ", "LC_ALL", "LANG", "PYTHONUTF8", "PYTHONHASHSEED")}
        )
        self._processes: list[subprocess.Popen[bytes]] = []
        for env in (worker_environment(WORKER_HASH_SEED), reduced):
            self._processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "mcp_codegen._generator.flavors.servers"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=config.root,
                    env=with_package_path(dict(env)),
                )
            )
        self._pool: ThreadPoolExecutor | None = None
        self._runs: list[Future[dict[str, Any] | str]] = []
        if settings is not None:
            self.send(settings)

    def send(self, settings: dict[str, Any]) -> None:
        """Give both probes their settings (once); their answers come with ``results``."""
        assert self.settings is None, "a probe is sent its settings once"
        self.settings = settings
        data = json.dumps(settings).encode()
        self._pool = ThreadPoolExecutor(2)
        self._runs = [self._pool.submit(self._answer, p, data) for p in self._processes]

    def results(self) -> tuple[dict[str, Any] | str, dict[str, Any] | str]:
        """Both probes' answers (or why one has none), once both have ended."""
        assert self._pool is not None, "the settings were never sent"
        ours, theirs = (run.result() for run in self._runs)
        self._pool.shutdown()
        return ours, theirs

    def cancel(self) -> None:
        """Stop both probes and wait for them and their threads (nothing is left running)."""
        for process in self._processes:
            with contextlib.suppress(OSError):
                process.kill()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        for process in self._processes:
            if process.returncode is None:  # never sent its settings: no thread reaps it
                process.communicate()

    def _answer(self, process: subprocess.Popen[bytes], data: bytes) -> dict[str, Any] | str:
        try:
            stdout, stderr = process.communicate(data, self.limit)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return f"the probe took longer than {self.limit:g} s"
        try:
            result = json.loads(stdout)
        except ValueError:
            tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
            return f"the probe exited with {process.returncode}: {' '.join(tail) or 'no output'}"
        if result["problems"]:
            return "; ".join(result["problems"])
        return result


def record_servers(
    config: Config,
    definitions: list[ModuleDefinition],
    started: ServerProbes | None = None,
    kept: frozenset[str] = frozenset(),
) -> tuple[list[dict[str, Any]] | None, list[Diagnostic], list[tuple[str, str]] | None]:
    """The server records of a framework-flavor build (None when none could be taken), the
    diagnostics, and the ``(module, file)`` pairs the probe imported: the records' inputs for
    the build cache (a run target's module is no tool module, yet its change changes them);
    None when they are not known (the build must not be stored). ``started``: probes the build
    started early, used when their settings are still right; ``kept``: the names of the tools
    kept with the framework (each has its note: listing them is no surprise)."""
    settings = probe_settings(
        config, [d.source for d in definitions], [d.source.module for d in definitions if d.tools]
    )
    if started is not None and started.settings != settings:
        started.cancel()
        started = None
    if not settings["modules"]:
        return None, [], []
    ours, theirs = (started or ServerProbes(config, settings)).results()
    where = config.relative(config.config_file)
    if isinstance(ours, str) or isinstance(theirs, str):
        problem = ours if isinstance(ours, str) else theirs
        warning = _warning(
            where,
            0,
            f"cannot record what the servers answer at initialize "
            f"({problem}); `mcp-codegen run` serves without the fast path",
        )
        return None, [warning], None  # inputs unknown: the build is not stored
    # name -> [(server, wire)]: a composed package's servers may share a name (None: unkeyed)
    generated: dict[str, list[tuple[str | None, Any]]] = {}
    # name -> [(module, where)]: the module whose import registers it, for the targets' check
    origins: dict[str, list[tuple[str, tuple[str, int, int]]]] = {}
    for definition in definitions:
        for tool in definition.tools:
            generated.setdefault(tool.name, []).append((_server(tool.extra), tool.wire))
            where = (definition.source.relative_path, tool.position.line, tool.position.column)
            origins.setdefault(tool.name, []).append((definition.source.module, where))
    other = {server["object"]: server for server in theirs["servers"]}
    configured = _configured_targets(config)
    # one run target or factory call that fails costs its own record, not the others'
    failed = {**theirs.get("target_problems", {}), **ours.get("target_problems", {})}
    diagnostics = [
        _warning(
            config.relative(config.config_file),
            0,
            f"run target {target}: cannot record what it answers at initialize ({problem}); "
            f"`mcp-codegen run` serves it without the fast path",
        )
        for target, problem in sorted(failed.items())
    ]
    records = []
    for server in ours["servers"]:
        record, problems = _record(config, server, other.get(server["object"]), generated, kept)
        if record["tools"] is not None:
            problems.extend(_unimported(record, origins, configured))
        records.append(record)
        diagnostics.extend(problems if server["object"] not in failed else ())
    imported = [(name, path) for name, path in ours.get("imported", ())]
    return records, diagnostics, imported if not failed else None  # failed: not stored


def _record(
    config: Config,
    server: dict[str, Any],
    twin: dict[str, Any] | None,
    generated: dict[str, Any],
    kept: frozenset[str] = frozenset(),
) -> tuple[dict[str, Any], list[Diagnostic]]:
    path, line, name = (
        config.relative(config.root / server["source"]),
        server["line"],
        server["object"],
    )
    record: dict[str, Any] = {
        "object": name,
        "framework": server.get("framework"),
        "source": server["source"],
        "line": line,
        "initialize": None,
        "tools": None,
        "imports": tuple((module, digest) for module, digest in server.get("imports", ())),
    }
    off = "so `mcp-codegen run` serves it without the fast path"
    if "problem" in server or twin is None or "problem" in twin:
        problem = server.get("problem") or (twin or {}).get("problem") or "not found again"
        return record, [
            _warning(
                path, line, f"server {name}: cannot record its initialize answer ({problem}); {off}"
            )
        ]
    changed = _first_difference(server["initialize"], twin["initialize"])
    if changed is not None:
        return record, [
            _warning(
                path,
                line,
                f"server {name}: its initialize answer differs between two imports ({changed}): "
                f"it depends on the environment, the hash seed or the time, and is not recorded, "
                f"{off}; make it a constant",
            )
        ]
    record["initialize"] = server["initialize"]
    if server.get("function"):
        # a ``module:function`` target: its function may register or mount more when it runs,
        # so only the framework knows what it lists then
        return record, []
    tools, twin_tools = server.get("tools"), twin.get("tools")
    if tools is None or tools != twin_tools:
        return record, []
    listed = [t.get("name") for t in tools if not _generated_for(name, t, generated)]
    # tools kept with the framework, and a provider's (the build reports the line attaching
    # it, an error or a note), are no surprise: the framework answers tools/list, no warning
    unknown = [] if server.get("providers") else [n for n in listed if n not in kept]
    if listed and not unknown:
        return record, []
    if unknown:
        # fastmcp mount/import_server: a composed server lists its mounted servers' tools
        # renamed (``jira_search``); the framework applies that, so it answers the listing
        composed = any(
            isinstance(n, str) and any(n.endswith(f"_{g}") for g in generated) for n in unknown
        )
        what = (
            "composes other servers, whose tools it lists renamed"
            if composed
            else "lists tools that have no current generated entry"
        )
        return record, [
            _warning(
                path,
                line,
                f"server {name} {what} ({', '.join(map(str, unknown))}): `mcp-codegen run` "
                "answers its tools/list from the framework (initialize stays on the fast path)",
            )
        ]
    record["tools"] = tuple(t["name"] for t in tools)
    return record, []


def _configured_targets(config: Config) -> frozenset[str]:
    """``run_targets`` as their records are keyed (a factory call with normalised spacing)."""
    keys = set()
    for target in config.run_targets:
        try:
            keys.add(parse_factory_call(target).target if is_factory_call(target) else target)
        except FactoryCallError:
            keys.add(target)
    return frozenset(keys)


def _unimported(
    record: dict[str, Any],
    origins: dict[str, list[tuple[str, tuple[str, int, int]]]],
    configured: frozenset[str],
) -> list[Diagnostic]:
    """Listed tools whose module the target's own import never reaches: ``mcp-codegen run``
    would not register them. They leave the record (its listing is what the target serves);
    for a configured run target each is an error at the tool (a ``module:function`` target
    keeps no listing: ``_record``)."""
    target = record["object"]
    reached = {module for module, _ in record["imports"]}
    module_name = target.partition(":")[0]
    kept, problems = [], []
    for name in record["tools"]:
        places = origins.get(name, [])
        if not places or any(module in reached for module, _ in places):
            kept.append(name)
            continue
        if target not in configured:
            continue
        module, (path, line, column) = places[0]
        problems.append(
            Diagnostic(
                path,
                line,
                column,
                f"tool {name!r} is generated from {module}, but the run target {target} never "
                f"registers it: importing {module_name} does not import {module}, so "
                f"`mcp-codegen run {target}` would not serve it (clients would get "
                f'"Unknown tool"); import {module} in {module_name}, name as the run target '
                f"a module that imports both (module:object), or remove {path} from `sources`",
            )
        )
    record["tools"] = tuple(kept)
    return problems


def _generated_for(
    server: str, tool: dict[str, Any], generated: dict[str, list[tuple[str | None, Any]]]
) -> bool:
    """Whether ``tool``, listed by ``server``, is exactly its generated entry: the one keyed by
    that server, else the only entry of that name (a run target names a server its own way)."""
    entries = generated.get(tool.get("name"), [])  # type: ignore[arg-type]
    own = [wire for key, wire in entries if key == server]
    return tool in own if own else len(entries) == 1 and entries[0][1] == tool


def _server(extra: dict[str, Any]) -> str | None:
    server = extra.get(SERVER_KEY)
    return server if isinstance(server, str) else None


def _first_difference(ours: Any, theirs: Any, where: str = "") -> str | None:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            found = _first_difference(ours.get(key), theirs.get(key), f"{where}/{key}")
            if found is not None:
                return found
        return None
    if ours != theirs:
        return f"{where.split('/', 2)[-1] or 'the result'}: {ours!r:.60} vs {theirs!r:.60}"
    return None


def _warning(path: str, line: int, message: str) -> Diagnostic:
    return Diagnostic(path, line, 1 if line else 0, message, severity="warning")
