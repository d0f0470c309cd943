"""Which processes are alive, read from ``/proc`` (Linux): what a test of a long-lived command
(``watch``, ``daemon``) asserts it leaves behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def still_alive(pids: list[int], within: float = 10) -> list[int]:
    """The processes of ``pids`` still running after waiting up to ``within`` seconds."""
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]


def start_as_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """``python -m mcp_codegen ARGS`` as a terminal starts it, with pipes on stdout and stderr. A job
    a non-interactive shell runs in the background inherits SIGINT ignored (and so would the
    child, where Ctrl-C then does nothing): the child gets the default disposition whatever this
    test process was started with."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "mcp_codegen", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
