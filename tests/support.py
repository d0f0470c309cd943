"""Test helpers: throw-away projects driven through the real ``mcp-codegen`` command line."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def npm_ci(project: Path, required: Sequence[Path], purpose: str) -> None:
    """Install ``project``'s npm packages from its committed lockfile unless every ``required``
    file is there already; node and npm (Node 20+) must be on the machine: fail, never skip."""
    import pytest

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(f"node and npm (Node 20+) are required {purpose}")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    major = int(version.stdout.strip().lstrip("v").split(".")[0])
    assert major >= 20, f"Node 20+ is required, found {version.stdout.strip()}"
    if not all(path.exists() for path in required):
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=project, check=True, timeout=600)


def codegen_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def run_codegen(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m codegen ARGS`` in ``cwd`` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or codegen_env(),
        timeout=timeout,
    )


@dataclass
class Project:
    """A temporary project with a ``pyproject.toml`` and tool sources."""

    root: Path

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def configure(self, body: str = 'sources = ["pkg"]\n') -> None:
        self.write("pyproject.toml", "[tool.mcp-codegen]\n" + textwrap.dedent(body))

    def run(self, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return run_codegen(self.root, *args, **kwargs)  # type: ignore[arg-type]

    def snapshot(self) -> dict[str, bytes]:
        """Every file under generated/, for proving that nothing was touched."""
        out = self.root / "generated"
        if not out.exists():
            return {}
        return {
            p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts
        }


BOOKSHOP_MODULES = ("catalog", "members", "orders", "reports")


def example_tools() -> list[tuple[Callable[..., Any], dict[str, Any]]]:
    """Every ``@tool`` function of the bookshop example with its decorator options, in order."""
    tools = []
    for name in BOOKSHOP_MODULES:
        module = importlib.import_module(f"examples.bookshop.{name}")
        for value in vars(module).values():
            options = getattr(value, "__mcp_codegen_tool__", None)
            if options is not None and value.__module__ == module.__name__:
                tools.append((value, dict(options)))
    return tools


def framework_decorator(options: dict[str, Any], flavor: str) -> dict[str, Any]:
    """The keyword arguments of ``server.tool(...)`` (MCP SDK or FastMCP) that register a tool
    the way its ``@tool`` options describe it."""
    from mcp.types import Icon, ToolAnnotations

    from codegen.generator.scan.files import SHORTHAND_ANNOTATIONS

    arguments: dict[str, Any] = {
        key: options[key] for key in ("name", "title", "description", "meta") if key in options
    }
    annotations = dict(options.get("annotations") or {})
    annotations.update(
        {SHORTHAND_ANNOTATIONS[k]: options[k] for k in SHORTHAND_ANNOTATIONS if k in options}
    )
    if annotations:
        arguments["annotations"] = ToolAnnotations.model_validate(annotations)
    if "icons" in options:
        arguments["icons"] = [Icon.model_validate(icon) for icon in options["icons"]]
    if "output_schema" in options and flavor == "fastmcp":
        arguments["output_schema"] = options["output_schema"]
    return arguments
