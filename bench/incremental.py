"""Incremental builds: what `generate` costs when little or nothing changed, beside the floor.

Usage:  python -m bench incremental [--rounds 5] [--tools 1000] [--big-tools 10000] [--repo DIR]

Every measurement is a fresh process (the watcher is one long-lived process, measured per save),
and the setups are interleaved round by round, so load from other users of the machine falls on
all of them alike; the table shows medians and the ratios of medians from this one run, in wall
time and in CPU time (``getrusage`` of the finished processes, workers included; steadier than
wall time on a loaded machine, not measured for the long-lived watcher), and under it each
round's edit leaf (and edit with the daemon) as a ratio to that round's floor.

- cold: no cache, empty output, 1,000 tools in 20 modules;
- no-op: the same again, nothing changed;
- edit leaf: one module's source changed (a comment), so one module of 50 tools is redone;
- edit shared: a models module that 5 tool modules import changed: those 5 are redone;
- floor: a fresh process that imports pydantic and the edited module and builds one
  TypeAdapter over its tools' parameters and results, and nothing else;
- import floor and scan floor, to show what bounds an edit from below: the floor's imports
  without its inference, and a fresh process that imports libcst and parses the edited module
  (what a build that scans with libcst does first; the scan says which functions are tools, so
  inference cannot start before it ends). "bound" = scan floor + the floor's inference (floor -
  import floor): no scan-then-infer build of one module, in any number of processes, is faster;
- watch: `mcp-codegen watch` running; time from saving the leaf module to the rebuild's line
  (printed after the files are written), ``--watch-saves`` saves per round;
- edit leaf, daemon: the edit leaf case again, with `mcp-codegen daemon` running for the
  project: ``generate`` is still a fresh process, which hands its command line to the daemon
  (no CPU is shown: the daemon's is not a child's until it ends);
- registering package: the same 1,000 tools in a package whose ``__init__`` imports every tool
  module (the common way to register them), so importing any one module imports all 20: its
  edit of one module and its watch save, each against that layout's own floor (which imports
  the whole package, as any import of the module does);
- cold 10,000 tools in 200 modules beside bare single-process inference of the same tools
  (one process importing every module and building one TypeAdapter per module), with the
  generator process's own peak RSS (its workers not counted).

Sources and the generator are precompiled first (`compileall`): these machines set
PYTHONDONTWRITEBYTECODE=1. ``--repo`` measures another checkout (e.g. the main branch for
"before" numbers; setups it lacks, like watch, are left out).
"""

from __future__ import annotations

import argparse
import compileall
import os
import queue
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bench.synthetic import write_package

HERE = Path(__file__).resolve().parent


#: One TypeAdapter per module named on the command line, over its tools' parameters and results.
INFER = r"""
import importlib, inspect, sys, typing
from pydantic import TypeAdapter, create_model

for name in sys.argv[1:]:
    module = importlib.import_module(name)
    models = []
    for attr, fn in vars(module).items():
        if not hasattr(fn, "__mcp_codegen_tool__"):
            continue
        hints = typing.get_type_hints(fn, include_extras=True)
        fields = {}
        for pname, p in inspect.signature(fn).parameters.items():
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[pname] = (hints.get(pname, typing.Any), default)
        models.append(create_model(attr + "_in", **fields))
        if hints.get("return", None) is not None:
            models.append(create_model(attr + "_out", result=(hints["return"], ...)))
    TypeAdapter(tuple[tuple(models)]).json_schema()
"""

#: What any build that scans with libcst must do first: import libcst and parse the module.
SCAN_FLOOR = r"""
import sys
import libcst

libcst.parse_module(open(sys.argv[1], "rb").read())
"""

#: The floor without its inference: pydantic and the module imported, no TypeAdapter built.
IMPORT_FLOOR = r"""
import importlib, sys
from pydantic import TypeAdapter, create_model

importlib.import_module(sys.argv[1])
"""

