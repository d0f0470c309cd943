"""Edit-one-module builds of two or more checkouts, interleaved round by round, beside the floor.

Usage:  python -m bench edit_ab [--rounds 5] NAME=CHECKOUT [NAME=CHECKOUT ...]
e.g.    python -m bench edit_ab before=/tmp/main-checkout after=.

``bench/incremental.py`` measures one checkout per run; this puts checkouts side by side in one
run, so load from other users of the machine falls on all of them alike. Each checkout gets its
own copies of the projects (its build cache is keyed on its own code), built once; then every
round edits, per checkout, the leaf module (``edit leaf``), the models module that 5 tool
modules import (``edit shared``) and one module of the registering layout, whose package
``__init__`` imports every tool module (``reg edit``, against its own floor ``reg floor``), and
runs ``generate`` (after the leaf's, ``generate`` again with
nothing changed: ``no-op``, and ``generate --no-cache``: ``cold``, every module inspected), then
runs the one-module floor
(``bench/incremental.py``'s ``INFER``). Medians of wall and CPU seconds (``getrusage`` of the
finished processes, workers included), and their ratios to the floor's; the load average of
each round is printed.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.incremental import INFER, write_project

HERE = Path(__file__).resolve().parent


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _edit(path: Path) -> None:
    text = path.read_text().split("\n# edit ")[0]
    path.write_text(f"{text}\n# edit {time.time_ns()}\n")


def checkout_options(
    description: str,
    rounds: int,
    more: Callable[[argparse.ArgumentParser], None] | None = None,
) -> tuple[argparse.Namespace, dict[str, Path]]:
    """``--rounds``, ``--tools`` and the ``NAME=CHECKOUT`` arguments of a side-by-side bench,
    with the scenario's own options that ``more`` adds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--tools", type=int, default=1000)
    if more is not None:
        more(parser)
    parser.add_argument("checkouts", nargs="+", metavar="NAME=CHECKOUT")
    options = parser.parse_args()
    repos = {
        name: Path(path).resolve()
        for name, path in (text.split("=", 1) for text in options.checkouts)
    }
    return options, repos


def main() -> None:
    options, repos = checkout_options(__doc__.splitlines()[0], rounds=5)
    scratch = Path(tempfile.mkdtemp(prefix="mcp-codegen-edit-ab-"))
    times: dict[str, tuple[list[float], list[float]]] = {}

    def run(key: str, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        before, start = _cpu(), time.perf_counter()
        subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
        wall, cpu = times.setdefault(key, ([], []))
        wall.append(time.perf_counter() - start)
        cpu.append(_cpu() - before)

    try:
        projects = {}
        for name, repo in repos.items():
            compileall.compile_dir(repo / "mcp_codegen", quiet=1)
            leaf, shared = scratch / f"leaf-{name}", scratch / f"shared-{name}"
            registering = scratch / f"reg-{name}"
            write_project(leaf, options.tools)
            write_project(shared, options.tools, shared=True)
            write_project(registering, options.tools, registering=True)
            env = dict(os.environ, PYTHONPATH=str(repo))
            for project in (leaf, shared, registering):
                subprocess.run(
                    [sys.executable, "-m", "mcp_codegen", "generate", "-q"],
                    cwd=project,
                    env=env,
                    check=True,
                    capture_output=True,
                )
            projects[name] = (env, leaf, shared, registering)
        first = next(iter(repos))
        floors = {"floor": scratch / f"leaf-{first}", "reg floor": scratch / f"reg-{first}"}
        loads = []
        for round_ in range(options.rounds):
            for name, (env, leaf, shared, registering) in projects.items():
                command = [sys.executable, "-m", "mcp_codegen", "generate", "-q"]
                _edit(leaf / "synth" / "tools_010.py")
                run(f"edit leaf {name}", command, leaf, env)
                run(f"no-op {name}", command, leaf, env)  # the same again: a whole cache hit
                # every module inspected by the workers and rendered by the generator
                run(f"cold {name}", [*command, "--no-cache"], leaf, env)
                _edit(shared / "synth" / "shared.py")
                run(f"edit shared {name}", command, shared, env)
                _edit(registering / "synth" / "tools_010.py")
                run(f"reg edit {name}", command, registering, env)
            for key, floor in floors.items():
                run(
                    key,
                    [sys.executable, "-c", INFER, "synth.tools_010"],
                    floor,
                    dict(os.environ, PYTHONPATH=os.pathsep.join([str(floor), str(HERE.parent)])),
                )
            loads.append(os.getloadavg()[0])
            print(f"round {round_ + 1}: load {loads[-1]:.1f}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"{options.rounds} interleaved rounds, {os.cpu_count()} CPUs, load average (1 min) per "
        f"round: {' '.join(f'{load:.1f}' for load in loads)}"
    )
    print(f"{'setup':24} {'wall s':>7} {'ratio':>7} {'CPU s':>7} {'ratio':>7}")
    for key, (wall, cpu) in sorted(times.items()):
        floor_wall, floor_cpu = times["reg floor" if key.startswith("reg") else "floor"]
        w, c = statistics.median(wall), statistics.median(cpu)
        wall_ratio, cpu_ratio = w / statistics.median(floor_wall), c / statistics.median(floor_cpu)
        print(f"{key:24} {w:7.3f} {wall_ratio:6.2f}x {c:7.3f} {cpu_ratio:6.2f}x")


if __name__ == "__main__":
    main()
