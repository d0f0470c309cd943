"""Where a cold build's CPU goes: the generator process's own stages, and the whole build.

Usage:  python -m bench cold_cpu [--rounds 5] [--tools 10000] [--before DIR] [--no-generate]

CPU seconds (``getrusage``), not wall time: the 2-core machines these run on are shared, and
CPU is what one build costs whatever else runs. For each checkout (this one and, with
``--before``, another, e.g. ``git worktree add --detach ../before main``), round by round and
interleaved, in fresh processes:

- assemble / render / literal check: the generator process's three per-module stages, timed
  on the inspected modules of one ``generate --no-cache`` of a synthetic project
  (``bench/synthetic.py``), captured once per checkout (left out when the workers assemble and
  render every module, as they now do in a cold build);
- generate: a whole ``mcp-codegen generate --no-cache`` into an empty output directory, the
  generator process and its workers together (``RUSAGE_CHILDREN``);
- bare inference: one process importing every module and building one TypeAdapter per module
  (``bench/incremental.py``'s ``INFER``), the issue's yardstick.

Every generate's output tree is hashed; the script stops if two checkouts (or two rounds)
produce different trees. Medians, and after/before ratios of medians.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.incremental import INFER
from bench.synthetic import write_package

HERE = Path(__file__).resolve().parent


#: ``python -m mcp_codegen generate --no-cache`` in this process, keeping what ``assemble_module``
#: was given; pickled to argv[1].
CAPTURE = r"""
import pickle, sys
import mcp_codegen._generator.assemble.finalize as finalize
seen, original = [], finalize.assemble_module
def keep(inspected, config):
    seen.append(inspected)
    keep.config = config
    return original(inspected, config)
finalize.assemble_module = keep
out = sys.argv[1]
from mcp_codegen._cli import main
main(["generate", "--no-cache", "--quiet"])  # argv given: returns (no os._exit), as in tests
with open(out, "wb") as handle:
    pickle.dump((seen, getattr(keep, "config", None)), handle)
"""

#: The three stages over the captured modules; prints their CPU seconds as JSON.
STAGES = r"""
import json, pickle, resource, sys
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
with open(sys.argv[1], "rb") as handle:
    inspected, config = pickle.load(handle)
if config is None:  # the workers assembled and rendered every module: no parent stage to time
    print("{}")
    sys.exit(0)
from mcp_codegen._generator.assemble.finalize import assemble_module
from mcp_codegen._generator.render.modules import render_module
from mcp_codegen._generator.write.output import verify_literal_module
start = cpu()
definitions = [assemble_module(module, config)[0] for module in inspected]
assembled = cpu()
files = [render_module(definition, config) for definition in definitions]
rendered = cpu()
for file in files:
    verify_literal_module(file.content, file.relative_path)
checked = cpu()
print(json.dumps({"assemble": assembled - start, "render": rendered - assembled,
                  "literal check": checked - rendered}))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(command: list[str], cwd: Path, pythonpath: str) -> tuple[float, str]:
    before = _children_cpu()
    done = subprocess.run(
        command,
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=pythonpath),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed in {cwd}:\n{done.stderr}")
    return _children_cpu() - before, done.stdout


def _tree_hash(output: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(
        p for p in output.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        digest.update(path.relative_to(output).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tools", type=int, default=10000)
    parser.add_argument("--before", type=Path, help="another checkout, measured beside this one")
    parser.add_argument("--after", type=Path, default=HERE.parent, help="default: this checkout")
    parser.add_argument("--no-generate", action="store_true", help="only the parent's stages")
    options = parser.parse_args()
    repos = {"after": options.after.resolve()}
    if options.before:
        repos = {"before": options.before.resolve(), **repos}
    work = Path(tempfile.mkdtemp(prefix="cold-cpu-"))
    try:
        write_package(work, options.tools)
        for repo in repos.values():
            compileall.compile_dir(repo / "mcp_codegen", quiet=1)
        compileall.compile_dir(work / "synth", quiet=1)
        captured = {}
        for label, repo in repos.items():
            captured[label] = work / f"{label}.pickle"
            _run([sys.executable, "-c", CAPTURE, str(captured[label])], work, str(repo))
        modules = sorted(f"synth.{p.stem}" for p in (work / "synth").glob("tools_*.py"))
        times: dict[tuple[str, str], list[float]] = {}
        trees: set[str] = set()
        for round_ in range(options.rounds):
            for label, repo in repos.items():
                _, out = _run([sys.executable, "-c", STAGES, str(captured[label])], work, str(repo))
                for stage, seconds in json.loads(out).items():
                    times.setdefault((label, stage), []).append(seconds)
                if not options.no_generate:
                    shutil.rmtree(work / "generated", ignore_errors=True)
                    command = [
                        sys.executable,
                        "-m",
                        "mcp_codegen",
                        "generate",
                        "--no-cache",
                        "--quiet",
                    ]
                    seconds, _ = _run(command, work, str(repo))
                    times.setdefault((label, "generate --no-cache"), []).append(seconds)
                    trees.add(_tree_hash(work / "generated"))
                    if len(trees) > 1:
                        raise SystemExit(f"the generated trees differ ({label}, round {round_})")
            if not options.no_generate:
                seconds, _ = _run([sys.executable, "-c", INFER, *modules], work, str(work))
                times.setdefault(("", "bare inference"), []).append(seconds)
            print(f"round {round_ + 1}/{options.rounds} done", file=sys.stderr)
        _report(times, repos, options, trees)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _report(
    times: dict[tuple[str, str], list[float]],
    repos: dict[str, Path],
    options: argparse.Namespace,
    trees: set[str],
) -> None:
    medians = {key: statistics.median(values) for key, values in times.items()}
    labels = list(repos)
    print(
        f"cold build CPU, {options.tools} tools, {options.rounds} interleaved rounds, medians "
        f"(CPU s), load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        f"{'what':32}"
        + "".join(f"{label:>10}" for label in labels)
        + ("     ratio" * (len(labels) > 1))
    )
    stages = ["assemble", "render", "literal check", "generate --no-cache"]
    for stage in stages:
        row = [medians.get((label, stage)) for label in labels]
        if row[0] is None:
            continue
        line = f"{stage:32}" + "".join(f"{value:10.2f}" for value in row)
        if len(row) > 1:
            line += f"{row[1] / row[0]:9.2f}x"
        print(line)
    if ("", "bare inference") in medians:
        bare = medians[("", "bare inference")]
        print(f"{'bare inference':32}{bare:10.2f}")
        for label in labels:
            print(
                f"{'generate / bare, ' + label:32}{medians[(label, 'generate --no-cache')] / bare:10.2f}x"
            )
    if trees:
        print(f"generated tree sha256 (all runs): {trees.pop()[:16]}")


if __name__ == "__main__":
    main()