#: `python -m mcp_codegen ARGS` in this process, then its own peak RSS (KiB on Linux) on stderr.
RSS = r"""
import os, resource, runpy, sys
def report():
    print("RSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr, flush=True)
real_exit = os._exit
def hard_exit(code):  # generate and check end with os._exit (mcp_codegen/_cli/__init__.py)
    report()
    real_exit(code)
os._exit = hard_exit
sys.argv = ["mcp_codegen", *sys.argv[1:]]
try:
    runpy.run_module("mcp_codegen", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
else:
    code = 0
report()
sys.exit(code)
"""

SHARED = "from pydantic import BaseModel\n\n\nclass Shared(BaseModel):\n    value: int\n"
USES_SHARED = """

from synth.shared import Shared


@tool
def uses_shared_{index}(item: Shared) -> Shared:
    return item
"""


def _env(repo: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(repo))


def _cpu() -> float:
    """CPU seconds of every finished child process so far (a build's workers included: each is
    waited for by its generator process before that one exits)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _run(repo: Path, cwd: Path, *args: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", *args],
        cwd=cwd,
        env=_env(repo),
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"mcp-codegen {' '.join(args)} failed in {cwd}:\n{done.stderr}")
    return elapsed


def _run_rss(repo: Path, cwd: Path, *args: str) -> tuple[float, float]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RSS, *args], cwd=cwd, env=_env(repo), capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"mcp-codegen {' '.join(args)} failed:\n{done.stderr}")
    rss = next(line for line in done.stderr.splitlines() if line.startswith("RSS "))
    return elapsed, int(rss.split()[1]) / 1024


def _infer(cwd: Path, modules: list[str], script: str = INFER) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", script, *modules],
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), str(HERE.parent)])),
        check=True,
    )
    return time.perf_counter() - start


def write_project(root: Path, tools: int, shared: bool = False, registering: bool = False) -> Path:
    """``registering``: the package's ``__init__`` imports every tool module."""
    package = write_package(root, tools)
    if registering:
        modules = sorted(p.stem for p in package.glob("tools_*.py"))
        (package / "__init__.py").write_text("".join(f"from synth import {m}\n" for m in modules))
    if shared:
        (package / "shared.py").write_text(SHARED)
        for index in range(5):
            path = package / f"tools_{index:03d}.py"
            path.write_text(path.read_text() + USES_SHARED.format(index=index))
    compileall.compile_dir(package, quiet=1)
    return package


def edit_module(path: Path, counter: list[int]) -> None:
    counter[0] += 1
    text = path.read_text().split("\n# edit ")[0]
    path.write_text(f"{text}\n# edit {counter[0]}\n")


