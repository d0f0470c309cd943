"""The first tools/call in instructions, plain vs ``mcp-codegen run`` (hooked, fast path).

Wall and CPU time of a ~1-3 s server start swing by ~20% from one process to the next on a
shared 2-core VM (the same ``import`` of the same app: 1.0-1.5 s of CPU), more than the fast
path's whole share of the work, so medians of a few rounds cannot say which setup does more.
This counts it instead: each setup runs once under valgrind's callgrind (``PYTHONHASHSEED=0``),
driven like bench/run_fastpath.py's client (initialize, initialized, tools/list, then the first
tools/call once the listing is read), and gets SIGTERM as soon as the call's result has been
read: the count is the instructions executed (user space, every thread) from the interpreter's
start to the first call's answer, plus the idle wait for the next line. Reproducible to ~0.1%
between runs; valgrind runs ~50x slower, so this is one run per setup, not rounds.

Setups: plain (the app as written), hooked (``run --no-fast-path``), fastpath (``run``, the
stored listing in place), and fastpath-gc-on (``run --no-gc-pause``: the fast path with the
cyclic garbage collector left running while the server starts, which shows what the fast path
itself costs apart from the collector's pause). Synthetic apps from a directory
bench/run_fastpath.py prepared (``--workdir``), or with ``--realworld-envs`` the published servers of its ``--realworld-envs``
mode (prepared again in ``--workdir``: generation is skipped where done).

Usage: python -m bench run_fastpath_instructions --workdir DIR [--sizes 10] [--setups ...]
       python -m bench run_fastpath_instructions --workdir DIR --realworld-envs .nox [--only git]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from bench._support import read_answer, server_env
from bench.run_fastpath import CALL, FRAMEWORKS, INITIALIZE, command, prepare

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent


SETUPS = ("plain", "hooked", "fastpath-gc-on", "fastpath")
_COLLECTED = re.compile(r"Collected : (\d+)")


def count(argv: list[str], env: dict[str, str], cwd: Path, call: dict[str, object]) -> int:
    """Instructions ``argv`` executes up to the answer to ``call`` (see the module docstring)."""
    env = {**env, "PYTHONHASHSEED": "0"}
    process = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        for message in (INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}):
            send(process, message)
        send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        read_answer(process, 2)
        send(process, call)
        read_answer(process, 3)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    found = _COLLECTED.search(err.decode("utf-8", "replace"))
    if found is None:
        raise RuntimeError(f"{argv}: no instruction count:\n{err.decode()[-2000:]}")
    return int(found.group(1))


def send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
    process.stdin.flush()  # type: ignore[union-attr]


def table(rows: list[tuple[str, dict[str, int]]], setups: tuple[str, ...]) -> str:
    ratios = [setup for setup in ("fastpath", "fastpath-gc-on") if setup in setups]
    names = {"fastpath": "fast path / plain", "fastpath-gc-on": "gc on / plain"}
    lines = [
        "Instructions to the first tools/call's answer (millions, callgrind, one run each, "
        "PYTHONHASHSEED=0)",
        "",
        "| server | " + " | ".join([*setups, *(names[setup] for setup in ratios)]) + " |",
        "|---|" + "---:|" * (len(setups) + len(ratios)),
    ]
    for label, counts in rows:
        cells = [f"{counts[setup] / 1e6:,.0f}" for setup in setups]
        cells += [f"{counts[setup] / counts['plain']:.3f}" for setup in ratios]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10])
    parser.add_argument("--setups", nargs="+", default=list(SETUPS), choices=SETUPS)
    parser.add_argument("--frameworks", nargs="+", default=list(FRAMEWORKS), choices=FRAMEWORKS)
    parser.add_argument("--realworld-envs", type=Path)
    parser.add_argument("--only", nargs="+", help="realworld: only these server ids (prefixes)")
    options = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed")
    setups = tuple(s for s in SETUPS if s in options.setups or s in ("plain", "fastpath"))
    options.workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    if options.realworld_envs is None:
        lib = prepare(options.workdir, options.sizes)
        for framework in options.frameworks:
            for size in options.sizes:
                project = options.workdir / f"{framework}-{size}"
                counts = {
                    setup: count(command(setup), server_env(project, lib), project, CALL)
                    for setup in setups
                }
                rows.append((f"{framework} N={size:,}", counts))
                print(rows[-1], file=sys.stderr)
    else:
        from bench._run_fastpath_realworld import prepare as prepare_realworld
        from bench.run_fastpath import FLOOR

        lib = options.workdir / "lib"
        for part in ("mcp_codegen", "templates"):
            if (lib / part).exists():
                shutil.rmtree(lib / part)
            shutil.copytree(REPO / part, lib / part, ignore=shutil.ignore_patterns("__pycache__"))
        servers = prepare_realworld(
            options.workdir, options.realworld_envs.resolve(), lib, FLOOR, INITIALIZE
        )
        for server in servers:
            if options.only and not server.ident.startswith(tuple(options.only)):
                continue
            env = server_env(server.project, lib)
            counts = {
                setup: count(server.command(setup), env, server.project, server.call)
                for setup in setups
            }
            rows.append((server.ident, counts))
            print(rows[-1], file=sys.stderr)
    print(table(rows, setups))
    print(f"\nPython {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
