"""Startup benchmark: generated schemas vs the SDK's runtime inference. Prints a table.

For N synthetic tools with varied signatures (bench/synthetic.py), every measurement runs in a
fresh process, with all bytecode precompiled (these machines set PYTHONDONTWRITEBYTECODE=1):

A. spawn -> the full tools/list payload in memory, time and peak RSS, for
   floor  a bare import of one literal module holding the payload;
   ours   mcp_codegen.runtime loading the generated modules and listing fresh copies of the tools;
   SDK    MCPServer: import the tool modules, register each tool with @app.tool(), list_tools().
B. over stdio, with a raw JSON-RPC client: spawn -> the client holds the parsed tools/list
   response, spawn -> the first tools/call result (sent as soon as tools/list is answered), and
   the server's peak RSS by then, for
   floor   a process that imports the literal module and writes the responses (no tools/call);
   SDK     the MCPServer server of setup A;
   before  `python -m mcp_codegen.runtime --no-fast-path` (the SDK door from the first message, as
           before the fast path);
   lazy    the fast path, preparing the SDK only when tools/call arrives
           (MCP_CODEGEN_FAST_PATH_PRELOAD=0);
   now     the fast path as shipped (the SDK prepared in the background after tools/list).

The generated modules come from the real generator (`python -m mcp_codegen generate`). Medians of
--repeats runs; setups are interleaved so machine noise spreads evenly. Not a timed test.

Usage: python -m bench startup [--sizes 10 100 1000] [--repeats 7] [--think-ms 0] [--keep]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from bench._support import child_env, main_thread_cpu_ms, read_answer, scratch_dir, send

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CHILD = BENCH / "_startup_child.py"
PAYLOAD_SETUPS = ("floor", "ours", "sdk")
BASELINE_SETUPS = ("empty", "sdk-import")
STDIO_SERVERS = ("floor", "sdk", "before", "lazy", "now")
#: A valid call of the first synthetic tool (bench/synthetic.py, shape 0).
FIRST_CALL = {"name": "tool_00000", "arguments": {"text": "hi", "count": 2}}


@dataclass
class Samples:
    """Raw measurements of one (setup, N) pair."""

    total_ms: list[float] = field(default_factory=list)
    inside_ms: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    payload_bytes: int = 0

    def median(self, name: str) -> float:
        return statistics.median(getattr(self, name))


def prepare(workdir: Path, sizes: list[int]) -> Path:
    """Write the synthetic packages, generate their modules, write the floor, precompile all."""
    from bench.synthetic import write_package
    from mcp_codegen.runtime import load_tools

    lib = workdir / "lib"
    # A private copy of codegen, so precompiling writes nothing into the repository.
    shutil.copytree(
        REPO / "mcp_codegen", lib / "mcp_codegen", ignore=shutil.ignore_patterns("__pycache__")
    )
    for size in sizes:
        project = workdir / f"n{size}"
        write_package(project, size)
        config = str(project / "pyproject.toml")
        subprocess.run(  # the generator runs from the repository, templates included
            [sys.executable, "-m", "mcp_codegen", "--config", config, "generate"],
            cwd=project,
            env={**child_env(lib), "PYTHONPATH": f"{project}{os.pathsep}{REPO}"},
            check=True,
            stdout=subprocess.DEVNULL,
        )
        tools = tuple(load_tools(project / "generated").list_tools())
        assert len(tools) == size, (len(tools), size)
        (project / "floor_tools.py").write_text(f"TOOLS = {tools!r}\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(workdir)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return lib


def measure_payload(setup: str, project: Path, lib: Path) -> tuple[float, float, float, int, int]:
    """(spawn->ready ms, in-process ms, peak RSS MiB, tool count, payload bytes) of one run."""
    spawned = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, str(CHILD), setup, str(project)],
        env=child_env(lib),
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{setup} child failed:\n{completed.stderr}")
    start, ready, count, peak_kib, size = completed.stdout.split()
    return (
        (float(ready) - spawned) * 1000,
        (float(ready) - float(start)) * 1000,
        int(peak_kib) / 1024,
        int(count),
        int(size),
    )


@dataclass
class StdioRun:
    """One stdio session's measurements."""

    list_ms: float
    call_ms: float | None  # spawn -> first tools/call result
    latency_ms: float | None  # tools/call sent -> its result
    cpu_ms: float
    rss_mib: float
    tools: int


