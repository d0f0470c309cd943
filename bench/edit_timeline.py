"""Where one edit's build spends its time: when each worker event reaches the generator, and the
CPU each process used.

Usage:  python -m bench edit_timeline [--runs 7] [--tools 1000] [--registering] [--repo DIR]

``bench/incremental.py`` times whole builds; this one looks inside the edit-one-module build of
the same 1,000-tool project (``--registering``: its registering layout, whose package
``__init__`` imports every tool module). Each run edits one module and runs ``generate`` in a fresh
process whose ``InspectSession`` reports, in ms from the generator's start, when it was created
(the generator knows what to redo) and when each worker event arrived (``ready``, ``scanned``,
``start``, ``done``, ``finished``), and when the files were written; ``os.waitpid`` is replaced
by ``os.wait4`` there so that each worker's CPU is known by its role (``scan``, ``inspect``,
``both``). The workers note their side too, through a ``sitecustomize`` on their ``PYTHONPATH``
(``WORKER_PROBE``; rows "in <role> ..."): when their interpreter is up, when they send each
event and when the edited module is imported ahead of its scan. Every row also shows the CPU
its process had used by then (``time.process_time()``), so the critical path can be read
process by process. The table shows medians and min-max over the runs. Sources and the
generator are precompiled first (these machines set PYTHONDONTWRITEBYTECODE=1).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.incremental import edit_module, write_project

HERE = Path(__file__).resolve().parent


#: Runs ``generate`` in this process with the pool and the process reaper observed.
PROBE = r"""
import json, os, resource, sys, time
START = time.monotonic()
marks, roles, cpu = [], {}, {}
def mark(what):
    at = round((time.monotonic() - START) * 1000, 1)
    marks.append((what, at, round(time.process_time() * 1000, 1)))
from mcp_codegen._generator.workers import prestart, process
real_init = process.WorkerProcess.__init__
def init(self, argv, *rest):
    real_init(self, argv, *rest)
    roles[self.pid] = argv[argv.index("--role") + 1]
process.WorkerProcess.__init__ = init
def waitpid(pid, options):
    found, status, usage = os.wait4(pid, options)
    if found:
        cpu[found] = usage.ru_utime + usage.ru_stime
        mark(f"{roles.get(found, '?')} reaped")
    return found, status
os.waitpid = waitpid
warm = prestart.start_early(["generate"])  # a handle (None from a checkout of before #36.1)
from mcp_codegen._generator.workers import pool
real_session, real_handle = pool.InspectSession.__init__, pool.InspectSession._handle
def session(self, *args, **kwargs):
    mark("session")
    real_session(self, *args, **kwargs)
def handle(self, worker, event):
    role = roles.get(worker.process.pid, "?")
    if event[0] != "progress":
        mark(f"{role} {event[0]}")
    real_handle(self, worker, event)
pool.InspectSession.__init__, pool.InspectSession._handle = session, handle
from mcp_codegen._generator.write import output
real_apply = output.apply
def apply(*args, **kwargs):
    done = real_apply(*args, **kwargs)
    mark("written")
    return done
output.apply = apply
from mcp_codegen._cli.commands import main
code = main(["generate", "-q"], **({"warm": warm} if warm is not None else {}))
mark("end")
own = resource.getrusage(resource.RUSAGE_SELF)
usage = {"generator": own.ru_utime + own.ru_stime}
for pid, seconds in cpu.items():
    usage[roles.get(pid, "?")] = usage.get(roles.get(pid, "?"), 0.0) + seconds
print(json.dumps({"marks": marks, "cpu": usage, "start": START}), file=sys.stderr, flush=True)
os._exit(code)  # as the command line ends (mcp_codegen/_cli/__init__.py)
"""

#: The workers' ``sitecustomize`` (on their ``PYTHONPATH``): each worker notes, on the clock the
#: generator's marks use and with its own CPU time, when its interpreter is up, when it sends
#: each event and when it has imported the edited module ahead of its scan.
WORKER_PROBE = r"""
import os, sys, time
if "--role" in sys.argv:
    ROLE = sys.argv[sys.argv.index("--role") + 1]
    def mark(what):
        with open(os.environ["EDIT_TIMELINE_MARKS"], "a") as out:
            out.write(f"{time.monotonic()} {ROLE} {time.process_time() * 1000:.1f} {what}\n")
    mark("interpreter up")
    from mcp_codegen._generator.workers import messages
    real_write = messages.write_message
    def write_message(stream, message):
        real_write(stream, message)
        if isinstance(message, tuple) and message[0] != "progress":
            mark(f"sent {message[0]}")
    messages.write_message = write_message
    try:  # a "--repo" checkout from before the import ahead has none
        from mcp_codegen._generator.workers import ahead
    except ImportError:
        ahead = None
    if ahead is not None:
        real_ahead = ahead.import_ahead
        def import_ahead(source):
            done = real_ahead(source)
            mark("module imported ahead")
            return done
        ahead.import_ahead = import_ahead
