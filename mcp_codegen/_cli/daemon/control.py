"""``mcp-codegen daemon start | stop | status | run``: the build daemon of one project.

``start`` runs it detached (its own session, its output in a log beside its socket) and returns
once it listens; ``run`` keeps it in the foreground. Either way ``generate`` and ``check`` of that
project then hand their command line to it (``mcp_codegen._cli.daemon.client``).

Runs in: parent.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_codegen._cli.daemon.wire import EXIT, REQUEST, DaemonError, receive, send_json, socket_path
from mcp_codegen._generator.project import config_file
from mcp_codegen._shared.diagnostics import ExitCode

#: How long ``start`` waits for the daemon to listen, and ``stop`` for its socket to be gone.
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0
#: What the detached daemon's interpreter runs: ``-P`` and the package's parent put first, so it
#: imports the same mcp-codegen as the command that started it, whatever its working directory.
_LAUNCH = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from mcp_codegen._cli.commands import dispatch; from mcp_codegen._cli.daemon.service import main; "
    "sys.exit(main(sys.argv[2], sys.argv[3], float(sys.argv[4]), dispatch, drop_first=True))"
)


def ask(path: str, kind: str) -> dict[str, Any] | None:
    """The daemon's status after sending it ``kind`` (``status`` or ``stop``); ``None`` when no
    daemon listens at ``path``."""
    # Imported here: only the daemon command talks to a socket.
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:  # no timeout: a daemon answers after the build it is running (or its warm-up)
            sock.connect(path)
            send_json(sock, REQUEST, {"kind": kind})
            frame = receive(sock.makefile("rb"))
        except OSError:
            return None
    if frame is None or frame[0] != EXIT:
        return None
    status = json.loads(frame[1]).get("status")
    return status if isinstance(status, dict) else None


def command(args: argparse.Namespace, dispatch: Callable[[list[str]], int]) -> int:
    """``mcp-codegen daemon ACTION``; ``dispatch`` runs one command line (``run`` serves with it)."""
    config = config_file(str(args.config) if args.config else None)
    if config is None:
        print(
            "mcp-codegen daemon: no pyproject.toml here or above; run it in the project, or pass "
            "--config PATH",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    try:
        path = socket_path(config, create=args.action in ("start", "run"))
    except DaemonError as exc:
        print(f"mcp-codegen daemon: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.idle_timeout < 0:
        print("mcp-codegen daemon: --idle-timeout must be 0 (never) or more", file=sys.stderr)
        return ExitCode.USAGE
    if args.action == "stop":
        return _stop(config, path)
    running = ask(path, "status") if path is not None else None
    if args.action == "status":
        return _status(config, running)
    if running is not None:
        print(f"mcp-codegen daemon: already running for {config} (pid {running['pid']})")
        return ExitCode.OK
    assert path is not None
    # Imported here: only starting a daemon reads the configuration.
    from mcp_codegen._generator.config import load_config

    load_config(Path(config))  # a configuration error is reported now (exit 2), not in the log
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # left by a daemon that was killed: nothing answers on it
    if args.action == "run":
        # Imported here: the daemon's loop only in the daemon's process.
        from mcp_codegen._cli.daemon.service import main

        return main(config, path, args.idle_timeout, dispatch, drop_first=not sys.flags.safe_path)
    return _start(config, path, args.idle_timeout)


def _status(config: str, running: dict[str, Any] | None) -> int:
    if running is None:
        print(f"mcp-codegen daemon: none runs for {config}")
        return ExitCode.STALE
    up = time.time() - running["started"]
    print(
        f"mcp-codegen daemon: pid {running['pid']} builds {running['config_file']} with "
        f"{running['python']}; up {up:.0f} s, {running['builds']} build(s) answered, "
        f"stops after {running['idle_timeout']:g} s idle"
    )
    return ExitCode.OK


def _stop(config: str, path: str | None) -> int:
    stopped = ask(path, "stop") if path is not None else None
    if stopped is None or path is None:
        print(f"mcp-codegen daemon: none runs for {config}")
        return ExitCode.OK
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    print(f"mcp-codegen daemon: stopped pid {stopped['pid']}")
    return ExitCode.OK


def _start(config: str, path: str, idle_timeout: float) -> int:
    # Imported here: prestart only to start a daemon process.
    from mcp_codegen._generator.workers.prestart import PACKAGE_PARENT

    log = path.removesuffix(".sock") + ".log"
    with open(log, "wb") as output:
        os.chmod(log, 0o600)
        process = subprocess.Popen(
            [sys.executable, "-P", "-c", _LAUNCH, PACKAGE_PARENT, config, path, str(idle_timeout)],
            cwd=os.path.dirname(config),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # not stopped by the terminal's Ctrl-C or hang-up
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if os.path.exists(path):  # bound and listening: commands queue until it has warmed up
            print(
                f"mcp-codegen daemon: started for {config} (pid {process.pid}); generate and "
                f"check use it until `mcp-codegen daemon stop`"
                + (f" or {idle_timeout:g} s without a command" if idle_timeout else "")
            )
            return ExitCode.OK
        if process.poll() is not None:
            break
        time.sleep(0.02)
    if process.poll() is None:
        process.kill()
    process.wait()
    with open(log, encoding="utf-8", errors="replace") as output:
        tail = output.read()[-2000:]
    print(f"mcp-codegen daemon: it did not start; its log ({log}):\n{tail}", file=sys.stderr)
    return ExitCode.USAGE
