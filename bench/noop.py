"""A no-op ``generate`` and ``check`` from the installed wheel against the same build from a checkout.

Usage:  python bench/noop.py [--tools 10] [--repeat 7] [--flavors clean mcp fastmcp]

Builds the wheel of this checkout, installs it with ``[server]`` and fastmcp into a fresh venv
(outside the repository), and writes one project per flavor and side (``--tools`` tools in one
module: a plain ``@tool`` module for clean, an ``MCPServer`` for mcp, a ``fastmcp.FastMCP`` for
fastmcp). Both sides run the venv's own ``mcp-codegen`` command with the same libraries; the
checkout side has this checkout first on ``PYTHONPATH`` (so ``mcp_codegen`` and its workers come
from it), as a developer's venv would. After one cold ``generate`` per project, each round times
a no-op ``generate`` and ``check`` of every project in a fresh process, the two sides
interleaved, so machine noise hits both alike. The wheel's site-packages and this checkout are
precompiled (these machines set PYTHONDONTWRITEBYTECODE=1).

"hit" says whether every no-op of that row was a build-cache hit: each tool module writes a
marker file when it is imported, and a hit imports no user code (a miss imports it in the
workers and, for mcp/fastmcp, in the server probe).
"""

from __future__ import annotations

import argparse
import compileall
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIDES = ("wheel", "checkout")
FLAVORS = ("clean", "mcp", "fastmcp")
MARKER = "imported.marker"

#: flavor -> (the module's own imports and server, the tool decorator)
_FLAVORS = {
    "clean": ("from mcp_codegen.decorators import tool\n", "tool"),
    "mcp": (
        'from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer("bench")\n',
        "mcp.tool()",
    ),
    "fastmcp": ('from fastmcp import FastMCP\n\nmcp = FastMCP("bench")\n', "mcp.tool"),
}
_TOOL = '''

@{decorator}
def tool_{index}(query: str, limit: Annotated[int, Field(ge=1, le=50)] = 10,
           mode: Literal["fast", "exact"] = "fast") -> list[str]:
    """Tool number {index}.

    Args:
        query: Words to look for.
    """
    return [query][:limit]
'''


def tool_module(flavor: str, tools: int) -> str:
    """One module with ``tools`` tools of ``flavor``, which marks every import of itself."""
    head = textwrap.dedent(
        f"""\
        from pathlib import Path
        from typing import Annotated, Literal

        from pydantic import Field

        Path(__file__).with_name("{MARKER}").write_text("imported")

        """
    )
    header, decorator = _FLAVORS[flavor]
    return head + header + "".join(_TOOL.format(decorator=decorator, index=i) for i in range(tools))


def write_project(root: Path, flavor: str, tools: int) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "server.py").write_text(tool_module(flavor, tools))
    extra = '\nrun_targets = ["app.server:mcp"]' if flavor != "clean" else ""
    (root / "pyproject.toml").write_text(
        f'[tool.mcp-codegen]\nsources = ["app"]\nflavor = "{flavor}"{extra}\n'
    )
    return root


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def install(work: Path) -> Path:
    """A fresh venv with this checkout's wheel, ``[server]`` and fastmcp; its ``bin``."""
    wheels = work / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(REPO)])
    (wheel,) = wheels.glob("*.whl")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _run([*pip, "--python", str(python), "install", "-q", f"{wheel}[server]", "fastmcp>=4.2,<5"])
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    compileall.compile_dir(site.stdout.strip(), quiet=1, workers=0)
    return venv / "bin"


def environments(bin_dir: Path) -> dict[str, dict[str, str]]:
    """Per side, the environment its commands run in (never this process's own venv)."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    base["PATH"] = os.pathsep.join([str(bin_dir), base.get("PATH", "")])
    return {"wheel": base, "checkout": {**base, "PYTHONPATH": str(REPO)}}


#: One no-op command: wall seconds, CPU seconds (its workers included), a cache hit.
Sample = tuple[float, float, bool]
Samples = dict[tuple[str, str, str], list[Sample]]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> Sample:
    """One command's wall and CPU seconds (the workers it waits for included), and whether it
    imported no user code (a cache hit)."""
    marker = cwd / "app" / MARKER
    marker.unlink(missing_ok=True)
    cpu, start = _children_cpu(), time.perf_counter()
    _run(command, cwd=cwd, env=env)
    return time.perf_counter() - start, _children_cpu() - cpu, not marker.exists()


def measure(
    projects: dict[tuple[str, str], Path],
    envs: dict[str, dict[str, str]],
    bin_dir: Path,
    repeat: int,
) -> Samples:
    """``(flavor, side, command)`` -> one sample per round, sides interleaved."""
    command = str(bin_dir / "mcp-codegen")
    found: Samples = {}
    for round_ in range(repeat):
        for (flavor, side), root in projects.items():
            order = ("generate", "check") if round_ % 2 == 0 else ("check", "generate")
            for verb in order:
                found.setdefault((flavor, side, verb), []).append(
                    timed([command, verb], root, envs[side])
                )
    return found


def table(found: Samples, flavors: list[str], tools: int) -> list[str]:
    lines = [
        f"{'flavor':<8} {'command':<9} {'tools':>5} {'wheel s':>8} {'checkout s':>10} "
        f"{'ratio':>6} {'wheel CPU s':>11} {'checkout CPU s':>14}  hit (wheel/checkout)"
    ]
    for flavor in flavors:
        for verb in ("generate", "check"):
            sides = [found[(flavor, side, verb)] for side in SIDES]
            wall = [statistics.median(s[0] for s in runs) for runs in sides]
            cpu = [statistics.median(s[1] for s in runs) for runs in sides]
            hits = "/".join("yes" if all(s[2] for s in runs) else "NO" for runs in sides)
            lines.append(
                f"{flavor:<8} {verb:<9} {tools:>5} {wall[0]:>8.3f} {wall[1]:>10.3f} "
                f"{wall[0] / wall[1]:>5.2f}x {cpu[0]:>11.3f} {cpu[1]:>14.3f}  {hits}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--flavors", nargs="+", choices=FLAVORS, default=list(FLAVORS))
    args = parser.parse_args()
    compileall.compile_dir(REPO / "mcp_codegen", quiet=1, workers=0)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-noop-") as tmp:
        work = Path(tmp)
        bin_dir = install(work)
        envs = environments(bin_dir)
        projects = {
            (flavor, side): write_project(work / f"{flavor}-{side}", flavor, args.tools)
            for flavor in args.flavors
            for side in SIDES
        }
        for (_, side), root in projects.items():  # the cold build that fills the cache
            _run([str(bin_dir / "mcp-codegen"), "generate"], cwd=root, env=envs[side])
        found = measure(projects, envs, bin_dir, args.repeat)
    print(
        f"no-op generate/check, {args.tools} tools, median of {args.repeat} fresh processes, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print("\n".join(table(found, args.flavors, args.tools)))


if __name__ == "__main__":
    main()
