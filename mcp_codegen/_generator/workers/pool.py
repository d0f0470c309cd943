"""Stage 1-2 driver: scan and inspect every source in isolated worker processes.

A crash, ``sys.exit``/``os._exit``, a hang or stdout noise in user code becomes a diagnostic; the
generator process never imports user modules, nor libcst. Sources are handed out as workers
finish them (each worker holds at most ``PREFETCH``), so one slow module does not hold up the
others; when a worker dies, the module it was on is blamed and the rest are handed to a new one.
"""

from __future__ import annotations

import os
import pickle
import queue
import selectors
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import IO, Any

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import InspectedModule, ScannedModule, SourceFile
from mcp_codegen._generator.workers.messages import write_message
from mcp_codegen._generator.workers.prestart import (
    WORKER_HASH_SEED,
    WarmWorkers,
    spawn_worker,
    stop_workers,
    worker_count,
    worker_settings,
)
from mcp_codegen._generator.workers.process import WorkerProcess
from mcp_codegen._shared.diagnostics import Diagnostic

#: Sources queued in a worker beyond the one it is on: it never waits for the next one, and at
#: the end no worker sits on a backlog while another is idle.
PREFETCH = 1
#: How long a worker may take to start (interpreter, libcst, pydantic) before it is given up on.
#: ``import_timeout`` counts from when it is ready: a slow start is not the first module's fault.
STARTUP_TIMEOUT_S = 120.0


class _Worker:
    def __init__(
        self,
        config: Config,
        started: tuple[WorkerProcess, IO[bytes]] | None = None,
        hash_seed: str = WORKER_HASH_SEED,
        role: str = "both",
        cached: bool = True,
    ) -> None:
        self.assigned: dict[str, SourceFile] = {}  # relative path -> source, until done
        self.current: str | None = None
        self.ready = False
        self.finished = False
        self.closed_input = False
        self.registrations: list[Any] = []  # what real servers registered (see child.py)
        self.buffer = b""
        self.process, self.stderr = started or spawn_worker(
            config.root, hash_seed, role, cached=cached
        )
        assert self.process.stdout is not None
        os.set_blocking(self.process.stdout.fileno(), False)
        self.outbox: queue.Queue[object] = queue.Queue()
        self.outbox.put(worker_settings(config))
        # A writer thread, so a worker stuck in user code can never block the generator.
        self.writer = threading.Thread(target=self._write_requests, daemon=True)
        self.writer.start()
        self.last_progress = time.monotonic()

    def _write_requests(self) -> None:
        assert self.process.stdin is not None
        try:
            while True:
                message = self.outbox.get()
                write_message(self.process.stdin, message)  # type: ignore[arg-type]
                if message is None:
                    break
            self.process.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass

    def submit(self, source: SourceFile, request: object = None) -> None:
        """Send ``source`` (or ``request``, which is about it: a source with its scan)."""
        self.assigned[source.relative_path] = source
        self.outbox.put(source if request is None else request)

    def close_input(self) -> None:
        if not self.closed_input:
            self.closed_input = True
            self.outbox.put(None)

    def feed(self, data: bytes) -> list[tuple[object, ...]]:
        """Complete events in what the worker has written so far."""
        self.buffer += data
        self.last_progress = time.monotonic()
        events = []
        offset = 0
        while len(self.buffer) - offset >= 8:
            (size,) = struct.unpack_from(">Q", self.buffer, offset)
            if len(self.buffer) - offset < 8 + size:
                break
            events.append(pickle.loads(self.buffer[offset + 8 : offset + 8 + size]))
            offset += 8 + size
        self.buffer = self.buffer[offset:]
        return events

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        lines = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
        return "\n".join(lines[-8:])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.stderr.close()


