"""Prepare one published server's project for bench/run_fastpath.py's ``--realworld-envs`` mode.

Runs with the Python of the ``nox -s realworld`` environment the server is installed in (codegen
from the benchmark's copy on ``PYTHONPATH``): writes the project as
tests/e2e/realworld/check_run_fastpath.py does (the installed package's files as sources, the
run's target as ``run_targets``), generates it, and prints one JSON line: the target, its module
and attribute, and whether the fast path serves it here.

Usage: python -m bench _realworld_child PROJECT RUN_ID
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REALWORLD = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "realworld"
sys.path.insert(0, str(REALWORLD))

from check_realworld import load_expectations, package_dir, write_project  # noqa: E402


def main(project: Path, ident: str) -> int:
    expectations = load_expectations()
    run = next(r for r in expectations["run"] if r["id"] == ident)
    target = run["against"]
    if not (project / "generated" / "__servers__.py").is_file():
        import_name = expectations["servers"][run["server"]]["import"]
        write_project(project, run, package_dir(import_name))
        with (project / "pyproject.toml").open("a", encoding="utf-8") as config:
            config.write(f"run_targets = {json.dumps([target])}\n")
        subprocess.run(
            [sys.executable, "-m", "mcp_codegen", "generate"],
            cwd=project,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    from mcp_codegen.runtime._hook.install import fast_path_serves

    module, _, attribute = target.partition(":")
    serves = fast_path_serves(str(project / "generated"), target)
    print(
        json.dumps({"target": target, "module": module, "attribute": attribute, "serves": serves})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