class _Watcher:
    def __init__(self, repo: Path, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcp_codegen", "watch"],
            cwd=cwd,
            env=_env(repo),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.wait("watching", 600)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put((time.perf_counter(), line))

    def wait(self, text: str, timeout: float = 120) -> float:
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            try:
                when, line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if text in line:
                return when
        raise SystemExit(f"watch printed no line with {text!r}")

    def save_to_written(self, path: Path, counter: list[int]) -> float:
        time.sleep(1.0)  # the next worker has started and the watcher is idle
        start = time.perf_counter()
        edit_module(path, counter)
        return self.wait(f"after {path.parent.name}/{path.name}") - start

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--big-tools", type=int, default=10000, help="0 leaves the big run out")
    parser.add_argument("--watch-saves", type=int, default=3, help="watch saves per round")
    parser.add_argument("--repo", type=Path, default=HERE.parent, help="checkout to measure")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    options = parser.parse_args()
    repo = options.repo.resolve()
    compileall.compile_dir(repo / "mcp_codegen", quiet=1)
    has_watch = (repo / "mcp_codegen" / "_cli" / "watch.py").exists()
    has_daemon = (repo / "mcp_codegen" / "_cli" / "daemon").is_dir()
    scratch = Path(tempfile.mkdtemp(prefix="mcp-codegen-incremental-"))
    try:
        names = ("leaf", "shared", "watch", "big", "daemon", "registering", "registering-watch")
        leaf, shared, watched, big, daemoned, registering, registering_watched = (
            scratch / n for n in names
        )
        write_project(leaf, options.tools)
        write_project(registering, options.tools, registering=True)
        write_project(registering_watched, options.tools, registering=True)
        registering_module = registering / "synth" / "tools_010.py"
        registering_watched_module = registering_watched / "synth" / "tools_010.py"
        write_project(daemoned, options.tools)
        daemon_module = daemoned / "synth" / "tools_010.py"
        shared_package = write_project(shared, options.tools, shared=True)
        write_project(watched, options.tools)
        leaf_module = leaf / "synth" / "tools_010.py"
        watched_module = watched / "synth" / "tools_010.py"
        big_modules: list[str] = []
        if options.big_tools:
            write_project(big, options.big_tools)
            big_modules = sorted(f"synth.{p.stem}" for p in (big / "synth").glob("tools_*.py"))
        for project in (shared, leaf, registering):
            _run(repo, project, "generate")
        watcher = _Watcher(repo, watched) if has_watch else None
        registering_watcher = _Watcher(repo, registering_watched) if has_watch else None
        if has_daemon:
            _run(repo, daemoned, "generate")
            _run(repo, daemoned, "daemon", "start", "--idle-timeout", "0")
        counter = [0]
        times: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}
        rss: list[float] = []

        def add(name: str, measure: Callable[[], float]) -> None:
            before = _cpu()
            times.setdefault(name, []).append(measure())
            if name not in (
                "watch",
                "daemon",
                "reg watch",
            ):  # long-lived: its CPU is no child's until it ends
                cpu.setdefault(name, []).append(_cpu() - before)

        for round_ in range(options.rounds):
            if round_:
                _progress(times, rss)
            print(f"round {round_ + 1}/{options.rounds}", file=sys.stderr, flush=True)
            shutil.rmtree(leaf / "generated", ignore_errors=True)
            shutil.rmtree(leaf / ".mcp-codegen-cache", ignore_errors=True)
            add("cold", lambda: _run(repo, leaf, "generate"))
            add("no-op", lambda: _run(repo, leaf, "generate"))
            edit_module(leaf_module, counter)
            add("edit leaf", lambda: _run(repo, leaf, "generate"))
            add("floor", lambda: _infer(leaf, ["synth.tools_010"]))
            add("import floor", lambda: _infer(leaf, ["synth.tools_010"], IMPORT_FLOOR))
            add("scan floor", lambda: _infer(leaf, [str(leaf_module)], SCAN_FLOOR))
            if has_daemon:
                time.sleep(0.5)  # the daemon's next worker has started and it is idle
                edit_module(daemon_module, counter)
                add("daemon", lambda: _run(repo, daemoned, "generate"))
            edit_module(shared_package / "shared.py", counter)
            add("edit shared", lambda: _run(repo, shared, "generate"))
            for _ in range(options.watch_saves if watcher is not None else 0):
                add("watch", lambda: watcher.save_to_written(watched_module, counter))
            time.sleep(1.0)  # the watcher's next worker has started: nothing else runs
            edit_module(registering_module, counter)
            add("reg edit", lambda: _run(repo, registering, "generate"))
            add("reg floor", lambda: _infer(registering, ["synth.tools_010"]))
            add("reg import", lambda: _infer(registering, ["synth.tools_010"], IMPORT_FLOOR))
            for _ in range(options.watch_saves if registering_watcher is not None else 0):
                add(
                    "reg watch",
                    lambda: registering_watcher.save_to_written(
                        registering_watched_module, counter
                    ),
                )
            if big_modules:
                shutil.rmtree(big / "generated", ignore_errors=True)
                before = _cpu()
                seconds, peak = _run_rss(repo, big, "generate", "--no-cache")
                times.setdefault("cold big", []).append(seconds)
                cpu.setdefault("cold big", []).append(_cpu() - before)
                rss.append(peak)
                add("bare big", lambda: _infer(big, big_modules))
        for running in (watcher, registering_watcher):
            if running is not None:
                running.stop()
    finally:
        if has_daemon and daemoned.exists():
            _run(repo, daemoned, "daemon", "stop")
        if not options.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    _progress(times, rss)
    _report(options, repo, times, cpu, rss)