class InspectSession:
    """Worker processes that scan and inspect the sources handed to ``run``.

    ``on_scanned`` gets each source's ``ScannedModule`` (sources without tools are skipped) and
    ``on_result`` each inspected module, as they arrive; ``on_done`` then gets the source, its
    scan and the ``(module, file)`` pairs it depended on (not called for a source whose worker
    died). Workers hash with ``hash_seed``; ``workers`` caps how many start. The caller
    assembles and renders what ``on_result`` gets: a worker ran user code and sends only its
    inspection.

    **Split sessions.** When ``warm`` holds a ``scan`` worker
    (``mcp_codegen._generator.workers.prestart.start_split``, a build with a cache), every source
    goes to the scan worker first, and each scan, as it arrives, is sent with its source to an
    ``inspect`` worker (``(source, scan)``), which never imports libcst: the scanner's libcst
    import and the inspector's pydantic import run at once on two cores, where one worker
    would do both before its first module. Every worker this session starts is then an
    ``inspect`` worker. Call ``start`` once.
    """

    def __init__(
        self,
        config: Config,
        on_scanned: Callable[[ScannedModule], None] = lambda module: None,
        on_result: Callable[[InspectedModule], None] = lambda result: None,
        hash_seed: str = WORKER_HASH_SEED,
        on_done: Callable[
            [SourceFile, ScannedModule | None, list[tuple[str, str | None]]], None
        ] = lambda source, module, imported: None,
        workers: int | None = None,
        warm: WarmWorkers | None = None,
        cached: bool = True,
    ) -> None:
        """Start the workers now: their interpreter and imports overlap whatever comes next;
        those ``warm`` holds for this root (started earlier) are taken instead. ``cached``: the
        build uses the cache directory (``prestart.spawn_worker``)."""
        self.config = config
        self.cached = cached
        self.on_scanned = on_scanned
        self.on_result = on_result
        self.on_done = on_done
        self.hash_seed = hash_seed
        self.workers: list[_Worker] = []
        self.retired: list[_Worker] = []
        self.queue: deque[SourceFile] = deque()
        self.scanned: dict[str, ScannedModule] = {}
        self.selector = selectors.DefaultSelector()
        # Started before the build (mcp_codegen._generator.workers.prestart), with the default seed.
        adopt = warm is not None and hash_seed == WORKER_HASH_SEED and warm.cached == cached
        early = warm.take(config.root) if adopt else []  # type: ignore[union-attr]
        scanner = warm.take_scanner(config.root) if adopt else None  # type: ignore[union-attr]
        self.role = "inspect" if scanner is not None else "both"
        self.scanner: _Worker | None = None
        self.scans: dict[str, ScannedModule | None] = {}  # split sessions: each source's scan
        if scanner is not None:
            self._start_scanner(scanner)
        count = max(min(worker_count(), workers or worker_count()), 1)
        # Early workers beyond what the sources need (a cold build of a small project) stop
        # now: left to run, each spent ~1.5 s of CPU importing for nothing beside the others.
        stop_workers(early[count:])
        for index in range(count):
            self._start_worker(dispatch=False, started=early[index] if index < len(early) else None)

    def run(self, sources: list[SourceFile]) -> None:
        """Scan and inspect every source; returns when all are delivered."""
        self.start(sources)
        self.wait()

    def wait(self) -> None:
        """Deliver every result of the sources handed to ``start``."""
        self._loop()

    def start(self, sources: list[SourceFile]) -> None:
        """Hand the sources out; the workers start on them while this process does other work."""
        if self.scanner is not None:
            for source in sources:
                self.scanner.submit(source)
            self.scanner.close_input()
            if len(sources) == 1 and len(self.workers) == 1:  # an edit: imported meanwhile
                # Imported here: only a split session's lone edit imports ahead.
                from mcp_codegen._generator.workers.ahead import ImportAhead

                self.workers[0].submit(sources[0], ImportAhead(sources[0]))
            sources = []  # each goes to a worker as its scan arrives
        self.queue.extend(sources)
        for _ in range(PREFETCH + 1):  # round-robin, so a short list is shared out evenly
            for worker in self.workers:
                if self.queue:
                    worker.submit(self.queue.popleft())
        for worker in self.workers:
            self._dispatch(worker)

    def _start_worker(
        self,
        dispatch: bool = True,
        started: tuple[WorkerProcess, IO[bytes]] | None = None,
    ) -> None:
        worker = _Worker(self.config, started, self.hash_seed, self.role, self.cached)
        self.workers.append(worker)
        self.selector.register(worker.process.stdout, selectors.EVENT_READ, worker)  # type: ignore[arg-type]
        if dispatch:
            self._dispatch(worker)

    def _start_scanner(self, started: tuple[WorkerProcess, IO[bytes]] | None) -> None:
        self.scanner = _Worker(self.config, started, self.hash_seed, "scan", self.cached)
        self.selector.register(self.scanner.process.stdout, selectors.EVENT_READ, self.scanner)  # type: ignore[arg-type]

    def _dispatch(self, worker: _Worker) -> None:
        while self.queue and len(worker.assigned) <= PREFETCH:
            source = self.queue.popleft()
            if self.scanner is None:
                worker.submit(source)
            else:
                worker.submit(source, (source, self.scans.get(source.relative_path)))
        if not self.queue and not (self.scanner is not None and self.scanner.assigned):
            worker.close_input()

    def wait_for_scans(self) -> None:
        """In a split session, handle events until the scanner has sent every scan: on two
        cores, work this process does meanwhile slows the scanner and the inspect workers."""
        self._loop(until=lambda: self.scanner is None or self.scanner.finished)

    def _processes(self) -> list[_Worker]:
        return [*self.workers, *([self.scanner] if self.scanner is not None else [])]

    def _loop(self, until: Callable[[], bool] = lambda: False) -> None:
        selector = self.selector
        timeout_s = self.config.import_timeout
        while (active := [w for w in self._processes() if not w.finished]) and not until():
            wait = min(w.last_progress + _limit(w, timeout_s) - time.monotonic() for w in active)
            for key, _ in selector.select(timeout=max(0.01, wait)):
                worker: _Worker = key.data
                data = key.fileobj.read(1 << 20)  # type: ignore[union-attr]
                if data:
                    for event in worker.feed(data):
                        self._handle(worker, event)
                    continue
                selector.unregister(key.fileobj)
                code = worker.process.wait()
                if worker is self.scanner and (not worker.finished or worker.assigned):
                    self._lost_scanner(
                        f"scanning {self._module_name(worker)} ended the generator's scanner "
                        f"process (exit code {code}); please report this{_tail(worker)}"
                    )
                elif not worker.finished or worker.assigned:
                    self._lost(
                        worker,
                        f"importing {self._module_name(worker)} ended the generator's worker "
                        f"process (exit code {code}); a tool module must not call os._exit() or "
                        f"crash the interpreter when imported{_tail(worker)}",
                    )
            for worker in [w for w in self._processes() if not w.finished]:
                if time.monotonic() - worker.last_progress <= _limit(worker, timeout_s):
                    continue
                selector.unregister(worker.process.stdout)  # type: ignore[arg-type]
                worker.process.kill()
                worker.process.wait()
                if worker is self.scanner:
                    self._lost_scanner(
                        f"scanning {self._module_name(worker)} did not finish within "
                        f"{timeout_s:g} s; please report this{_tail(worker)}"
                    )
                    continue
                self._lost(
                    worker,
                    f"inspecting {self._module_name(worker)} did not finish within "
                    f"{timeout_s:g} s; remove the blocking call from import time or raise "
                    f"`import_timeout` in [tool.mcp-codegen]{_tail(worker)}",
                )

    def _module_name(self, worker: _Worker) -> str:
        key = worker.current or next(iter(worker.assigned), "")  # none current: importing ahead
        source = worker.assigned.get(key)
        return source.module if source is not None else "the module"

    def _handle(self, worker: _Worker, event: tuple[object, ...]) -> None:
        kind = event[0]
        if worker is self.scanner and kind == "scanned":
            key = event[1]
            source = worker.assigned.pop(key)  # type: ignore[call-overload]
            worker.current = None
            self._take_scan(source, event[2])
            return
        if kind == "ready":
            worker.ready = True
        elif kind == "start":
            worker.current = event[1]  # type: ignore[assignment]
        elif kind == "scanned":
            key, module = event[1], event[2]
            if isinstance(module, ScannedModule):
                source = worker.assigned[key]  # type: ignore[index]
                # Where the module lives comes from the generator's own reading, never the worker.
                module = replace(module, **source.location())
                self.scanned[source.relative_path] = module
                self.on_scanned(module)
        elif kind == "expanded":  # a factory's call site became its tools (scanned before)
            key, module = event[1], event[2]
            if isinstance(module, ScannedModule) and key in self.scanned:
                source = worker.assigned[key]  # type: ignore[index]
                self.scanned[key] = replace(module, **source.location())
        elif kind == "done":
            _, key, tools, diagnostics, imported = event
            source = worker.assigned.pop(key)  # type: ignore[call-overload]
            worker.current = None
            # Its next source (or the end of input) first: the worker goes on while this
            # process renders what it sent.
            self._dispatch(worker)
            module = self.scanned.get(key)  # type: ignore[call-overload]
            if module is not None and module.inspectable:
                inspected = InspectedModule(
                    module=module,
                    tools=tuple(tools),  # type: ignore[arg-type]
                    diagnostics=tuple(diagnostics),  # type: ignore[arg-type]
                )
                self.on_result(inspected)
            self.on_done(source, module, imported)  # type: ignore[arg-type]
        elif kind == "registered":
            worker.registrations = list(event[1])  # type: ignore[arg-type]
        elif kind == "finished":
            worker.finished = True

    def _take_scan(self, source: SourceFile, module: object) -> None:
        """A split session's scan: recorded, then sent with its source to an inspect worker."""
        if source.relative_path in self.scanned:  # its worker died importing it ahead (reported)
            return
        if isinstance(module, ScannedModule):
            # Where the module lives comes from the generator's own reading, never the worker.
            module = replace(module, **source.location())
            self.scanned[source.relative_path] = module
            self.on_scanned(module)
        else:
            module = None
        self.scans[source.relative_path] = module
        self.queue.append(source)
        open_workers = [w for w in self.workers if not w.closed_input]
        if not open_workers:
            self._start_worker()
            return
        for worker in sorted(open_workers, key=lambda w: len(w.assigned)):
            self._dispatch(worker)

    def _lost_scanner(self, reason: str) -> None:
        """The scanner died or hung (it runs no user code: a bug, or the machine): its current
        source fails to scan with ``reason``; the others go to a new scanner."""
        scanner = self.scanner
        assert scanner is not None
        scanner.finished = True
        culprit = scanner.current or next(iter(scanner.assigned), None)
        others = [s for k, s in scanner.assigned.items() if k != culprit]
        source = scanner.assigned.get(culprit or "")
        scanner.assigned.clear()
        scanner.stop()
        self.retired.append(scanner)
        if others:
            self._start_scanner(None)
            assert self.scanner is not None
            for other in others:
                self.scanner.submit(other)
            self.scanner.close_input()
        if source is not None:
            module = self.scanned[source.relative_path] = ScannedModule.failed(source, reason)
            self.on_scanned(module)
            for worker in self.workers:  # imported ahead of this scan: nothing more comes
                worker.assigned.pop(source.relative_path, None)
        for worker in self.workers:  # nothing more may come: let idle workers finish
            if not worker.closed_input:
                self._dispatch(worker)

    def _lost(self, worker: _Worker, reason: str) -> None:
        """A worker died or hung: blame its current source, hand the others to a new worker."""
        worker.finished = True
        self.workers.remove(worker)
        self.retired.append(worker)
        culprit = worker.current or next(iter(worker.assigned), None)
        others = [source for key, source in worker.assigned.items() if key != culprit]
        self.queue.extendleft(reversed(others))  # first in line again, in their order
        source = worker.assigned.get(culprit or "")
        if source is not None:
            module = self.scanned.get(source.relative_path)
            if module is None:  # it died while scanning
                module = self.scanned[source.relative_path] = ScannedModule.failed(source, reason)
                self.on_scanned(module)
            else:
                diagnostic = Diagnostic(source.relative_path, 1, 1, reason)
                self.on_result(InspectedModule(module=module, tools=(), diagnostics=(diagnostic,)))
        worker.assigned.clear()
        worker.stop()
        if self.queue and not any(not w.closed_input for w in self.workers):
            self._start_worker()
        elif self.queue:
            for other in self.workers:
                if not other.closed_input:
                    self._dispatch(other)

    def registrations(self) -> list[Any]:
        """Tools real servers registered while the workers imported user modules."""
        return [r for worker in [*self.workers, *self.retired] for r in worker.registrations]

    def close(self) -> None:
        for worker in [*self._processes(), *self.retired]:
            if not worker.stderr.closed:
                worker.stop()
        self.selector.close()


def _limit(worker: _Worker, timeout_s: float) -> float:
    return timeout_s if worker.ready else max(timeout_s, STARTUP_TIMEOUT_S)


def _tail(worker: _Worker) -> str:
    tail = worker.stderr_tail()
    if not tail:
        return ""
    return "\n  last output of the worker:\n    " + tail.replace("\n", "\n    ")
