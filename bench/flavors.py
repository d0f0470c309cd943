"""Generation time per flavor on the published-style corpus (tests/fixtures/published, 62 tools).

Usage:  python -m bench flavors [--repeat 5] [NAME=CHECKOUT ...]
e.g.    python -m bench flavors before=/tmp/main-checkout after=.

With checkouts, each one's framework builds run side by side in every round (after the clean
build, made with the first checkout), so load on the machine falls on all of them alike.
Each measurement is a fresh `python -m mcp_codegen generate --no-cache` process (wall time, as a user
sees it), into an empty output directory. The framework flavors pay for importing the framework in
the worker and for one in-memory tools/list round trip per module. Sources and the generator are
precompiled first (these machines set PYTHONDONTWRITEBYTECODE=1).
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

from mcp_codegen._shared.reader import read_tree

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
PUBLISHED = FIXTURES / "published"
#: (framework flavor, the corpus packages written for it), each also built with "clean"; the
#: last: one server module alone, as a small project has it
RUNS = [
    ("mcp", ["sdk2", "sdk1"]),
    ("fastmcp", ["fastmcp_style"]),
    ("fastmcp", ["fastmcp_style/search.py"]),
]


def _generate(root: Path, repo: Path = REPO) -> float:
    env = dict(os.environ, PYTHONPATH=str(repo))
    shutil.rmtree(root / "generated", ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "generate", "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"generate failed:\n{done.stderr}")
    return elapsed


def _project(root: Path, flavor: str, packages: list[str]) -> Path:
    root.mkdir()
    sources = [str(PUBLISHED / p) for p in packages]
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f"sources = {json.dumps(sources)}\n"
        f'flavor = "{flavor}"\n'
        f"python_path = {json.dumps([str(FIXTURES)])}\n",
        encoding="utf-8",
    )
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("checkouts", nargs="*", metavar="NAME=CHECKOUT")
    options = parser.parse_args()
    repos = {
        name: Path(path).resolve()
        for name, path in (text.split("=", 1) for text in options.checkouts)
    } or {"this": REPO}
    for repo in repos.values():
        compileall.compile_dir(repo / "mcp_codegen", quiet=1)
    compileall.compile_dir(PUBLISHED, quiet=1)
    first = next(iter(repos))
    columns = "".join(f" {name + ' s':>12} {'x clean':>7}" for name in repos)
    if len(repos) > 1:
        columns += "".join(f" {name + '/' + first:>12}" for name in list(repos)[1:])
    print(f"{'packages':<24} {'tools':>5} {'flavor':<8} {'clean s':>8}{columns}")
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-flavors-") as tmp:
        for index, (flavor, packages) in enumerate(RUNS):
            run = f"{flavor}-{index}"
            clean = _project(Path(tmp) / f"clean-{run}", "clean", packages)
            frameworks = {
                name: _project(Path(tmp) / f"{run}-{name}", flavor, packages) for name in repos
            }
            clean_times: list[float] = []
            flavor_times: dict[str, list[float]] = {name: [] for name in repos}
            for _ in range(options.repeat):  # interleaved, so machine noise hits all alike
                clean_times.append(_generate(clean, repos[first]))
                for name, project in frameworks.items():
                    flavor_times[name].append(_generate(project, repos[name]))
            tools = _count(frameworks[first] / "generated")
            assert all(_count(p / "generated") == tools for p in [clean, *frameworks.values()])
            plain = statistics.median(clean_times)
            medians = {name: statistics.median(times) for name, times in flavor_times.items()}
            row = "".join(f" {m:>12.2f} {m / plain:>6.2f}x" for m in medians.values())
            row += "".join(f" {m / medians[first]:>11.2f}x" for m in list(medians.values())[1:])
            print(f"{'+'.join(packages):<24} {tools:>5} {flavor:<8} {plain:>8.2f}{row}")


def _count(output: Path) -> int:
    _, modules = read_tree(output)  # format 3 records no TOOL_COUNT: count the tools
    return sum(len(module.get("TOOLS", ())) for module in modules)


if __name__ == "__main__":
    main()
