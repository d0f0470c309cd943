"""Generation throughput: `mcp-codegen generate` and `check` on a synthetic package.

Usage:  python -m bench generate [--tools 1000] [--repeat 5]

Each measurement is a fresh `python -m mcp_codegen ...` process: wall time, as a user sees it, and
the CPU time of that process and its workers (steadier than wall time on a shared machine).
Sources and the generator are precompiled first (`compileall`), as an installed tool would be:
these machines set PYTHONDONTWRITEBYTECODE=1, which would otherwise recompile on every run.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from bench._support import timed_codegen
from bench.synthetic import write_package

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def run_codegen(cwd: Path, *args: str) -> tuple[float, float]:
    """Wall time, and CPU time of the command with all its worker processes."""
    return timed_codegen(cwd, args, dict(os.environ, PYTHONPATH=str(REPO)), ok=(0, 1))


def measure(tools: int, repeat: int) -> list[tuple[str, float, float, float]]:
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-bench-") as tmp:
        root = Path(tmp)
        write_package(root, tools)
        compileall.compile_dir(root / "synth", quiet=1)
        compileall.compile_dir(REPO / "mcp_codegen", quiet=1)
        cold, uncached, cached = [], [], []
        for _ in range(repeat):
            shutil.rmtree(root / "generated", ignore_errors=True)
            shutil.rmtree(root / ".mcp-codegen-cache", ignore_errors=True)
            cold.append(run_codegen(root, "generate"))  # no cache, empty output: the full pipeline
            uncached.append(run_codegen(root, "check", "--no-cache"))  # full pipeline, compare only
            cached.append(run_codegen(root, "check"))  # build cache hit
        rows = [
            ("generate (cold: no cache, empty output)", cold),
            ("check --no-cache (full re-inference)", uncached),
            ("check (unchanged, build cache)", cached),
        ]
        result = []
        for name, runs in rows:
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            result.append((name, wall, tools / wall, cpu))
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    rows = measure(options.tools, options.repeat)
    print(
        f"{options.tools} synthetic tools, {options.repeat} runs each, median wall time, "
        f"{os.cpu_count()} CPUs"
    )
    print(f"{'command':<42} {'median s':>9} {'tools/s':>9} {'CPU s':>7}")
    for name, seconds, rate, cpu in rows:
        print(f"{name:<42} {seconds:>9.2f} {rate:>9.0f} {cpu:>7.2f}")


if __name__ == "__main__":
    main()
