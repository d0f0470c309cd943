"""The build daemon's loop: one project, one build at a time, each an ordinary ``generate`` or
``check`` command line run as the command would run it, its output relayed to the command.

It is ``mcp-codegen watch`` behind a socket: it keeps one build session
(``mcp_codegen._generator.pipeline.BuildSession``), runs it once per request, and keeps between
builds what watch keeps: a worker started ahead with libcst and pydantic imported and no user
code (a worker that imported user code ends with its build), the cache entries decoded in
memory, and its own imports. It answers a command only when
the interpreter, its flags, the import path, what is installed there, mcp-codegen's own files and
every environment variable (but ``SHELL_BOOKKEEPING``) are what they were when it started;
otherwise it says why and the command builds in its own process. It stops on ``daemon stop``,
SIGTERM or SIGINT, after ``idle_timeout`` seconds without a command, when its own environment
changed, and after a build that raised.

Runs in: parent.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_codegen._cli.daemon.wire import (
    EXIT,
    REFUSED,
    REQUEST,
    STDERR,
    STDOUT,
    difference,
    environment,
    environment_difference,
    identity,
    receive,
    send,
    send_json,
)
from mcp_codegen._generator.cache.stored_entries import CacheTiers
from mcp_codegen._generator.pipeline import BuildSession
from mcp_codegen._generator.workers.prestart import BUILD_COMMANDS, WarmWorkers, command_index
from mcp_codegen._shared.diagnostics import ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mcp_codegen._generator.config import Config

#: Runs one command line with the daemon's session: ``mcp_codegen._cli.commands.dispatch``.
Dispatch = Callable[..., int]

#: How long a connection may take to send its request before it is dropped (a build waits).
REQUEST_TIMEOUT_S = 10.0
#: The most output one frame carries (``wire.MAX_FRAME`` bounds what the command reads).
CHUNK_BYTES = 1024 * 1024


class _Relayed(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` during a build: each write is a frame to the command,
    encoded as the command's own stream encodes. A command that went away (Ctrl-C) loses the rest
    of the output; the build still ends as it would have."""

    def __init__(
        self, conn: socket.socket, kind: bytes, tty: bool, encoding: str, lock: threading.Lock
    ) -> None:
        self._conn, self._kind, self._tty, self._lock = conn, kind, tty, lock
        self._encoding = encoding
        self.lost = False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    def isatty(self) -> bool:
        return self._tty

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text and not self.lost:
            data = text.encode(self._encoding, "backslashreplace")
            with self._lock:
                try:
                    for start in range(0, len(data), CHUNK_BYTES):  # a large diff: many frames
                        send(self._conn, self._kind, data[start : start + CHUNK_BYTES])
                except OSError:
                    self.lost = True
        return len(text)