"""


def _run(repo: Path, project: Path, probe: Path) -> dict[str, object]:
    worker_marks = probe / "marks"
    worker_marks.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=project,
        env=dict(
            os.environ,
            PYTHONPATH=os.pathsep.join([str(repo), str(probe)]),
            EDIT_TIMELINE_MARKS=str(worker_marks),
        ),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"generate failed in {project}:\n{done.stderr}")
    run = json.loads(done.stderr.strip().splitlines()[-1])
    run["marks"].append(("exited (from spawn)", round((time.perf_counter() - started) * 1000, 1)))
    run["workers"] = [
        (f"{role} {what}", round((float(at) - run["start"]) * 1000, 1), float(used))
        for at, role, used, what in (
            line.split(" ", 3) for line in worker_marks.read_text().splitlines()
        )
    ]
    return run  # type: ignore[no-any-return]


def _cell(values: list[float], scale: float = 1.0) -> str:
    if not values:
        return ""
    low, high = min(values) * scale, max(values) * scale
    return f"{statistics.median(values) * scale:8.0f}  {low:5.0f}-{high:<5.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repo", type=Path, default=HERE.parent, help="checkout to measure")
    parser.add_argument(
        "--registering",
        action="store_true",
        help="the registering layout (the package's __init__ imports every tool module)",
    )
    options = parser.parse_args()
    repo = options.repo.resolve()
    compileall.compile_dir(repo / "mcp_codegen", quiet=1)
    scratch = Path(tempfile.mkdtemp(prefix="mcp-codegen-edit-timeline-"))
    try:
        project, probe = scratch / "project", scratch / "probe"
        write_project(project, options.tools, registering=options.registering)
        probe.mkdir()
        (probe / "sitecustomize.py").write_text(WORKER_PROBE)
        _run(repo, project, probe)  # cold: fills the cache
        counter = [0]
        runs = []
        for _ in range(options.runs):
            edit_module(project / "synth" / "tools_010.py", counter)
            runs.append(_run(repo, project, probe))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    events: dict[str, list[float]] = {}
    used: dict[str, list[float]] = {}  # the CPU the marking process had used by then
    for run in runs:
        seen: dict[str, int] = {}
        worker_marks = [(f"in {what}", at, cpu) for what, at, cpu in run["workers"]]  # type: ignore[union-attr]
        for what, at, *cpu in [*run["marks"], *worker_marks]:  # type: ignore[union-attr]
            seen[what] = seen.get(what, 0) + 1
            key = what if seen[what] == 1 else f"{what} #{seen[what]}"
            events.setdefault(key, []).append(at)
            if cpu:
                used.setdefault(key, []).append(cpu[0])
    print(
        f"mcp-codegen edit-one-module build, {options.tools} tools, {options.runs} runs, "
        f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        f"{'event (ms from the generator start)':40} {'median':>8}  {'min-max':<11} "
        f"{'own CPU by then (ms)':>20}"
    )
    order = sorted(events, key=lambda key: statistics.median(events[key]))
    for key in order:
        cpu = f"{statistics.median(used[key]):20.0f}" if key in used else ""
        print(f"{key:40} {_cell(events[key])} {cpu}")
    print(f"{'CPU per process (ms)':40} {'median':>8}  {'min-max':<11}")
    roles = sorted({role for run in runs for role in run["cpu"]})  # type: ignore[union-attr]
    for role in roles:
        values = [run["cpu"][role] for run in runs if role in run["cpu"]]  # type: ignore[index,operator]
        print(f"{role:40} {_cell(values, 1000)}")
    totals = [sum(run["cpu"].values()) for run in runs]  # type: ignore[union-attr]
    print(f"{'all':40} {_cell(totals, 1000)}")


if __name__ == "__main__":
    main()
