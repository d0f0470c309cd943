"""A server's first load of the generated tree after an edit's build, on a machine that writes bytecode.

Usage:  python -m bench first_load [--rounds 7] [--tools 1000] NAME=CHECKOUT [NAME=CHECKOUT ...]
e.g.    python -m bench first_load before=/tmp/main-checkout after=.

``mcp_codegen.runtime`` loads each generated module through ``SourceFileLoader``, which uses the
module's ``__pycache__`` bytecode when it is valid and compiles the module (and writes the
bytecode) when it is not. Each checkout gets its own 1,000-tool project (``bench/incremental.py``'s,
20 modules), built, then loaded once so that every module has its bytecode. Every round edits,
per checkout, one tool module and runs ``generate``; then, in fresh processes that write bytecode
(``PYTHONDONTWRITEBYTECODE`` unset), times:

- first load: ``load_tools(<generated>)`` and ``list_tools()``, the first start after the build;
- next load: the same again, every module's bytecode now written.

Medians of wall seconds, the first load's ratio to the next one, and how many ``.pyc`` files the
first load wrote (compiled modules). Checkouts are interleaved round by round. The checkouts'
own code is precompiled first (``compileall``): only the generated modules are compiled here.
"""

from __future__ import annotations

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
from bench.incremental import edit_module, write_project

HERE = Path(__file__).resolve().parent


GENERATE = [sys.executable, "-m", "mcp_codegen", "generate", "-q"]
LOAD = """
from mcp_codegen.runtime import load_tools
assert len(load_tools("generated").list_tools()) > 0
"""


def _bytecode(generated: Path) -> dict[str, int]:
    return {str(p): p.stat().st_ino for p in generated.rglob("__pycache__/*.pyc")}


def main() -> None:
    options, repos = checkout_options(__doc__.splitlines()[0], rounds=7)
    scratch = Path(tempfile.mkdtemp(prefix="mcp-codegen-first-load-"))
    walls: dict[str, list[float]] = {}
    compiled: dict[str, list[int]] = {}
    try:
        projects = {}
        for name, repo in repos.items():
            compileall.compile_dir(repo / "mcp_codegen", quiet=1)
            project = scratch / name
            write_project(project, options.tools)
            build_env = dict(os.environ, PYTHONPATH=str(repo))
            load_env = {k: v for k, v in build_env.items() if k != "PYTHONDONTWRITEBYTECODE"}
            projects[name] = (project, build_env, load_env)
            subprocess.run(GENERATE, cwd=project, env=build_env, check=True, capture_output=True)
            subprocess.run([sys.executable, "-c", LOAD], cwd=project, env=load_env, check=True)
        counter = [0]
        for round_ in range(options.rounds):
            for name, (project, build_env, load_env) in projects.items():
                edit_module(project / "synth" / "tools_010.py", counter)
                subprocess.run(GENERATE, cwd=project, env=build_env, check=True)
                before = _bytecode(project / "generated")
                for setup in ("first load", "next load"):
                    start = time.perf_counter()
                    subprocess.run(
                        [sys.executable, "-c", LOAD], cwd=project, env=load_env, check=True
                    )
                    walls.setdefault(f"{setup} {name}", []).append(time.perf_counter() - start)
                    if setup == "first load":
                        after = _bytecode(project / "generated")
                        written = sum(1 for path, ino in after.items() if before.get(path) != ino)
                        compiled.setdefault(name, []).append(written)
            print(f"round {round_ + 1}: load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"first load after an edit's build, {options.tools} tools, {options.rounds} interleaved "
        f"rounds, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'setup':24} {'median s':>9} {'ratio':>7} {'.pyc written':>13}")
    for name in repos:
        steady = statistics.median(walls[f"next load {name}"])
        first = statistics.median(walls[f"first load {name}"])
        written = statistics.median(compiled[name])
        print(f"{'first load ' + name:24} {first:9.3f} {first / steady:6.2f}x {written:13.0f}")
        print(f"{'next load ' + name:24} {steady:9.3f} {1:6.2f}x {'':>13}")


if __name__ == "__main__":
    main()
