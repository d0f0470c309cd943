"""Generation time per flavor on the published-style corpus (tests/fixtures/published, 62 tools).

Usage:  python -m bench flavors [--repeat 5]

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
#: framework flavor -> the corpus packages written for it (each also built with "clean")
RUNS = {"mcp": ["sdk2", "sdk1"], "fastmcp": ["fastmcp_style"]}


def _generate(root: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(REPO))
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
    repeat = parser.parse_args().repeat
    compileall.compile_dir(REPO / "mcp_codegen", quiet=1)
    compileall.compile_dir(PUBLISHED, quiet=1)
    print(
        f"{'packages':<16} {'tools':>5} {'flavor':<8} {'median s':>9} {'clean s':>8} {'ratio':>6}"
    )
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-flavors-") as tmp:
        for flavor, packages in RUNS.items():
            clean = _project(Path(tmp) / f"clean-{flavor}", "clean", packages)
            framework = _project(Path(tmp) / flavor, flavor, packages)
            clean_times, flavor_times = [], []
            for _ in range(repeat):  # interleaved, so machine noise hits both alike
                clean_times.append(_generate(clean))
                flavor_times.append(_generate(framework))
            tools = _count(framework / "generated")
            assert tools == _count(clean / "generated")
            flavored, plain = statistics.median(flavor_times), statistics.median(clean_times)
            print(
                f"{'+'.join(packages):<16} {tools:>5} {flavor:<8} {flavored:>9.2f} {plain:>8.2f} "
                f"{flavored / plain:>5.2f}x"
            )


def _count(output: Path) -> int:
    _, modules = read_tree(output)  # format 3 records no TOOL_COUNT: count the tools
    return sum(len(module.get("TOOLS", ())) for module in modules)


if __name__ == "__main__":
    main()
