"""Where use_generated's start-up time goes: bench/hook.py's apps, timed phase by phase.

A diagnostic beside ``bench/hook.py`` (same apps, same generator, same stdio client), for reading
what the hook can and cannot remove at a given N. Every run is a fresh precompiled server process;
a small wrapper (bench/_hook_phases_child.py) marks three points and times the garbage collector:

  app     spawn -> the app module imported (framework, and for "with" the hook and the
          generated modules);
  tools   -> the initialize answer written (the tool modules imported and their tools registered);
  list    -> the tools/list answer written (the framework listing and serialising every tool).

Each phase is reported as wall ms and the part of it spent in garbage collection, with the number
of full (generation 2) collections before the listing is written. Setups, interleaved round by
round:

  floor   the app with no tools (as in bench/hook.py);
  noop    the tool modules imported with a ``tool`` decorator that registers nothing: the
          user's own module code, which no hook can remove;
  with    the app under ``use_generated``;
  without the app as written (only with --without: it takes seconds per run).

Below the table, per framework: the hook's share (what "with" adds to "noop" before the
listing) and the ratio to the floor "with" would measure if that share were nothing:
about the best a hook that keeps the framework's own listing can do here.

The wrapper's own hooks (a GC callback, one patched write) cost well under 1 ms. Not a timed
test; read the differences between setups of one run.

Usage: python -m bench hook_phases [--size 1000] [--repeats 7] [--without] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path

from bench._support import scratch_dir, send
from bench.hook import FRAMEWORKS, INITIALIZE, prepare, server_env

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CHILD = BENCH / "_hook_phases_child.py"


PHASES = ("app", "tools", "list")


def measure(project: Path, lib: Path, setup: str) -> dict[str, float]:
    """One fresh server's phase times (ms), GC ms per phase and full collections."""
    env = {**server_env(project, lib, setup), "BENCH_PHASES_SETUP": setup}
    process = subprocess.Popen(
        [sys.executable, str(CHILD), str(project / "serve.py")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=project,
    )  # fmt: skip
    watchdog = threading.Timer(180, process.kill)
    watchdog.start()
    try:
        send(process, INITIALIZE)
        send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        while json.loads(process.stdout.readline()).get("id") != 2:  # type: ignore[union-attr]
            pass
    finally:
        _, stderr = process.communicate(timeout=30)  # closes stdin: the server exits
        watchdog.cancel()
    for line in stderr.decode().splitlines():
        if line.startswith("BENCH_PHASES "):
            return json.loads(line.removeprefix("BENCH_PHASES "))  # type: ignore[no-any-return]
    raise RuntimeError(f"{setup}: no phase report; stderr:\n{stderr.decode()[-2000:]}")


def run(size: int, repeats: int, without: bool, workdir: Path) -> str:
    lib = prepare(workdir, [size])
    setups = ("floor", "noop", "with", *(("without",) if without else ()))
    samples: dict[tuple[str, str], list[dict[str, float]]] = {}
    for round_number in range(repeats):
        print(f"round {round_number + 1}/{repeats}", file=sys.stderr)
        for framework in FRAMEWORKS:
            for setup in setups:
                result = measure(workdir / f"{framework}-{size}", lib, setup)
                samples.setdefault((framework, setup), []).append(result)
    lines = [
        f"use_generated phases at N = {size:,}: median of {repeats} fresh processes; Python "
        f"{platform.python_version()}, mcp {metadata.version('mcp')}, fastmcp "
        f"{metadata.version('fastmcp')}, {os.cpu_count()} CPUs",
        "",
        "Wall ms per phase (of which in garbage collection), full collections before the "
        "tools/list answer",
        "",
        "| app | setup | app | tools | list | total | full GCs |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for framework in FRAMEWORKS:
        for setup in setups:
            runs = samples[(framework, setup)]

            def median(key: str, runs: list[dict[str, float]] = runs) -> float:
                return statistics.median(run[key] for run in runs)

            cells = [f"{median(p):,.0f} ({median(p + '_gc'):,.0f})" for p in PHASES]
            lines.append(
                f"| {framework} | {setup} | {' | '.join(cells)} | {median('total'):,.0f} "
                f"| {median('full'):.0f} |"
            )
    lines += ["", *bounds(samples)]
    return "\n".join(lines)


def bounds(samples: dict[tuple[str, str], list[dict[str, float]]]) -> list[str]:
    """Per framework: what "with" adds over "noop" before the listing (the hook's share), and the
    ratio to the floor that "with" would have if that share were nothing."""
    lines = []
    for framework in FRAMEWORKS:

        def median(setup: str, key: str, framework: str = framework) -> float:
            return statistics.median(run[key] for run in samples[(framework, setup)])

        floor, with_hook = median("floor", "total"), median("with", "total")
        share = sum(median("with", phase) - median("noop", phase) for phase in ("app", "tools"))
        lines.append(
            f"- {framework}: with / floor {with_hook / floor:.3f}x; the hook's share before the "
            f"listing (with - noop) {share:,.0f} ms; with that share at zero: "
            f"{(with_hook - share) / floor:.3f}x"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--without", action="store_true", help="also time the app without the hook")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    options = parser.parse_args(argv)
    with scratch_dir("mcp-codegen-hook-phases-", keep=options.keep) as workdir:
        print(run(options.size, options.repeats, options.without, workdir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
