"""``python -m bench NAME [options]``: run one benchmark scenario; ``python -m bench`` lists them.

A scenario is any public module ``bench/NAME.py`` that defines ``main()``; the runner sets
``sys.argv`` to the scenario's options and calls it, so a self-contained script with
``main()`` becomes a scenario by being put in bench/ (bench/README.md).
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
#: Short names for scenarios whose module name says more than a command line needs to.
ALIASES = {"fastpath": "run_fastpath"}


def scenarios() -> dict[str, str]:
    """Each scenario's name and the first line of its module docstring (read without importing)."""
    found = {}
    for path in sorted(BENCH.glob("*.py")):
        if path.stem.startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
            found[path.stem] = (ast.get_docstring(tree) or "").split("\n", 1)[0]
    return found


def main(argv: list[str]) -> int:
    """Run the scenario named by ``argv[0]`` with the rest as its options."""
    known = scenarios()
    if not argv or argv[0] in ("-h", "--help", "--list"):
        print("usage: python -m bench NAME [options]   (python -m bench NAME --help)\n")
        width = max(map(len, known))
        for name, summary in known.items():
            alias = [short for short, long in ALIASES.items() if long == name]
            shown = f"{name} ({alias[0]})" if alias else name
            print(f"  {shown:<{width + 12}} {summary}")
        return 0
    name = ALIASES.get(argv[0], argv[0]).replace("-", "_")
    if name not in known:
        print(f"unknown scenario {argv[0]!r}; `python -m bench` lists them", file=sys.stderr)
        return 2
    module = importlib.import_module(f"bench.{name}")
    sys.argv = [f"python -m bench {argv[0]}", *argv[1:]]
    result = module.main()
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