def measure_stdio(server: str, project: Path, lib: Path, think: float = 0.0) -> StdioRun:
    """Spawn -> parsed tools/list, spawn -> first tools/call result, CPU and peak RSS.

    Wall time on a shared machine is noisy; the server's CPU time (its main thread's, read from
    /proc/PID/schedstat when tools/list has been answered) is the steadier number. ``think``: seconds
    the client waits between the tools/list response and the call (a model choosing a tool).
    """
    env = child_env(lib)
    if server in ("before", "lazy", "now"):
        generated = str(project / "generated")
        command = [sys.executable, "-m", "mcp_codegen.runtime", "--generated", generated]
        command += ["--path", str(project)]
        if server == "before":
            command.append("--no-fast-path")
        if server == "lazy":
            env["MCP_CODEGEN_FAST_PATH_PRELOAD"] = "0"
    else:
        command = [sys.executable, str(CHILD), f"{server}-serve", str(project)]
    spawned = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=project,
    )
    watchdog = threading.Timer(120, process.kill)
    watchdog.start()
    call_ms = latency_ms = None
    try:
        send(
            process,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "startup-bench", "version": "0"},
                },
            },
        )
        read_answer(process, 1)
        send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        response = read_answer(process, 2)
        list_ms = (time.perf_counter() - spawned) * 1000
        cpu_ms = main_thread_cpu_ms(process.pid)
        if server != "floor":
            time.sleep(think)
            sent = time.perf_counter()
            send(process, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": FIRST_CALL})
            called = read_answer(process, 3)
            call_ms = (time.perf_counter() - spawned) * 1000
            latency_ms = (time.perf_counter() - sent) * 1000
            assert not called["result"].get("isError"), called  # type: ignore[attr-defined]
        rss_mib = _peak_rss_mib(process.pid)
    finally:
        process.stdin.close()  # type: ignore[union-attr]  # end of input: the server exits
        process.wait()
        watchdog.cancel()
        process.stdout.close()  # type: ignore[union-attr]
    tools = len(response["result"]["tools"])  # type: ignore[index]
    return StdioRun(list_ms, call_ms, latency_ms, cpu_ms, rss_mib, tools)


def _peak_rss_mib(pid: int) -> float:
    """A live process's peak resident set size (Linux /proc VmHWM)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run(sizes: list[int], repeats: int, workdir: Path, think: float = 0.0) -> str:
    """Run every measurement and return the report."""
    lib = prepare(workdir, sizes)
    payload: dict[tuple[str, int], Samples] = {}
    baseline: dict[str, Samples] = {setup: Samples() for setup in BASELINE_SETUPS}
    stdio: dict[tuple[str, int], list[StdioRun]] = {}
    for round_number in range(repeats):
        print(f"round {round_number + 1}/{repeats}", file=sys.stderr)
        for setup in BASELINE_SETUPS:
            total, inside, rss, _, _ = measure_payload(setup, workdir / f"n{sizes[0]}", lib)
            baseline[setup].total_ms.append(total)
            baseline[setup].inside_ms.append(inside)
            baseline[setup].rss_mib.append(rss)
        for size in sizes:
            project = workdir / f"n{size}"
            for setup in PAYLOAD_SETUPS:
                total, inside, rss, count, size_bytes = measure_payload(setup, project, lib)
                assert count == size, (setup, count, size)
                samples = payload.setdefault((setup, size), Samples())
                samples.total_ms.append(total)
                samples.inside_ms.append(inside)
                samples.rss_mib.append(rss)
                samples.payload_bytes = size_bytes
            for server in STDIO_SERVERS:
                measured = measure_stdio(server, project, lib, think)
                assert measured.tools == size, (server, measured.tools, size)
                stdio.setdefault((server, size), []).append(measured)
    return report(sizes, repeats, payload, baseline, stdio, think)


def report(
    sizes: list[int],
    repeats: int,
    payload: dict[tuple[str, int], Samples],
    baseline: dict[str, Samples],
    stdio: dict[tuple[str, int], list[StdioRun]],
    think: float = 0.0,
) -> str:
    """The benchmark tables as text."""
    lines = [
        f"Startup benchmark: median of {repeats} fresh processes per cell; Python "
        f"{platform.python_version()}, mcp {metadata.version('mcp')}, pydantic "
        f"{metadata.version('pydantic')}, {os.cpu_count()} CPUs",
        "",
        "A. Spawn -> full tools/list payload in memory (ms; in-process part in brackets)",
        "",
        "| N | floor | ours | SDK | ours / floor | SDK / ours "
        "| peak RSS MiB floor / ours / SDK | payload KiB ours / SDK |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        floor, ours, sdk = (payload[(setup, size)] for setup in PAYLOAD_SETUPS)
        lines.append(
            f"| {size:,} "
            + "".join(
                f"| {s.median('total_ms'):,.0f} ({s.median('inside_ms'):,.1f}) "
                for s in (floor, ours, sdk)
            )
            + f"| {ours.median('total_ms') / floor.median('total_ms'):.2f}x "
            f"| {sdk.median('total_ms') / ours.median('total_ms'):,.0f}x "
            f"| {floor.median('rss_mib'):.0f} / {ours.median('rss_mib'):.0f} / "
            f"{sdk.median('rss_mib'):.0f} "
            f"| {ours.payload_bytes / 1024:,.0f} / {sdk.payload_bytes / 1024:,.0f} |"
        )
    empty, sdk_import = baseline["empty"], baseline["sdk-import"]
    lines += [
        "",
        f"Interpreter start alone: {empty.median('total_ms'):,.0f} ms, "
        f"{empty.median('rss_mib'):.0f} MiB. Importing mcp.server.lowlevel alone: "
        f"{sdk_import.median('total_ms'):,.0f} ms spawn-to-done "
        f"({sdk_import.median('inside_ms'):,.0f} ms of import), "
        f"{sdk_import.median('rss_mib'):.0f} MiB.",
        "",
        "B. Over stdio: spawn -> client holds the parsed tools/list response (wall ms; the "
        "server's CPU ms by then in brackets)",
        "",
        "| N | " + " | ".join(STDIO_SERVERS) + " | now / floor | CPU now / floor | before / now |",
        "|---:|" + "---:|" * (len(STDIO_SERVERS) + 3),
    ]

    def median(server: str, size: int, name: str) -> float:
        values = [getattr(run, name) for run in stdio[(server, size)]]
        return statistics.median(values) if None not in values else float("nan")

    for size in sizes:
        cells = [
            f"{median(server, size, 'list_ms'):,.0f} ({median(server, size, 'cpu_ms'):,.1f})"
            for server in STDIO_SERVERS
        ]
        now, floor, before = (median(s, size, "list_ms") for s in ("now", "floor", "before"))
        cpu_ratio = median("now", size, "cpu_ms") / median("floor", size, "cpu_ms")
        lines.append(
            f"| {size:,} | "
            + " | ".join(cells)
            + f" | {now / floor:.2f}x | {cpu_ratio:.2f}x | {before / now:.1f}x |"
        )
    callers = [server for server in STDIO_SERVERS if server != "floor"]
    lines += [
        "",
        f"C. Over stdio: spawn -> first tools/call result (ms), sent {think * 1000:,.0f} ms after "
        "tools/list is answered (the call's own latency in brackets); peak RSS (MiB) by then",
        "",
        "| N | "
        + " | ".join(f"call {server}" for server in callers)
        + " | "
        + " | ".join(f"RSS {server}" for server in STDIO_SERVERS)
        + " |",
        "|---:|" + "---:|" * (len(callers) + len(STDIO_SERVERS)),
    ]
    for size in sizes:
        calls = [
            f"{median(server, size, 'call_ms'):,.0f} ({median(server, size, 'latency_ms'):,.0f})"
            for server in callers
        ]
        rss = [f"{median(server, size, 'rss_mib'):,.0f}" for server in STDIO_SERVERS]
        lines.append(f"| {size:,} | " + " | ".join(calls + rss) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="pause between the tools/list response and the first tools/call (default: 0)",
    )
    options = parser.parse_args(argv)
    with scratch_dir("mcp-codegen-startup-", keep=options.keep) as workdir:
        print(run(options.sizes, options.repeats, workdir, options.think_ms / 1000))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
