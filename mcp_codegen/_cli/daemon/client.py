"""How ``mcp-codegen generate`` and ``check`` hand their command line to the project's build
daemon when one is running, and print what it prints (standard library only: this runs before
the command's own imports; with no daemon it costs a ``stat`` of the daemons' directory and, once
one was started there, a listing of it).

Runs in: parent.
"""

from __future__ import annotations

import os
import sys

from mcp_codegen._cli.daemon.wire import (
    EXIT,
    REFUSED,
    REQUEST,
    STDERR,
    STDOUT,
    DaemonError,
    any_listening,
    environment,
    identity,
    private_directory,
    receive,
    send_json,
    socket_in,
)
from mcp_codegen._generator.workers.prestart import BUILD_COMMANDS, command_index, config_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

#: ``generate --no-daemon``: build in this process even when a daemon runs.
NO_DAEMON = "--no-daemon"


def delegate(argv: list[str]) -> int | None:
    """Run ``argv`` in the project's daemon and return its exit code; ``None`` when the command
    must build in this process: not a build, no daemon, or a daemon that refused (the reason is
    printed: another interpreter, environment or mcp-codegen)."""
    index = command_index(argv)
    if index is None or argv[index] not in BUILD_COMMANDS:
        return None
    if {"-h", "--help", NO_DAEMON} & {*argv[index + 1 :]}:
        return None
    try:
        directory = private_directory(create=False)
        if directory is None or not any_listening(directory):
            return None  # no daemon runs: the common case costs two system calls
        config = config_file(argv)
        if config is None:
            return None
        path = socket_in(directory, config)
    except DaemonError:
        return None  # no daemon could have been started there (``daemon start`` says why)
    if not os.path.exists(path):
        return None
    # Imported here: every build command asks, and most find no daemon socket.
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(path)
        except OSError:  # a daemon that was killed left its socket; ``daemon start`` replaces it
            return None
        request = {
            "kind": "build",
            "argv": argv,
            "cwd": os.getcwd(),
            "config_file": config,
            "environ": environment(),
            "identity": identity(),
            "tty": {"stdout": _isatty(sys.stdout), "stderr": _isatty(sys.stderr)},
            "encoding": {"stdout": _encoding(sys.stdout), "stderr": _encoding(sys.stderr)},
        }
        try:
            send_json(sock, REQUEST, request)
            return _relay(sock.makefile("rb"))
        except OSError:
            pass
        except KeyboardInterrupt:  # the daemon finishes the build; its output is lost
            return 130
    print("mcp-codegen: the build daemon went away; building in this process", file=sys.stderr)
    return None


def _relay(stream: BinaryIO) -> int | None:
    """Copy the daemon's output here until its exit code."""
    # Imported here: only when a daemon answers.
    import json

    while (frame := receive(stream)) is not None:
        kind, payload = frame
        if kind in (STDOUT, STDERR):
            target = sys.stdout if kind == STDOUT else sys.stderr
            target.flush()
            target.buffer.write(payload)
            target.buffer.flush()
        elif kind == EXIT:
            return int(json.loads(payload)["code"])
        elif kind == REFUSED:
            reason = json.loads(payload)["reason"]
            print(
                f"mcp-codegen: the build daemon was not used ({reason}); building in this process",
                file=sys.stderr,
            )
            return None
    raise OSError("the daemon closed the connection")


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def _encoding(stream: object) -> str:
    return getattr(stream, "encoding", None) or "utf-8"
