"""Helpers shared by the benchmark scenarios: processes, environments, scratch directories.

``server_process`` spawns one server for one measurement (pipes for stdin/stdout, stderr
dropped) with a watchdog that kills it if it hangs, and closes it the same way every time;
``read_answer`` reads a server's stdout up to the answer to one request;
``server_env`` is the environment every setup starts from (codegen from the benchmark's private
copy, the project importable, fastmcp's banner off).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple


def child_env(lib: Path) -> dict[str, str]:
    """A minimal environment with ``lib`` (the benchmark's copy of the package) importable."""
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env["PYTHONPATH"] = str(lib)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # everything is precompiled; measure reads, not writes
    return env


def send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    """Write one JSON-RPC message to the server's stdin."""
    process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
    process.stdin.flush()  # type: ignore[union-attr]


def read_answer(process: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    """The server's answer to request ``request_id``; other lines (a server that prints to
    stdout, notifications) are skipped."""
    while True:
        line = process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"the server exited before answering request {request_id}")
        try:
            message = json.loads(line)
        except ValueError:  # a server that prints to stdout (word's start-up lines)
            continue
        if isinstance(message, dict) and message.get("id") == request_id:
            return message


def server_env(project: Path, lib: Path) -> dict[str, str]:
    """The environment of a server of ``project`` with codegen imported from ``lib``."""
    # fastmcp's banner off in every setup, as serve.py's ``run(show_banner=False)``: ``run()``
    # reads FASTMCP_SHOW_SERVER_BANNER from 3.x on (FASTMCP_SHOW_CLI_BANNER is 2.x's, read by
    # its ``fastmcp run`` command only; with it alone, ``mcp-codegen run``'s fastmcp rows drew
    # the banner, with its imports, where plain did not)
    env = {
        **child_env(lib),
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        "FASTMCP_SHOW_CLI_BANNER": "false",
    }
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


def process_cpu_ms(pid: int) -> float:
    """CPU time (user + system) a live process has used so far, every thread included, also the
    ones that have exited (Linux /proc/PID/stat, in clock ticks: 10 ms resolution)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """The peak resident set size of a live process so far (Linux /proc/PID/status VmHWM)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise ValueError(f"no VmHWM for process {pid}")


def children_cpu_ms() -> float:
    """CPU time (user + system) of every child this process has reaped so far (``getrusage``,
    microseconds): the difference around one ``server_process`` is that server's whole run."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


class Usage(NamedTuple):
    """What one server process used, read when the first call's result arrived (``call_cpu``,
    ``peak_rss``) and after it exited (``run_cpu``)."""

    call_cpu: float  # ms, every thread
    run_cpu: float  # ms, getrusage of the reaped child
    peak_rss: float  # MB


def first_call_table(
    rows: list[tuple[str, list[float], list[float], list[Usage], list[Usage]]],
    repeats: int,
) -> tuple[list[str], list[str]]:
    """The first tools/call, plain vs fast path, in wall and CPU time and memory: ``rows`` are
    (label, plain wall ms, fast wall ms, plain ``Usage``, fast ``Usage``), one value per round,
    in round order; ratios are medians of the per-round ratios. Returns the table's lines and
    the rows where the fast path's median is above plain's (wall or CPU)."""
    import statistics

    med = statistics.median
    lines = [
        f"First tools/call, plain vs fast path, medians of {repeats} rounds (ms; wall = spawn -> "
        "the call's result; CPU = the server's user+system time, every thread, when the result "
        "arrived (10 ms ticks); run CPU = its whole run to exit (getrusage); peak RSS = the "
        "server's VmHWM when the result arrived, MB)",
        "",
        "| server | wall plain | wall fast | fast/plain | CPU plain | CPU fast | fast/plain | "
        "run CPU plain | run CPU fast | fast/plain | peak RSS plain | peak RSS fast | fast/plain |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    missed = []
    for label, plain_wall, fast_wall, plain_cpu, fast_cpu in rows:
        cells = []
        for what, plain, fast in (
            ("wall", plain_wall, fast_wall),
            ("CPU", [u.call_cpu for u in plain_cpu], [u.call_cpu for u in fast_cpu]),
            ("run CPU", [u.run_cpu for u in plain_cpu], [u.run_cpu for u in fast_cpu]),
            ("peak RSS", [u.peak_rss for u in plain_cpu], [u.peak_rss for u in fast_cpu]),
        ):
            ratio = med(f / p for f, p in zip(fast, plain, strict=True) if p)
            digits = 1 if what == "peak RSS" else 0
            cells.append(f"{med(plain):.{digits}f} | {med(fast):.{digits}f} | {ratio:.2f}")
            if what in ("wall", "CPU") and med(fast) > med(plain):
                missed.append(f"{label}: first call {what} {med(fast):.0f} > {med(plain):.0f} ms")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines, missed


def main_thread_cpu_ms(pid: int) -> float:
    """CPU time the live process's main thread has used so far (Linux /proc schedstat, ns).

    Everything up to the tools/list answer runs on the main thread in every setup (the fast
    path starts its background import only after answering), so this is the work done by then.
    """
    with open(f"/proc/{pid}/schedstat", encoding="ascii") as schedstat:
        return int(schedstat.read().split()[0]) / 1e6


@contextmanager
def scratch_dir(prefix: str, *, keep: bool) -> Iterator[Path]:
    """A temporary directory for one benchmark run, removed afterwards unless ``keep``."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield workdir
    finally:
        if keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def timed_codegen(
    cwd: Path, args: Sequence[str], env: dict[str, str], ok: tuple[int, ...] = (0,)
) -> tuple[float, float]:
    """Run ``python -m mcp_codegen ARGS`` in ``cwd``: its wall time, and the CPU time of the
    command with all its worker processes; exits the benchmark if its code is not in ``ok``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        raise SystemExit(f"mcp-codegen {' '.join(args)} in {cwd} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu
