"""``bench/run_fastpath.py --realworld-envs DIR``: the published servers of ``nox -s realworld``'s
fast-path check (tests/e2e/realworld/check_run_fastpath.py: duckduckgo, git factory, word,
motherduck factory, keboola), each in the environment it is installed in
(``DIR/realworld-<env>/bin/python``, as ``nox -s realworld`` creates them), with this
checkout's ``mcp_codegen`` (its copy in the benchmark's ``lib``) on ``PYTHONPATH``.

Per server, the same setups as the synthetic apps, interleaved round by round: floor (the stdlib
script answering with THAT server's listing, in the same environment's Python), plain (its module
imported, ``.run()``, as check_run_fastpath.py starts it), hooked (``run --no-fast-path``) and
fast path (``run``); and spawn -> first tools/call result for plain and fast path. The call is the
first listed tool that has required arguments, called with none: the framework's validation
error is a result, and nothing touches the network or needs credentials. Every environment and
project is precompiled first (``compileall``), and the fast path's stored listing is written by
one session before the rounds.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._support import (
    Usage,
    children_cpu_ms,
    first_call_table,
    peak_rss_mb,
    process_cpu_ms,
    read_answer,
    server_env,
    server_process,
)

BENCH = Path(__file__).resolve().parent
REALWORLD = BENCH.parent / "tests" / "e2e" / "realworld"


SETUPS = ("floor", "plain", "hooked", "fastpath")


class Server:
    def __init__(self, ident: str, python: Path, project: Path, info: dict[str, Any]) -> None:
        self.ident, self.python, self.project = ident, python, project
        self.target: str = info["target"]
        self.module: str = info["module"]
        self.attribute: str = info["attribute"]
        self.call: dict[str, Any] = {}
        self.initialize: dict[str, Any] = {}
        self.tools = 0

    def command(self, setup: str) -> list[str]:
        run = [str(self.python), "-m", "mcp_codegen", "run", "--generated", "generated"]
        if setup == "baseline":  # the same command, with the baseline's codegen (server_env)
            return [*run, self.target]
        return {
            "floor": [str(self.python), "floor.py"],
            "plain": [
                str(self.python),
                "-c",
                f"import {self.module} as m; m.{self.attribute}.run()",
            ],
            "hooked": [*run, "--no-fast-path", self.target],
            "fastpath": [*run, self.target],
            "fastpath-gc-on": [*run, "--no-gc-pause", self.target],
        }[setup]


def prepare(
    workdir: Path,
    envs: Path,
    lib: Path,
    floor: str,
    initialize: dict[str, Any],
    baseline: Path | None = None,
) -> list[Server]:
    """Generate each server's project in its environment, precompile, store the listing."""
    from tests.e2e.realworld.check_run_fastpath import FAST_PATH_RUNS

    servers = []
    for env, idents in FAST_PATH_RUNS.items():
        python = envs / f"realworld-{env}" / "bin" / "python"
        if not python.is_file():
            raise SystemExit(
                f"{python} is missing: run `nox -s realworld` first (or pass its .nox)"
            )
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        subprocess.run(  # a few files of Python 2 in some packages: not imported, not counted
            [str(python), "-m", "compileall", "-q", site], check=False, stdout=subprocess.DEVNULL
        )
        for ident in idents:
            project = workdir / "realworld" / ident
            done = subprocess.run(
                [str(python), str(BENCH / "_realworld_child.py"), str(project), ident],
                env=server_env(project, lib),
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(f"{ident}: preparing failed:\n{done.stderr}")
            info = json.loads(done.stdout.splitlines()[-1])
            if not info["serves"]:
                raise SystemExit(f"{ident}: the fast path does not serve {info['target']} here")
            server = Server(ident, python, project, info)
            server.initialize = initialize
            (project / "floor.py").write_text(floor)
            subprocess.run(
                [str(python), "-m", "compileall", "-q", str(project), str(lib)]
                + ([str(baseline)] if baseline is not None else []),
                check=True,
            )
            if baseline is not None:  # the baseline's stored listing (its own key)
                _session(server, baseline, "baseline", call=False)
            listing = _session(server, lib, "fastpath", call=False)[2]  # stores the listing too
            tools = listing["result"]["tools"]
            (project / "listing.json").write_text(json.dumps(tools))
            server.tools = len(tools)
            server.call = _call(tools)
            servers.append(server)
    return servers


def _call(tools: list[dict[str, Any]]) -> dict[str, Any]:
    name = next(
        (tool["name"] for tool in tools if tool.get("inputSchema", {}).get("required")),
        tools[0]["name"],
    )
    return {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}},
    }


def _session(
    server: Server, lib: Path, setup: str, call: bool
) -> tuple[float, float | None, dict[str, Any], Usage | None]:
    """(spawn -> tools/list ms, spawn -> first tools/call answer ms or None, the listing, and
    with ``call`` the server's CPU and peak RSS when the answer arrived and its whole run's CPU)."""
    spawned = time.perf_counter()
    called = call_cpu = rss = None
    before = children_cpu_ms()
    with server_process(
        server.command(setup),
        env=server_env(server.project, lib),
        cwd=server.project,
        kill_after=600,
        wait=60,
    ) as process:
        for message in (
            server.initialize,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ):
            process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        listing = read_answer(process, 2)
        listed = (time.perf_counter() - spawned) * 1000
        if call:
            process.stdin.write(json.dumps(server.call).encode() + b"\n")  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
            answer = read_answer(process, 3)
            called = (time.perf_counter() - spawned) * 1000
            call_cpu, rss = process_cpu_ms(process.pid), peak_rss_mb(process.pid)
            assert "result" in answer or "error" in answer, answer
    cpu = None
    if call_cpu is not None and rss is not None:
        cpu = Usage(call_cpu, children_cpu_ms() - before, rss)
    return listed, called, listing, cpu


def run(
    envs: Path,
    repeats: int,
    workdir: Path,
    lib: Path,
    *,
    floor: str,
    initialize: dict[str, Any],
    target: float,
    fast_only: bool = False,
    baseline: Path | None = None,
) -> str:
    """``baseline``: a directory holding another checkout's ``mcp_codegen`` (a copy, precompiled
    here); its fast path runs interleaved with the others, on the same generated trees."""
    servers = prepare(workdir, envs, lib, floor, initialize, baseline)
    setups: tuple[str, ...] = ("floor", "fastpath") if fast_only else SETUPS
    if baseline is not None:
        setups = (*setups, "baseline")
    lists: dict[tuple[str, str], list[float]] = {}
    calls: dict[tuple[str, str], list[float]] = {}
    ratios: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[Usage]] = {}
    for round_number in range(repeats):
        print(f"real servers: round {round_number + 1}/{repeats}", file=sys.stderr)
        for server in servers:
            row = {}
            for setup in setups:
                listed, called, listing, cpu = _session(
                    server,
                    baseline if setup == "baseline" and baseline is not None else lib,
                    setup,
                    call=not fast_only and setup in ("plain", "fastpath"),
                )
                assert len(listing["result"]["tools"]) == server.tools, (server.ident, setup)
                row[setup] = listed
                lists.setdefault((server.ident, setup), []).append(listed)
                if called is not None:
                    calls.setdefault((server.ident, setup), []).append(called)
                    cpus.setdefault((server.ident, setup), []).append(cpu)
            for setup in setups[1:]:
                ratios.setdefault((server.ident, setup), []).append(row[setup] / row["floor"])
    text = (
        _fast_report(servers, repeats, lists, ratios, target)
        if fast_only
        else report(servers, repeats, lists, calls, ratios, target, cpus)
    )
    if baseline is not None:
        text += "\n\n" + _baseline_report(servers, repeats, lists, ratios)
    return text


