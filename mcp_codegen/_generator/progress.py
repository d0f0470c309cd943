"""A progress line on stderr while a build runs, for a person watching a terminal.

Shown only when the stream is a TTY, and only after ``DELAY_S`` of work, so quick builds and
every build whose stderr is a file, a pipe or CI log print nothing. It is one line rewritten in
place (``\\r``), cleared when the build ends: modules done of total, tools so far, elapsed time.
A daemon thread refreshes it, so the elapsed time moves while a slow module is being imported.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

DELAY_S = 1.0
_EVERY_S = 0.2


class Progress:
    def __init__(self, stream: TextIO, *, enabled: bool = True) -> None:
        self.stream = stream
        self.enabled = enabled and _is_tty(stream)
        self.total = 0
        self.done = 0
        self.tools = 0
        self.shown = False
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self, total: int) -> None:
        self.total = total
        if self.enabled and self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def module_done(self, tools: int) -> None:
        with self._lock:
            self.done += 1
            self.tools += tools

    def line(self) -> str:
        elapsed = time.monotonic() - self._start
        return f"mcp-codegen: {self.done}/{self.total} modules, {self.tools} tools, {elapsed:.1f} s"

    def _run(self) -> None:
        if self._stop.wait(max(0.0, DELAY_S - (time.monotonic() - self._start))):
            return
        while True:
            with self._lock:
                text = self.line()
            self._write("\r" + text + "\x1b[K")
            self.shown = True
            if self._stop.wait(_EVERY_S):
                return

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self._stop.set()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.shown:
            self._write("\r\x1b[K")
            self.shown = False


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