class Daemon:
    """The daemon of one configuration file."""

    def __init__(
        self,
        config_file: str,
        idle_timeout: float,
        dispatch: Dispatch,
        drop_first: bool,
    ) -> None:
        self.config_file = config_file
        self.dispatch = dispatch
        self.root = Path(config_file).parent
        #: the workers kept started for the next build, adopted by ``session``
        self.warm = WarmWorkers(self.root)
        #: the cache entries kept decoded in memory across builds, adopted by ``session``
        self.tiers = CacheTiers(keep_in_memory=True)
        self.session: BuildSession | None = None  # made by the first build
        self.idle_timeout = idle_timeout
        self.drop_first = drop_first
        self.identity = identity(drop_first)
        self.environ = environment()
        self.started = time.time()
        self.builds = 0
        self.stopped_because = ""

    def serve(self, listener: socket.socket) -> str:
        """Answer commands until told to stop; returns why it stopped."""
        self.warm.keep(1)
        self._warm_up()
        while not self.stopped_because:
            listener.settimeout(self.idle_timeout or None)
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return f"no command for {self.idle_timeout:g} s"
            with conn:
                conn.settimeout(REQUEST_TIMEOUT_S)
                self._answer(conn)
        return self.stopped_because

    def _warm_up(self) -> None:
        """Import what a build imports (the generator, the renderer's templates) before the
        first command, by checking the project with the output discarded."""
        sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        with sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            self._run(["--config", self.config_file, "check", "--quiet"])
        self._after_build()

    def _answer(self, conn: socket.socket) -> None:
        if not _same_user(conn):
            return
        try:
            frame = receive(conn.makefile("rb"))
            request = json.loads(frame[1]) if frame is not None and frame[0] == REQUEST else None
        except (OSError, ValueError):  # nothing sent in time, or not a request
            request = None
        if not isinstance(request, dict):
            print("ignored a connection that sent no request", flush=True)
            return
        conn.settimeout(None)  # a build takes as long as it takes
        kind = request.get("kind")
        with contextlib.suppress(OSError):  # the command went away: nobody to answer
            if kind == "status":
                send_json(conn, EXIT, {"code": 0, "status": self.status()})
            elif kind == "stop":
                self.stopped_because = "`mcp-codegen daemon stop`"
                send_json(conn, EXIT, {"code": 0, "status": self.status()})
            elif kind == "build":
                reason = self._refusal(request)
                if reason is not None:
                    print(f"refused a command: {reason}", flush=True)
                    send_json(conn, REFUSED, {"reason": reason})
                else:
                    self._build(conn, request)

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "config_file": self.config_file,
            "python": sys.executable,
            "started": self.started,
            "builds": self.builds,
            "idle_timeout": self.idle_timeout,
        }

    def _refusal(self, request: dict[str, Any]) -> str | None:
        """Why this daemon must not build for the command, or ``None``."""
        argv = request.get("argv", [])
        index = command_index(argv)
        if index is None or argv[index] not in BUILD_COMMANDS:
            return f"it runs only {' and '.join(BUILD_COMMANDS)}"
        if request.get("config_file") != self.config_file:
            return f"it builds {self.config_file}"
        if not isinstance(request.get("cwd"), str) or not os.path.isdir(request["cwd"]):
            return "the command's working directory is gone"
        differs = difference(self.identity, request.get("identity", {}))
        if differs is not None:
            if difference(self.identity, identity(self.drop_first)) is not None:
                self.stopped_because = f"its own environment changed: {differs}"
                return f"{differs} since it started, so it has stopped"
            return f"the command runs with {differs}"
        return environment_difference(self.environ, request.get("environ", {}))

    def session_for(self, config: Config, use_cache: bool) -> BuildSession:
        """The daemon's one build session, configured as this command's."""
        if self.session is None:
            self.session = BuildSession(
                config, use_cache=use_cache, warm=self.warm, tiers=self.tiers
            )
        else:
            self.session.reconfigure(config, use_cache=use_cache)
        return self.session

    def _build(self, conn: socket.socket, request: dict[str, Any]) -> None:
        lock = threading.Lock()
        tty, encoding = request.get("tty", {}), request.get("encoding", {})
        out = _Relayed(conn, STDOUT, bool(tty.get("stdout")), encoding.get("stdout", "utf-8"), lock)
        err = _Relayed(conn, STDERR, bool(tty.get("stderr")), encoding.get("stderr", "utf-8"), lock)
        here = os.getcwd()
        start = time.perf_counter()
        gc.disable()  # collected after the answer (mcp_codegen._generator.collector)
        try:
            os.chdir(request["cwd"])
            # The session's cache entries are written after the answer. The session is made by
            # the first build (``session_for``): its tiers are made here, and adopted by it.
            with self.tiers.deferred_writes():
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = self._run(list(request["argv"]))
                self.builds += 1
                print(
                    f"build {self.builds}: {' '.join(request['argv'])} -> exit {code} "
                    f"in {time.perf_counter() - start:.3f} s",
                    flush=True,
                )
                with lock, contextlib.suppress(OSError):
                    send_json(conn, EXIT, {"code": code})
                    conn.shutdown(socket.SHUT_RDWR)
        finally:
            os.chdir(here)
            self._after_build()

    def _run(self, argv: list[str]) -> int:
        """One command line, as ``mcp-codegen`` runs it; a build that raised stops the daemon."""
        try:
            return self.dispatch(argv, session_for=self.session_for)
        except SystemExit as exc:  # argparse: a usage error, or --help
            return exc.code if isinstance(exc.code, int) else ExitCode.USAGE
        except Exception:
            traceback.print_exc()
            self.stopped_because = "a build raised (the traceback went to the command)"
            return 1

    def _after_build(self) -> None:
        self.warm.keep(1)
        gc.enable()
        gc.collect()


def _same_user(conn: socket.socket) -> bool:
    """Whether the process at the other end runs as this user (Linux tells; elsewhere the
    directory's mode is the only guard)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    credentials = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)[1] == os.getuid()


def listen(path: str) -> socket.socket:
    """A socket at ``path`` that only this user can connect to (``path``'s directory is 0700 and
    the socket 0600). It is bound under another name and linked to ``path`` once it listens, so a
    command that finds ``path`` can connect, and of two daemons started at once one fails."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    binding = f"{path}.{os.getpid()}"
    previous = os.umask(0o177)
    try:
        listener.bind(binding)
        listener.listen(16)
        os.link(binding, path)
    except BaseException:
        listener.close()
        raise
    finally:
        os.umask(previous)
        with contextlib.suppress(OSError):
            os.unlink(binding)
    return listener


def main(
    config_file: str,
    socket_file: str,
    idle_timeout: float,
    dispatch: Dispatch,
    drop_first: bool,
) -> int:
    """Run the daemon of ``config_file`` on ``socket_file`` until it stops, each command line
    run by ``dispatch`` (``mcp_codegen._cli.commands.dispatch``); the socket is removed and every
    worker stopped on the way out."""
    daemon = Daemon(config_file, idle_timeout, dispatch, drop_first)

    received: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    try:
        listener = listen(socket_file)
    except FileExistsError:
        print(f"mcp-codegen daemon: another daemon listens at {socket_file}", file=sys.stderr)
        return ExitCode.USAGE
    previous = signal.signal(signal.SIGTERM, on_signal)
    inode = os.stat(socket_file).st_ino
    print(f"mcp-codegen daemon {os.getpid()}: listening for {config_file}", flush=True)
    code: int = ExitCode.OK
    try:
        reason = daemon.serve(listener)
    except KeyboardInterrupt:  # Ctrl-C of `daemon run` (130), or SIGTERM (143), as a shell says
        code = 128 + (received[0] if received else signal.SIGINT)
        reason = f"signal {signal.Signals(code - 128).name}"
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            if os.stat(socket_file).st_ino == inode:  # not a successor's socket
                os.unlink(socket_file)
        daemon.warm.stop()
        signal.signal(signal.SIGTERM, previous)
    print(f"mcp-codegen daemon {os.getpid()}: stopped after {daemon.builds} build(s): {reason}")
    return code