def _progress(times: dict[str, list[float]], rss: list[float]) -> None:
    """The last round's times on stderr, so a run cut short still says something."""
    last = ", ".join(f"{name} {values[-1]:.2f}" for name, values in times.items())
    peak = f", RSS {rss[-1]:.0f} MB" if rss else ""
    print(f"  {last}{peak}; load {_load()}", file=sys.stderr, flush=True)


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def _report(
    options: argparse.Namespace,
    repo: Path,
    times: dict[str, list[float]],
    cpu: dict[str, list[float]],
    rss: list[float],
) -> None:
    median = {name: statistics.median(values) for name, values in times.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpu.items()}
    floor = median["floor"]
    if "scan floor" in median and "import floor" in median:
        # The scan says which functions are tools, so inference cannot start before it ends.
        median["bound"] = median["scan floor"] + floor - median["import floor"]
        times["bound"] = [median["bound"]]
    rows = [
        ("cold", f"generate, {options.tools} tools / 20 modules, no cache", None),
        ("no-op", "generate, nothing changed", None),
        ("edit leaf", "generate, one module edited", floor),
        ("edit shared", "generate, shared models edited (5 importers)", floor),
        ("floor", "one-module floor (pydantic + module + TypeAdapter)", floor),
        ("import floor", "  the floor without inference (pydantic + module)", floor),
        ("scan floor", "  a fresh process: import libcst, parse the module", floor),
        ("bound", "  least for scan-then-infer: scan floor + inference", floor),
        ("watch", "watch: save to written", floor),
        ("daemon", "generate, one module edited, `mcp-codegen daemon` running", floor),
        ("reg edit", "registering package (__init__ imports all): one module edited", "reg"),
        ("reg floor", "  its floor (the module's import imports all 20)", "reg"),
        ("reg import", "  its floor without inference", "reg"),
        ("reg watch", "  watch: save to written", "reg"),
        ("cold big", f"generate --no-cache, {options.big_tools} tools / 200 modules", None),
        ("bare big", "bare single-process TypeAdapter inference", None),
    ]
    print(
        f"mcp-codegen incremental builds: {repo.name}, {options.rounds} interleaved rounds, "
        f"medians, {os.cpu_count()} CPUs, load average at the end {_load()}"
    )
    print(
        f"{'setup':<12} {'what':<58} {'median s':>9} {'min-max s':>11} {'ratio':>12} "
        f"{'CPU s':>7} {'CPU ratio':>12}"
    )
    for key, what, base in rows:
        if key not in median:
            continue
        floor_key = "reg floor" if base == "reg" else "floor"
        base = median.get(floor_key) if base == "reg" else base
        own = key == floor_key
        ratio = f"{median[key] / base:.2f}x floor" if base and not own else ""
        used = median_cpu.get(key)
        base_cpu = median_cpu.get(floor_key) if base else None
        cpu_ratio = f"{used / base_cpu:.2f}x floor" if used and base_cpu and not own else ""
        if key == "cold big" and "bare big" in median:
            ratio = f"{median[key] / median['bare big']:.2f}x bare"
            cpu_ratio = f"{(used or 0) / median_cpu['bare big']:.2f}x bare"
        shown = f"{used:.2f}" if used is not None else ""
        spread = f"{min(times[key]):.2f}-{max(times[key]):.2f}" if key != "bound" else ""
        print(
            f"{key:<12} {what:<58} {median[key]:>9.2f} {spread:>11} {ratio:>12} {shown:>7} "
            f"{cpu_ratio:>12}"
        )
    if rss:
        print(
            f"generator process peak RSS, cold big: median {statistics.median(rss):.0f} MB, max {max(rss):.0f} MB"
        )
    # The floor drifts with the machine as much as the edit does: each round's own ratio shows
    # how far apart the rounds are, beside the ratio of the medians above.
    for key, floor_key in (("edit leaf", "floor"), ("daemon", "floor"), ("reg edit", "reg floor")):
        if key not in times:
            continue
        rounds = zip(times[key], times[floor_key], strict=True)
        per_round = [edit_s / floor_s for edit_s, floor_s in rounds]
        print(
            f"{key} per round, x that round's floor: "
            f"{' '.join(f'{ratio:.2f}' for ratio in per_round)} "
            f"(median {statistics.median(per_round):.2f}x)"
        )


if __name__ == "__main__":
    main()
