"""Load test: `python -m mcp_codegen.runtime` loses no response under load. Prints a table.

Both scenarios drive a real server process with the official MCP Python SDK client
(``ClientSession``), on loopback or stdio:

  stdio  one client sending --calls sequential ``tools/call`` requests;
  http   --clients concurrent clients, one streamable HTTP session each, every client sending
         --calls-per-client sequential requests; all sessions open before the first call.

The tool is ``add`` from the abuse-test fixtures (tests/runtime/abuse/fixtures), the smallest
tool that still takes the whole serving path: transport, JSON-RPC dispatch, inputSchema
validation, pydantic conversion, a worker-thread hop, boxing, the text copy. So the numbers are
the runtime's and the SDK's overhead, not a tool's. Every call sends its own operands and its
result must be their sum, so a response delivered to the wrong call counts as an error. A call
with no response within --deadline seconds counts as lost.

Throughput is calls divided by the wall time from the first call to the last response; the
latencies are per call, as the client sees them. Client and server share the machine.

Usage: python -m bench load [--calls 10000] [--clients 100] [--calls-per-client 20]
                            [--only stdio|http] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "runtime" / "abuse" / "fixtures"
GENERATED = FIXTURES / "output" / "generated"


@dataclass
class Outcome:
    """What one scenario measured."""

    scenario: str
    calls: int = 0
    errors: int = 0
    lost: int = 0
    wall_s: float = 0.0
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    first_problem: str = ""

    @property
    def answered(self) -> int:
        return self.calls - self.lost

    def throughput(self) -> float:
        return self.answered / self.wall_s if self.wall_s else 0.0

    def percentile(self, fraction: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    def note(self, problem: str) -> None:
        self.first_problem = self.first_problem or problem

    def summary(self) -> dict[str, Any]:
        data = asdict(self)
        del data["latencies_ms"]
        data.update(
            answered=self.answered,
            throughput=round(self.throughput(), 1),
            p50_ms=round(self.percentile(0.50), 3),
            p99_ms=round(self.percentile(0.99), 3),
        )
        return data


def server_env() -> dict[str, str]:
    """The server's environment: the repository and the fixture tools importable."""
    env = {key: value for key, value in os.environ.items() if key in ("PATH", "HOME", "LANG")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(FIXTURES)])
    return env


def server_args(*extra: str) -> list[str]:
    return ["-m", "mcp_codegen.runtime", "--generated", str(GENERATED), *extra]


async def call_and_check(
    session: ClientSession, a: int, b: int, deadline: float, outcome: Outcome
) -> None:
    """One ``add`` call, timed and checked; a missing answer is lost, a wrong one an error."""
    outcome.calls += 1
    started = time.perf_counter()
    try:
        with anyio.fail_after(deadline):
            result = await session.call_tool("add", {"a": a, "b": b})
    except TimeoutError:
        outcome.lost += 1
        outcome.note(f"add({a}, {b}): no response within {deadline} s")
        return
    except Exception as exc:  # an error response, or the session broke
        outcome.latencies_ms.append((time.perf_counter() - started) * 1000)
        outcome.errors += 1
        outcome.note(f"add({a}, {b}): {type(exc).__name__}: {exc}")
        return
    outcome.latencies_ms.append((time.perf_counter() - started) * 1000)
    if result.is_error or result.structured_content != {"result": a + b}:
        outcome.errors += 1
        outcome.note(f"add({a}, {b}) answered {result.model_dump(exclude_none=True)}")


async def stdio_sequential(calls: int, deadline: float) -> Outcome:
    """One stdio client, ``calls`` sequential calls."""
    outcome = Outcome(f"stdio: 1 client, {calls:,} sequential calls")
    parameters = StdioServerParameters(
        command=sys.executable, args=server_args(), env=server_env(), cwd=str(REPO)
    )
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await call_and_check(session, -1, -1, deadline, Outcome("warm-up"))  # imports, caches
        started = time.perf_counter()
        for index in range(calls):
            await call_and_check(session, index, 7, deadline, outcome)
        outcome.wall_s = time.perf_counter() - started
    return outcome


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float) -> None:
    with anyio.fail_after(timeout):
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the HTTP server exited with code {process.returncode}")
            try:
                await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                return
            except OSError:
                await anyio.sleep(0.05)


