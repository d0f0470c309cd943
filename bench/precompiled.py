"""Cold builds with ``mcp_codegen`` read from source against the same builds from its bytecode.

Usage:  python -m bench precompiled [--repeat 7] [--tools 1] [--flavors clean mcp fastmcp]

Why: these machines set PYTHONDONTWRITEBYTECODE=1, so a checkout that was never compiled is
compiled again by every process that imports it: the CLI, each worker, each server probe. An
installed wheel never is (pip compiles it). The test suite starts thousands of such processes
(``nox -s tests`` compiles the checkout first: docs/testing.md). Two copies of this checkout's
``mcp_codegen`` (one compiled with ``compileall``, one not) each build their own project per
flavor (``bench/noop.py``'s ``write_project``: ``--tools`` tools in one module, the project's
own modules compiled on both sides); each round runs a fresh ``generate --no-cache`` of every
project, the two sides interleaved. Wall seconds and CPU seconds (``getrusage`` of the finished
process, its workers and probes included), medians, and the bytecode side's ratio to the source
side's.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench._support import timed_codegen
from bench.noop import FLAVORS, write_project

REPO = Path(__file__).resolve().parent.parent
SIDES = ("source", "bytecode")


def _cold_build(project: Path, lib: Path) -> tuple[float, float]:
    """One ``generate --no-cache`` of ``project`` with ``mcp_codegen`` from ``lib``: wall, CPU."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(project), str(lib)]))
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the source side stays uncompiled
    return timed_codegen(project, ["generate", "-q", "--no-cache"], env)


def _libraries(scratch: Path) -> dict[str, Path]:
    """Per side, a directory holding a copy of this checkout's ``mcp_codegen`` and templates."""
    libs = {}
    for side in SIDES:
        lib = scratch / f"lib-{side}"
        shutil.copytree(
            REPO / "mcp_codegen", lib / "mcp_codegen", ignore=shutil.ignore_patterns("__pycache__")
        )
        shutil.copytree(REPO / "templates", lib / "templates")  # beside the package, as here
        libs[side] = lib
    compileall.compile_dir(libs["bytecode"], quiet=1, workers=0)
    return libs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--tools", type=int, default=1, help="tools in the project's one module")
    parser.add_argument("--flavors", nargs="+", choices=FLAVORS, default=list(FLAVORS))
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-precompiled-"))
    try:
        libs = _libraries(scratch)
        projects = {
            (flavor, side): write_project(scratch / f"{flavor}-{side}", flavor, options.tools)
            for flavor in options.flavors
            for side in SIDES
        }
        for project in projects.values():
            compileall.compile_dir(project, quiet=1)
        times: dict[tuple[str, str], list[tuple[float, float]]] = {key: [] for key in projects}
        for key, project in projects.items():  # one unmeasured build each: the caches warm
            _cold_build(project, libs[key[1]])
        for round_ in range(options.repeat):
            for (flavor, side), project in projects.items():
                times[flavor, side].append(_cold_build(project, libs[side]))
            print(f"round {round_ + 1}: load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _print_table(options, times)


def _print_table(
    options: argparse.Namespace, times: dict[tuple[str, str], list[tuple[float, float]]]
) -> None:
    print(
        f"cold `generate --no-cache`, {options.tools} tool(s) in one module, median of "
        f"{options.repeat}, sides interleaved, {os.cpu_count()} CPUs"
    )
    print(
        f"{'flavor':8} {'source s':>9} {'bytecode s':>11} {'ratio':>6}   {'CPU source':>10} "
        f"{'CPU bytecode':>12} {'ratio':>6}"
    )
    for flavor in options.flavors:
        wall = [statistics.median(w for w, _ in times[flavor, side]) for side in SIDES]
        cpu = [statistics.median(c for _, c in times[flavor, side]) for side in SIDES]
        print(
            f"{flavor:8} {wall[0]:9.3f} {wall[1]:11.3f} {wall[1] / wall[0]:5.2f}x   "
            f"{cpu[0]:10.3f} {cpu[1]:12.3f} {cpu[1] / cpu[0]:5.2f}x"
        )


if __name__ == "__main__":
    main()
