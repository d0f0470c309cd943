"""Watch saves of two or more checkouts, interleaved round by round, beside the floor.

Usage:  python -m bench watch_ab [--rounds 5] [--saves 3] [--registering] NAME=CHECKOUT ...
e.g.    python -m bench watch_ab before=/tmp/main-checkout after=.

``bench/incremental.py`` measures one checkout's watcher; this runs one ``mcp-codegen watch``
per checkout on its own copy of the 1,000-tool project, and every round saves the leaf module
(``--registering``: the layout whose package ``__init__`` imports every tool module) in each
watcher in turn, then runs the one-module floor, so load from other users of the machine falls
on all of them alike. Medians and minimums of save-to-written seconds, and their ratios to the
floor's median. This is how the watch regression of c82e65c was bisected
(bench/results/2026-12-05-watch-regression.md).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.edit_ab import checkout_options
from bench.incremental import INFER, _Watcher, write_project

HERE = Path(__file__).resolve().parent


def _more_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--saves", type=int, default=3, help="saves per watcher per round")
    parser.add_argument("--registering", action="store_true", help="package __init__ imports all")


def _start(
    repos: dict[str, Path], scratch: Path, options: argparse.Namespace
) -> dict[str, tuple[_Watcher, Path]]:
    """One watcher per checkout, each on its own copy of the project, built once first."""
    watchers = {}
    for name, repo in repos.items():
        compileall.compile_dir(repo / "mcp_codegen", quiet=1)
        project = scratch / name
        write_project(project, options.tools, registering=options.registering)
        subprocess.run(
            [sys.executable, "-m", "mcp_codegen", "generate", "-q"],
            cwd=project,
            env=dict(os.environ, PYTHONPATH=str(repo)),
            check=True,
            capture_output=True,
        )
        watchers[name] = (_Watcher(repo, project), project / "synth" / "tools_010.py")
    return watchers


def main() -> None:
    options, repos = checkout_options(__doc__.splitlines()[0], rounds=5, more=_more_options)
    scratch = Path(tempfile.mkdtemp(prefix="mcp-codegen-watch-ab-"))
    times: dict[str, list[float]] = {"floor": []}
    watchers: dict[str, tuple[_Watcher, Path]] = {}
    try:
        watchers = _start(repos, scratch, options)
        floor = scratch / next(iter(repos))
        floor_env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(floor), str(HERE.parent)]))
        counter = [0]
        for round_ in range(options.rounds):
            for name, (watcher, module) in watchers.items():
                for _ in range(options.saves):
                    times.setdefault(name, []).append(watcher.save_to_written(module, counter))
            start = time.perf_counter()
            command = [sys.executable, "-c", INFER, "synth.tools_010"]
            subprocess.run(command, cwd=floor, env=floor_env, check=True)
            times["floor"].append(time.perf_counter() - start)
            print(f"round {round_ + 1}: load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    finally:
        for watcher, _ in watchers.values():
            watcher.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    floor_median = statistics.median(times["floor"])
    layout = "registering package" if options.registering else "leaf module"
    print(f"watch save to written ({layout}), {options.rounds} rounds x {options.saves} saves")
    print(f"{'setup':24} {'median s':>8} {'ratio':>7} {'min s':>7}")
    for key, values in sorted(times.items(), key=lambda item: item[0] != "floor"):
        median = statistics.median(values)
        print(f"{key:24} {median:8.3f} {median / floor_median:6.2f}x {min(values):7.3f}")


if __name__ == "__main__":
    main()
