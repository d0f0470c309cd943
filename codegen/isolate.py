"""Stage 2 driver: run resolve + schema for every module in isolated worker processes.

A crash, ``sys.exit``/``os._exit``, a hang or stdout noise in user code becomes a diagnostic; the
generator process never imports user modules. Workers start before the scan, so their interpreter
and pydantic start-up overlaps with parsing, and modules stream to them as they are scanned.
"""

from __future__ import annotations

import os
import pickle
import queue
import selectors
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from codegen.config import Config
from codegen.errors import Diagnostic
from codegen.model import InspectedModule, ScannedModule
from codegen.worker import write_message

_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)
MAX_WORKERS = 4


class _Worker:
    def __init__(self, config: Config) -> None:
        self.modules: dict[str, ScannedModule] = {}
        self.pending: list[str] = []
        self.tool_load = 0
        self.current: str | None = None
        self.results: dict[str, InspectedModule] = {}
        self.finished = False
        self.dependencies: list[str] = []
        self.buffer = b""
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the worker
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [_PACKAGE_PARENT, *filter(None, [env.get("PYTHONPATH")])]
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "codegen.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=config.root,
            env=env,
        )
        self.outbox: queue.Queue[object] = queue.Queue()
        self.outbox.put(
            {
                "sys_path": [str(config.root), *(str(p) for p in config.python_path)],
                "injected": sorted(config.injected_types),
                "permissive_fallback": config.permissive_fallback,
                "output": str(config.output),
                "flavor": config.flavor,
            }
        )
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

    def submit(self, module: ScannedModule) -> None:
        self.modules[module.module] = module
        self.pending.append(module.module)
        self.tool_load += len(module.tools)
        self.outbox.put(module)

    def feed(self, data: bytes) -> None:
        self.buffer += data
        self.last_progress = time.monotonic()
        offset = 0
        while len(self.buffer) - offset >= 8:
            (size,) = struct.unpack_from(">Q", self.buffer, offset)
            if len(self.buffer) - offset < 8 + size:
                break
            event = pickle.loads(self.buffer[offset + 8 : offset + 8 + size])
            offset += 8 + size
            self._handle(event)
        self.buffer = self.buffer[offset:]

    def _handle(self, event: tuple[object, ...]) -> None:
        if event[0] == "start":
            self.current = event[1]  # type: ignore[assignment]
        elif event[0] == "done":
            _, name, tools, diagnostics = event
            self.results[name] = InspectedModule(  # type: ignore[index]
                module=self.modules[name],  # type: ignore[index]
                tools=tuple(tools),  # type: ignore[arg-type]
                diagnostics=tuple(diagnostics),  # type: ignore[arg-type]
            )
            self.pending.remove(name)  # type: ignore[arg-type]
            self.current = None
        elif event[0] == "dependencies":
            self.dependencies = list(event[1])  # type: ignore[arg-type]
        elif event[0] == "finished":
            self.finished = True

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        lines = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
        return "\n".join(lines[-8:])

    def fail_remaining(self, reason: str) -> None:
        """Blame the module being inspected; the ones queued after it were never reached."""
        culprit = self.current or (self.pending[0] if self.pending else None)
        for name in list(self.pending):
            module = self.modules[name]
            message = (
                reason
                if name == culprit
                else (
                    f"not inspected: the worker stopped while inspecting {culprit}; fix that first"
                )
            )
            self.results[name] = InspectedModule(
                module=module,
                tools=(),
                diagnostics=(Diagnostic(module.relative_path, 1, 1, message),),
            )
        self.pending.clear()


class InspectSession:
    """Worker processes that inspect modules as they are submitted."""

    def __init__(
        self,
        config: Config,
        expected_modules: int,
        on_result: Callable[[InspectedModule], None] = lambda result: None,
    ) -> None:
        self.config = config
        self.on_result = on_result
        count = max(1, min(expected_modules, os.cpu_count() or 1, MAX_WORKERS))
        self.workers = [_Worker(config) for _ in range(count)] if expected_modules else []
        self.order: list[str] = []
        self.delivered: set[str] = set()

    def submit(self, module: ScannedModule) -> None:
        worker = min(self.workers, key=lambda w: w.tool_load)
        self.order.append(module.module)
        worker.submit(module)
        self._drain()

    def _drain(self) -> None:
        """Read what the workers have sent so far, without waiting; deliver finished modules."""
        for worker in self.workers:
            stdout = worker.process.stdout
            if stdout is None or worker.finished or stdout.closed:
                continue
            os.set_blocking(stdout.fileno(), False)
            data = stdout.read(1 << 20)
            if data:
                worker.feed(data)
                self._deliver(worker)

    def _deliver(self, worker: _Worker) -> None:
        for name in [n for n in worker.results if n not in self.delivered]:
            self.delivered.add(name)
            self.on_result(worker.results[name])

    def dependencies(self) -> list[str]:
        """Files the workers imported (valid after ``results``)."""
        return sorted({f for worker in self.workers for f in worker.dependencies})

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                worker.process.kill()
            worker.process.wait()
            worker.stderr.close()

    def results(self) -> list[InspectedModule]:
        """Wait for every submitted module; the result keeps submission order."""
        try:
            self._collect()
        finally:
            self.close()
        collected: dict[str, InspectedModule] = {}
        for worker in self.workers:
            collected.update(worker.results)
        return [collected[name] for name in self.order]

    def _collect(self) -> None:
        timeout_s = self.config.import_timeout
        selector = selectors.DefaultSelector()
        for worker in self.workers:
            worker.outbox.put(None)
            worker.last_progress = time.monotonic()
            assert worker.process.stdout is not None
            os.set_blocking(worker.process.stdout.fileno(), False)
            selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
        active = set(self.workers)
        while active:
            now = time.monotonic()
            wait = min(w.last_progress + timeout_s - now for w in active)
            for key, _ in selector.select(timeout=max(0.01, wait)):
                worker: _Worker = key.data
                data = key.fileobj.read(1 << 20)  # type: ignore[union-attr]
                if data:
                    worker.feed(data)
                    self._deliver(worker)
                    continue
                selector.unregister(key.fileobj)
                active.discard(worker)
                code = worker.process.wait()
                if not worker.finished or worker.pending:
                    worker.fail_remaining(
                        f"importing {worker.current or 'the module'} ended the generator's worker "
                        f"process (exit code {code}); a tool module must not call os._exit() or "
                        f"crash the interpreter when imported{_tail(worker)}"
                    )
                    self._deliver(worker)
            for worker in list(active):
                if time.monotonic() - worker.last_progress <= timeout_s:
                    continue
                worker.process.kill()
                worker.process.wait()
                worker.fail_remaining(
                    f"inspecting {worker.current or 'the module'} did not finish within "
                    f"{timeout_s:g} s; remove the blocking call from import time or raise "
                    f"`import_timeout` in [tool.mcp-codegen]{_tail(worker)}"
                )
                self._deliver(worker)
                selector.unregister(worker.process.stdout)  # type: ignore[arg-type]
                active.discard(worker)


def _tail(worker: _Worker) -> str:
    tail = worker.stderr_tail()
    if not tail:
        return ""
    return "\n  last output of the worker:\n    " + tail.replace("\n", "\n    ")
