"""Where the first tools/call's CPU goes, plain vs ``mcp-codegen run`` (fast path and hooked).

A diagnostic beside bench/run_fastpath.py (same apps, same prepared work directory, same raw
stdio client: initialize, initialized, tools/list, then the first tools/call once the listing
is read). Each session runs bench/_run_fastpath_phases_child.py, which marks phases with
``perf_counter`` / ``process_time`` / ``thread_time`` (see its docstring), in fresh precompiled
processes, setups interleaved round by round. Printed per framework: median ms of each phase's
CPU on its own thread and the process CPU when the call's answer was written, plus the
client-side wall and process CPU (/proc/PID/stat) at the call's result.

Usage: python -m bench run_fastpath_phases [--sizes 10] [--repeats 9] [--workdir DIR]
(``--workdir``: a directory bench/run_fastpath.py prepared, e.g. with ``--keep``/``--workdir``;
without it one is prepared here.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench._support import process_cpu_ms, read_answer, send, server_env, server_process
from bench.run_fastpath import CALL, FRAMEWORKS, INITIALIZE, prepare

BENCH = Path(__file__).resolve().parent


CHILD = BENCH / "_run_fastpath_phases_child.py"
SETUPS = ("plain", "hooked", "fastpath")
RUN = ("--generated", "generated", "server:app")


def session(project: Path, lib: Path, setup: str) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as marks_file:
        marks_path = marks_file.name
    arguments = {"plain": [], "hooked": ["--no-fast-path", *RUN], "fastpath": list(RUN)}[setup]
    env = {**server_env(project, lib), "BENCH_PHASES_OUT": marks_path}
    spawned = time.perf_counter()
    with server_process(
        [sys.executable, str(CHILD), setup, *arguments],
        env=env,
        cwd=project,
        kill_after=300,
        wait=30,
    ) as process:
        send(process, INITIALIZE)
        send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        read_answer(process, 2)
        send(process, CALL)
        read_answer(process, 3)
        result = {
            "client: wall at call": (time.perf_counter() - spawned) * 1000,
            "client: CPU at call": process_cpu_ms(process.pid),
        }
    with open(marks_path, encoding="utf-8") as handle:
        marks = [json.loads(line) for line in handle]
    os.unlink(marks_path)
    result.update(phases(marks))
    return result


def phases(marks: list[list]) -> dict[str, float]:  # type: ignore[type-arg]
    """Thread CPU of every ``X <`` .. ``X >`` pair, and the process CPU / wall at single marks."""
    out: dict[str, float] = {}
    opened: dict[str, list] = {}  # type: ignore[type-arg]
    for name, thread, wall, cpu, thread_cpu in marks:
        if name.startswith("gc "):
            out[name] = wall
        elif name.endswith(" <"):
            opened[name[:-2]] = [wall, cpu, thread_cpu, thread]
        elif name.endswith(" >"):
            label = name[:-2]
            start = opened.pop(label)
            out[f"{label} ({start[3]}) thread CPU"] = thread_cpu - start[2]
            out[f"{label} wall"] = wall - start[0]
            out[f"{label} starts at process CPU"] = start[1]
        else:
            out[f"{name}: process CPU"] = cpu
            out[f"{name}: wall"] = wall
            out[f"{name}: {thread} thread CPU"] = thread_cpu
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--workdir", type=Path)
    options = parser.parse_args(argv)
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="run-fastpath-phases-"))
    lib = prepare(workdir, options.sizes)
    results: dict[tuple[str, int, str], list[dict[str, float]]] = {}
    for round_number in range(options.repeats):
        print(f"round {round_number + 1}/{options.repeats}", file=sys.stderr)
        for framework in FRAMEWORKS:
            for size in options.sizes:
                for setup in SETUPS:
                    project = workdir / f"{framework}-{size}"
                    results.setdefault((framework, size, setup), []).append(
                        session(project, lib, setup)
                    )
    for framework in FRAMEWORKS:
        for size in options.sizes:
            print(f"\n{framework} N={size:,}: medians of {options.repeats} rounds (ms)\n")
            print("| phase | " + " | ".join(SETUPS) + " |")
            print("|---|" + "---:|" * len(SETUPS))
            keys: list[str] = []
            for setup in SETUPS:
                for run in results[(framework, size, setup)]:
                    keys.extend(key for key in run if key not in keys)
            for key in keys:
                cells = []
                for setup in SETUPS:
                    values = [run[key] for run in results[(framework, size, setup)] if key in run]
                    cells.append(f"{statistics.median(values):.1f}" if values else "")
                print(f"| {key} | " + " | ".join(cells) + " |")
    print(f"\nload average {os.getloadavg()[0]:.1f}; Python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
