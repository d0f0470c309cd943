"""Drop-in on real MCP servers published on PyPI: generate each in its flavor, verify it.

Run by ``nox -s realworld``, once per environment (SDK 1.x, SDK 2.x and fastmcp servers cannot
share one), with that environment's Python::

    python tests/e2e/realworld/check_realworld.py run --env sdk1 --results DIR
    python tests/e2e/realworld/check_realworld.py table --results DIR

``run`` builds, for every run of ``servers.toml`` in that environment, a temporary project whose
``sources`` point at the installed package in site-packages, runs ``mcp-codegen generate`` and
``mcp-codegen verify --against`` the server's real object, and checks the outcome against the
expectations in ``servers.toml`` (which tools must be exact, which must fail with which clear
error). It writes one JSON result per run and exits 1 when any expectation is not met. ``table``
prints the table of all results and exits 1 when any run failed or is missing.

This file is not collected by pytest (its name does not start with ``test_``): the servers are
installed only in the realworld session's environments, never in the default test environment.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers.toml"
_DIAGNOSTIC = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<message>.*)$")
_MISMATCH = re.compile(r"^(?P<tool>.+?) -> ")
HASH_SEEDS = ("0", "1", "4242")
FRAMEWORKS = {"mcp1": "SDK 1.x FastMCP", "mcp": "SDK 2.x MCPServer", "fastmcp": "fastmcp"}


@dataclass
class Outcome:
    """What one run produced and which expectations it broke."""

    run: str
    server: str
    version: str
    framework: str
    pins: str = ""
    tools: int = 0
    exact: int = 0
    clear_errors: int = 0
    known_gaps: int = 0
    seconds: float = 0.0
    strict_hook: bool = False  # listed exactly the same under use_generated(strict=True)
    #: warm, --no-cache and cache-made-under-another-hash-seed builds agree (issue 35, item 2)
    cache_independent: bool = False
    problems: list[str] = field(default_factory=list)


def load_expectations() -> dict[str, Any]:
    """``servers.toml``: ``[servers.<id>]`` packages and ``[[run]]`` expectations."""
    return tomllib.loads(SERVERS.read_text(encoding="utf-8"))


def package_dir(import_name: str) -> Path:
    """Where the installed package lives (site-packages of this environment)."""
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{import_name} is not installed in {sys.prefix}; run `nox -s realworld`")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def write_project(project: Path, run: dict[str, Any], package: Path) -> None:
    """A fresh project whose sources are the installed package's files."""
    project.mkdir(parents=True)
    sources = ", ".join(json.dumps(str(package / s)) for s in run["sources"])
    lines = [
        "[tool.mcp-codegen]",
        f"sources = [{sources}]",
        f"flavor = {json.dumps(run['flavor'])}",
        "import_timeout = 180",
    ]
    if run.get("factories"):
        lines.append(f"factories = {json.dumps(run['factories'])}")
    (project / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if run.get("target_module"):
        (project / "realworld_target.py").write_text(run["target_module"], encoding="utf-8")


def codegen(
    project: Path, *args: str, hash_seed: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``mcp-codegen ARGS`` in ``project`` with this environment's Python."""
    env = dict(os.environ)
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed
    return subprocess.run(
        [sys.executable, "-m", "mcp_codegen", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def check_hash_seeds(project: Path, out: Outcome) -> None:
    """The generated tree does not depend on the caller's hash seed (issue 10, item 5)."""
    for seed in HASH_SEEDS:
        check = codegen(project, "check", "--no-cache", hash_seed=seed)
        if check.returncode != 0:
            shown = (check.stdout + check.stderr).strip().splitlines()[:12]
            out.problems.append(
                f"check --no-cache under PYTHONHASHSEED={seed} exited {check.returncode}:\n    "
                + "\n    ".join(shown)
            )


def _build_answer(project: Path, *args: str, hash_seed: str | None = None) -> tuple[Any, ...]:
    """``generate -v ARGS`` from an empty output directory: its exit code, its diagnostics
    (every ``path:line:col:`` line, notes and warnings included) and the tree it wrote."""
    import shutil

    shutil.rmtree(project / "generated", ignore_errors=True)
    done = codegen(project, "generate", "-v", *args, hash_seed=hash_seed)
    lines = [line for line in done.stderr.splitlines() if _DIAGNOSTIC.match(line)]
    return done.returncode, lines, _tree(project / "generated")


def _tree(output: Path) -> dict[str, bytes]:
    return {
        p.relative_to(output).as_posix(): p.read_bytes()
        for p in sorted(output.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _differing(mine: Any, theirs: Any) -> list[Any]:
    if isinstance(mine, dict):
        return [k for k in sorted({*mine, *theirs}) if mine.get(k) != theirs.get(k)]
    if isinstance(mine, list):
        return sorted(set(mine) ^ set(theirs)) or ["(the same lines, in another order)"]
    return [mine, theirs]


def check_cache_independence(
    project: Path, first: subprocess.CompletedProcess[str], out: Outcome
) -> None:
    """A build's answer never depends on the cache: a warm build (from the cache ``first``
    made), a ``--no-cache`` build, a cold build under another hash seed and a warm build from
    the cache that one made give the same exit code, diagnostics and tree (issue 35, item 2)."""
    import shutil

    cold_tree = _tree(project / "generated")
    answers = {"warm": _build_answer(project)}
    answers["--no-cache"] = _build_answer(project, "--no-cache")
    shutil.rmtree(project / ".mcp-codegen-cache", ignore_errors=True)
    answers["cold, PYTHONHASHSEED=1"] = _build_answer(project, hash_seed="1")
    answers["warm from that cache"] = _build_answer(project, hash_seed="4242")
    reference = answers["warm"]
    if reference[0] != first.returncode:
        out.problems.append(
            f"the warm build's exit code differs from the cold build's: {reference[0]}, "
            f"{first.returncode}"
        )
    if reference[2] != cold_tree:
        out.problems.append(
            "the warm build's tree differs from the cold build's: "
            f"{_differing(reference[2], cold_tree)[:6]}"
        )
    for name, answer in answers.items():
        for part, (mine, theirs) in zip(
            ("exit code", "diagnostics", "tree"), zip(answer, reference, strict=True), strict=True
        ):
            if mine != theirs:
                shown = _differing(mine, theirs)
                out.problems.append(
                    f"{name} build: its {part} differs from the warm build's: {shown[:6]}"
                )
    out.cache_independent = not any("differs from the " in p for p in out.problems)


def errors_of(stderr: str, package: Path) -> list[tuple[str, int, str]]:
    """``(file relative to the package, line, message)`` of each error diagnostic."""
    found = []
    for line in stderr.splitlines():
        match = _DIAGNOSTIC.match(line)
        if match is None or match["message"].startswith("warning: "):
            continue
        path = Path(match["path"])
        try:
            relative = path.resolve().relative_to(package).as_posix()
        except ValueError:  # a sibling top-level package of the same distribution
            try:
                relative = "../" + path.resolve().relative_to(package.parent).as_posix()
            except ValueError:
                relative = match["path"]
        found.append((relative, int(match["line"]), match["message"]))
    return found


def served_tools(run: dict[str, Any], project: Path) -> tuple[str, list[str]]:
    """The framework and tool names the real server serves (imported in a child process)."""
    from mcp_codegen._generator.verify import their_tools

    framework, tools = their_tools(run["against"], project, (), 180.0)
    return framework, sorted(tool["name"] for tool in tools)


def check_errors(run: dict[str, Any], errors: list[tuple[str, int, str]], out: Outcome) -> None:
    """Every run-time-only tool has its clear error; nothing else is an error.

    ``unserved_errors`` are tools the source registers only under a configuration the
    ``against`` server does not have (an environment switch): their errors are expected too.
    """
    expected = run.get("errors", []) + run.get("unserved_errors", [])
    expected += [
        {**want, "tool": f"{want['tools']} tools of a provider"}
        for want in run.get("provider_errors", [])
    ]
    claimed: set[int] = set()
    for want in expected:
        first, last = want["lines"]
        mine = [
            (i, message)
            for i, (path, line, message) in enumerate(errors)
            if path == want["file"] and first <= line <= last
        ]
        claimed.update(i for i, _ in mine)
        if not mine:
            out.problems.append(
                f"{want['tool']}: no error at {want['file']}:{first}-{last} ({want['why']})"
            )
            continue
        text = "\n".join(message for _, message in mine)
        missing = [word for word in want.get("mentions", []) if word not in text]
        if missing:
            out.problems.append(
                f"{want['tool']}: the error does not name {', '.join(map(repr, missing))} "
                f"({want['why']}); it says: {text}"
            )
        else:
            out.clear_errors += want.get("tools", 1)
    for i, (path, line, message) in enumerate(errors):
        if i not in claimed:
            out.problems.append(f"unexpected error {path}:{line}: {message}")


def check_exact(
    run: dict[str, Any], served: list[str], verify: subprocess.CompletedProcess[str], out: Outcome
) -> None:
    """``verify`` passes, except for the tools listed as known differences (each still differs)."""
    differing = {
        match["tool"]
        for line in verify.stdout.splitlines()
        if (match := _MISMATCH.match(line)) is not None
    }
    known = {entry["tool"]: entry["why"] for entry in run.get("not_exact", [])}
    out.known_gaps = len(known)
    out.exact = len([name for name in served if name not in differing])
    for name in sorted(differing - set(known)):
        shown = [line for line in verify.stdout.splitlines() if line.startswith(f"{name} -> ")]
        out.problems.append(f"{name} is not exact:\n    " + "\n    ".join(shown[:5]))
    for name in sorted(set(known) - differing):
        out.problems.append(
            f"{name} is exact now: remove it from not_exact in servers.toml ({known[name]})"
        )
    if verify.returncode not in (0, 1) or (verify.returncode == 1) != bool(differing):
        out.problems.append(f"verify exited {verify.returncode}: {verify.stderr.strip()}")


def check_factory_record(run: dict[str, Any], project: Path, out: Outcome) -> None:
    """Each generated tool of a factory-built server records the call that built it."""
    from mcp_codegen._shared.reader import read_tree

    _, modules = read_tree(project / "generated")
    calls = set(run["factories"])
    for module in modules:
        for tool in module.get("TOOLS", ()):
            recorded = tool.get("x-codegen", {}).get("factory")
            if recorded not in calls:
                out.problems.append(
                    f"{tool['name']}: the generated module records factory {recorded!r}, "
                    f"not one of {sorted(calls)}"
                )


_LISTING = """
import importlib, json, sys
if sys.argv[1] == "hooked":
    from mcp_codegen.runtime import use_generated
    use_generated("generated", strict=True)
from mcp_codegen._registration.factory_calls import parse_factory_call
from mcp_codegen._registration.served import list_served_tools
target = sys.argv[2]
if "(" in target:
    server = parse_factory_call(target).call()
else:
    module, _, path = target.partition(":")
    server = importlib.import_module(module)
    for part in path.split("."):
        server = getattr(server, part)
print(json.dumps(list_served_tools(server), sort_keys=True))
"""


def check_strict_hook(run: dict[str, Any], project: Path, out: Outcome) -> None:
    """The server under ``use_generated(strict=True)`` (what ``mcp-codegen run --strict``
    turns on) starts, finding an entry for every tool, and lists exactly what it lists plain.

    Both listings run under the generator's worker conditions (hash seed, time zone, locale),
    as ``verify`` does: a server that builds a value by iterating a set (mcp-atlassian's
    ``default=",".join(DEFAULT_READ_JIRA_FIELDS)``) lists it differently in every process.
    For a ``composed`` run (``verify`` compares the generated tree, keyed per server and
    unprefixed, with the composed listing, so it cannot judge it) this is the exactness check:
    ``out.exact`` counts the tools the hooked composed server lists as the plain one does."""
    from mcp_codegen._generator.workers.prestart import worker_environment

    listings = {}
    for mode in ("plain", "hooked"):
        done = subprocess.run(
            [sys.executable, "-c", _LISTING, mode, run["against"]],
            cwd=project,
            env={**worker_environment(), "PYTHONPATH": str(project)},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            tail = "\n    ".join(done.stderr.strip().splitlines()[-4:])
            out.problems.append(
                f"listing {mode} (strict hook) exited {done.returncode}:\n    {tail}"
            )
            return
        listings[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    if run.get("composed"):
        hooked = {tool["name"]: tool for tool in listings["hooked"]}
        out.exact = sum(hooked.get(tool["name"]) == tool for tool in listings["plain"])
    if listings["plain"] != listings["hooked"]:
        differing = [
            plain["name"]
            for plain, hooked in zip(listings["plain"], listings["hooked"], strict=False)
            if plain != hooked
        ]
        out.problems.append(f"the strict hook lists differently: {differing or 'order/count'}")
    else:
        out.strict_hook = True


def run_one(run: dict[str, Any], server: dict[str, Any], workdir: Path) -> Outcome:
    """Generate and verify one run; return what happened and what broke."""
    out = Outcome(run["id"], server["package"], server["version"], server["framework"])
    out.pins = ", ".join(server["pins"])
    package = package_dir(server["import"])
    project = workdir / run["id"]
    write_project(project, run, package)
    start = time.perf_counter()
    generate = codegen(project, "generate")
    verify = (
        codegen(project, "verify", "--against", run["against"])
        if generate.returncode == 0
        else None
    )
    out.seconds = time.perf_counter() - start
    try:
        framework, served = served_tools(run, project)
    except Exception as exc:  # the verify child's answer: a bad target or a failing import
        out.problems.append(f"listing {run['against']} failed: {exc}")
        return out
    out.tools = len(served)
    if framework != server["framework"]:
        out.problems.append(f"the server is {framework}, servers.toml says {server['framework']}")
    listed = sorted(
        run.get("exact", [])
        + [entry["tool"] for entry in run.get("not_exact", [])]
        + [entry["tool"] for entry in run.get("errors", [])]
    )
    # a provider's tools (an OpenAPI document's): counted, their names are the document's
    provided = sum(want["tools"] for want in run.get("provider_errors", []))
    if provided and len(set(served) - set(listed)) == provided and set(listed) <= set(served):
        listed = served
    if listed != served:
        out.problems.append(
            f"servers.toml lists {len(listed)} tools, the server serves {len(served)}: "
            f"only listed {sorted(set(listed) - set(served))}, "
            f"only served {sorted(set(served) - set(listed))}"
        )
    errors = errors_of(generate.stderr, package)
    if run.get("errors") or run.get("unserved_errors") or run.get("provider_errors"):
        if generate.returncode != 2:
            out.problems.append(f"generate exited {generate.returncode}, expected 2 (errors)")
        check_errors(run, errors, out)
    elif generate.returncode != 0 or verify is None:
        out.problems.append(
            f"generate exited {generate.returncode}:\n    "
            + "\n    ".join(generate.stderr.strip().splitlines()[-8:])
        )
    else:
        if not run.get("composed"):
            check_exact(run, served, verify, out)
        check_hash_seeds(project, out)
        check_strict_hook(run, project, out)
        if run.get("factories"):
            check_factory_record(run, project, out)
    check_cache_independence(project, generate, out)
    return out


def cmd_run(args: argparse.Namespace) -> int:
    expectations = load_expectations()
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-realworld-") as tmp:
        for run in expectations["run"]:
            server = expectations["servers"][run["server"]]
            if server["env"] != args.env or (args.only and run["id"] not in args.only):
                continue
            out = run_one(run, server, Path(tmp))
            (results / f"{run['id']}.json").write_text(json.dumps(out.__dict__, indent=2) + "\n")
            status = "ok" if not out.problems else "FAILED"
            print(f"{run['id']}: {status} ({out.exact}/{out.tools} exact, {out.seconds:.1f} s)")
            for problem in out.problems:
                print(f"  - {problem}")
            failed += bool(out.problems)
    return 1 if failed else 0


def cmd_table(args: argparse.Namespace) -> int:
    expectations = load_expectations()
    results = Path(args.results)
    rows = []
    bad = 0
    for run in expectations["run"]:
        if args.envs and expectations["servers"][run["server"]]["env"] not in args.envs:
            continue
        path = results / f"{run['id']}.json"
        if not path.exists():
            print(f"{run['id']}: no result (its environment did not run)", file=sys.stderr)
            bad += 1
            continue
        out = json.loads(path.read_text())
        bad += bool(out["problems"])
        rows.append(out)
    print(
        "| server | framework | tools | exact | clear errors | known gaps | strict hook = plain "
        "| cache = no cache | seconds | ok |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | --- | --- | ---: | --- |")
    for out in rows:
        print(
            f"| {out['run']} ({out['server']} {out['version']}) | {FRAMEWORKS[out['framework']]} ({out['pins']}) | "
            f"{out['tools']} | {out['exact']} | {out['clear_errors']} | {out['known_gaps']} | "
            f"{'yes' if out.get('strict_hook') else '-'} | "
            f"{'yes' if out.get('cache_independent') else 'NO'} | {out['seconds']:.1f} | "
            f"{'yes' if not out['problems'] else 'NO'} |"
        )
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="generate and verify the servers of one environment")
    run.add_argument("--env", required=True)
    run.add_argument("--results", required=True)
    run.add_argument("--only", nargs="*", help="run ids (default: all in the environment)")
    run.set_defaults(handler=cmd_run)
    table = commands.add_parser("table", help="print the table of all results")
    table.add_argument("--results", required=True)
    table.add_argument("--envs", nargs="*", help="only these environments (default: all)")
    table.set_defaults(handler=cmd_table)
    args = parser.parse_args()
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
