"""Process helpers shared by the stdio benchmarks (bench/hook.py, bench/run_fastpath.py).

``server_process`` spawns one server for one measurement (pipes for stdin/stdout, stderr
dropped) with a watchdog that kills it if it hangs, and closes it the same way every time;
``server_env`` is the environment every setup starts from (codegen from the benchmark's private
copy, the project importable, fastmcp's banner off).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from startup import _child_env


def server_env(project: Path, lib: Path) -> dict[str, str]:
    """The environment of a server of ``project`` with codegen imported from ``lib``."""
    env = {**_child_env(lib), "FASTMCP_SHOW_CLI_BANNER": "false"}
    env["PYTHONPATH"] = f"{project}{os.pathsep}{lib}"
    return env


@contextlib.contextmanager
def server_process(
    command: Sequence[str],
    *,
    env: dict[str, str],
    cwd: Path,
    kill_after: float,
    wait: float,
) -> Iterator[subprocess.Popen[bytes]]:
    """The running server; killed after ``kill_after`` s, and at the end its stdin is closed
    and it gets ``wait`` s to exit before it is killed."""
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    watchdog = threading.Timer(kill_after, process.kill)
    watchdog.start()
    try:
        yield process
    finally:
        process.stdin.close()  # type: ignore[union-attr]
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        watchdog.cancel()
        process.stdout.close()  # type: ignore[union-attr]