def _baseline_report(servers, repeats, lists, ratios) -> str:  # type: ignore[no-untyped-def]
    med = statistics.median
    lines = [
        f"The fast path against the baseline checkout, interleaved: spawn -> tools/list, medians "
        f"of {repeats} rounds (ms; ratios are medians of the per-round ratios)",
        "",
        "| server | floor | fast path | baseline fast path | fast path / floor | "
        "baseline / floor | fast path / baseline |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for server in servers:
        key = server.ident
        fast, base = lists[(key, "fastpath")], lists[(key, "baseline")]
        lines.append(
            f"| {key} | {med(lists[(key, 'floor')]):.0f} | {med(fast):.0f} | {med(base):.0f} | "
            f"{med(ratios[(key, 'fastpath')]):.2f}x | {med(ratios[(key, 'baseline')]):.2f}x | "
            f"{med(a / b for a, b in zip(fast, base, strict=True)):.2f} |"
        )
    return "\n".join(lines)


def _fast_report(servers, repeats, lists, ratios, target) -> str:  # type: ignore[no-untyped-def]
    med = statistics.median
    lines = [
        f"mcp-codegen run fast path on published servers: spawn -> tools/list, medians of "
        f"{repeats} rounds (ms; x = ratio to the floor of the same round, median)",
        "",
        "| server | tools | floor | fast path | fast path / floor |",
        "|---|---:|---:|---:|---:|",
    ]
    missed = []
    for server in servers:
        ratio = med(ratios[(server.ident, "fastpath")])
        lines.append(
            f"| {server.ident} | {server.tools} | {med(lists[(server.ident, 'floor')]):.0f} | "
            f"{med(lists[(server.ident, 'fastpath')]):.0f} | {ratio:.2f}x |"
        )
        if ratio > target:
            missed.append(f"{server.ident}: fast path {ratio:.2f}x the floor")
    lines.extend(
        ["", "Target missed: " + "; ".join(missed) if missed else "Target met (<= 1.5x floor)."]
    )
    return "\n".join(lines)


def report(servers, repeats, lists, calls, ratios, target, cpus) -> str:  # type: ignore[no-untyped-def]
    med = statistics.median
    lines = [
        f"mcp-codegen run fast path on published servers: spawn -> tools/list and -> first "
        f"tools/call, medians of {repeats} rounds (ms; x = ratio to the floor of the same round, "
        "median)",
        "",
        "| server | tools | floor | plain | hooked | fast path | fast path / floor | "
        "first call plain | first call fast path |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    missed = []
    for server in servers:
        key = server.ident
        fast_ratio = med(ratios[(key, "fastpath")])
        plain_call, fast_call = med(calls[(key, "plain")]), med(calls[(key, "fastpath")])
        lines.append(
            f"| {key} | {server.tools} | {med(lists[(key, 'floor')]):.0f} | "
            f"{med(lists[(key, 'plain')]):.0f} ({med(ratios[(key, 'plain')]):.1f}x) | "
            f"{med(lists[(key, 'hooked')]):.0f} ({med(ratios[(key, 'hooked')]):.1f}x) | "
            f"{med(lists[(key, 'fastpath')]):.0f} | {fast_ratio:.2f}x | "
            f"{plain_call:.0f} | {fast_call:.0f} |"
        )
        if fast_ratio > target:
            missed.append(f"{key}: fast path {fast_ratio:.2f}x the floor")
        if fast_call > plain_call:
            missed.append(f"{key}: first call {fast_call:.0f} > {plain_call:.0f} ms")
    table, cpu_missed = first_call_table(
        [
            (
                server.ident,
                calls[(server.ident, "plain")],
                calls[(server.ident, "fastpath")],
                cpus[(server.ident, "plain")],
                cpus[(server.ident, "fastpath")],
            )
            for server in servers
        ],
        repeats,
    )
    lines.extend(["", *table])
    missed.extend(m for m in cpu_missed if " CPU " in m)
    lines.append("")
    lines.append(
        "Targets met (fast path <= 1.5x floor, first call no slower than plain)."
        if not missed
        else "Targets missed: " + "; ".join(missed)
    )
    return "\n".join(lines)