async def http_concurrent(clients: int, calls_per_client: int, deadline: float) -> Outcome:
    """``clients`` concurrent streamable HTTP sessions, ``calls_per_client`` calls each."""
    outcome = Outcome(
        f"http: {clients} concurrent clients x {calls_per_client} calls "
        f"= {clients * calls_per_client:,}"
    )
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, *server_args("--transport", "http", "--port", str(port))],
        cwd=REPO,
        env=server_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        await _wait_for_port(port, process, timeout=60)
        url = f"http://127.0.0.1:{port}/mcp"
        settled = 0  # sessions that opened or failed to
        all_settled = anyio.Event()
        started = 0.0

        def settle() -> None:
            nonlocal settled, started
            settled += 1
            if settled == clients:
                started = time.perf_counter()
                all_settled.set()

        async def client(number: int) -> None:
            attempted = 0
            try:
                async with (
                    streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    try:
                        with anyio.fail_after(deadline):
                            await session.initialize()
                    finally:
                        settle()
                    await all_settled.wait()
                    for index in range(calls_per_client):
                        attempted += 1
                        await call_and_check(session, number, index, deadline, outcome)
            except Exception as exc:  # the session never opened or broke: the rest is lost
                outcome.note(f"client {number}: {type(exc).__name__}: {exc}")
                missing = calls_per_client - attempted
                outcome.calls += missing
                outcome.lost += missing

        async with anyio.create_task_group() as group:
            for number in range(clients):
                group.start_soon(client, number)
        outcome.wall_s = time.perf_counter() - started if started else 0.0
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return outcome


def report(outcomes: list[Outcome], command: str) -> str:
    """The results as a table, with what produced them."""
    versions = f"mcp {metadata.version('mcp')}, Python {platform.python_version()}"
    machine = f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"
    lines = [
        f"$ {command}",
        f"({versions}; {machine}; client and server on the same machine)",
        "",
        f"{'scenario':<52} {'calls':>7} {'errors':>6} {'lost':>5} {'calls/s':>8} "
        f"{'p50 ms':>8} {'p99 ms':>8}",
    ]
    for outcome in outcomes:
        lines.append(
            f"{outcome.scenario:<52} {outcome.calls:>7,} {outcome.errors:>6} {outcome.lost:>5} "
            f"{outcome.throughput():>8,.0f} {outcome.percentile(0.5):>8.2f} "
            f"{outcome.percentile(0.99):>8.2f}"
        )
    for outcome in outcomes:
        if outcome.first_problem:
            lines.append(f"first problem in {outcome.scenario!r}: {outcome.first_problem}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000, help="stdio sequential calls")
    parser.add_argument("--clients", type=int, default=100, help="concurrent HTTP clients")
    parser.add_argument("--calls-per-client", type=int, default=20, help="calls per HTTP client")
    parser.add_argument(
        "--deadline", type=float, default=60.0, help="seconds before a call is lost"
    )
    parser.add_argument("--only", choices=("stdio", "http"), help="run one scenario")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    options = parser.parse_args(argv)

    async def run() -> list[Outcome]:
        outcomes = []
        if options.only in (None, "stdio"):
            outcomes.append(await stdio_sequential(options.calls, options.deadline))
        if options.only in (None, "http"):
            outcomes.append(
                await http_concurrent(options.clients, options.calls_per_client, options.deadline)
            )
        return outcomes

    outcomes = anyio.run(run)
    if options.json:
        print(json.dumps([outcome.summary() for outcome in outcomes], indent=2))
    else:
        command = " ".join(
            ["python", "-m", "bench", "load", *(argv if argv is not None else sys.argv[1:])]
        )
        print(report(outcomes, command))
    return 0 if all(not o.errors and not o.lost for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
