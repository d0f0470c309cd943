"""What detecting hash-seed-dependent values would cost inside the generator.

Usage:  python -m bench seeds [--tools 1000] [--repeat 7]

Side by side in one run, alternating, each a fresh process on the same synthetic package (see
bench/generate.py): `generate` and `generate --vary-hash-seed` (the second build with another
seed, the only reliable detector). Then, in this process, the per-build cost of the checks that
always run (`mcp_codegen._generator.assemble.stability.leaked_state`: sets, memory addresses, checkout paths), as a share
of the plain `generate` wall time.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.generate import run_codegen
from bench.synthetic import write_package

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _leaked_state_seconds(root: Path, repeat: int) -> float:
    from mcp_codegen._generator.assemble.stability import leaked_state
    from mcp_codegen._generator.config import load_config
    from mcp_codegen._generator.pipeline import build

    config = load_config(root / "pyproject.toml")
    result = build(config, use_cache=False)
    assert not result.errors, result.errors
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for definition in result.definitions:
            leaked_state(definition, config)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-bench-") as tmp:
        root = Path(tmp)
        write_package(root, options.tools)
        compileall.compile_dir(root / "synth", quiet=1)
        compileall.compile_dir(REPO / "mcp_codegen", quiet=1)
        plain, probed = [], []
        for _ in range(options.repeat):
            for runs, extra in ((plain, ()), (probed, ("--vary-hash-seed",))):
                shutil.rmtree(root / "generated", ignore_errors=True)
                shutil.rmtree(root / ".mcp-codegen-cache", ignore_errors=True)
                runs.append(run_codegen(root, "generate", *extra))
        os.chdir(root)
        checks = _leaked_state_seconds(root, options.repeat)
    wall = statistics.median(w for w, _ in plain)
    print(
        f"{options.tools} synthetic tools, {options.repeat} runs each alternating, median, "
        f"{os.cpu_count()} CPUs"
    )
    print(f"{'command':<40} {'wall s':>8} {'CPU s':>7} {'vs generate':>12}")
    for name, runs in (("generate", plain), ("generate --vary-hash-seed", probed)):
        seconds = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"{name:<40} {seconds:>8.2f} {cpu:>7.2f} {seconds / wall:>11.2f}x")
    print(
        f"leaked_state over all modules (in-process): {checks * 1000:.1f} ms = "
        f"{checks / wall:.1%} of generate's wall time"
    )


if __name__ == "__main__":
    main()
