"""docs/adopt.md, run: its files are written into a temporary directory, its commands run there,
their output compared with what the page shows, and the client configuration it shows is the
one ``init`` prints and starts a server that lists what the framework itself lists."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.helpers.client_config import framework_tools, listed_tools, mcp_servers
from tests.helpers.project import REPO

PAGE = REPO / "docs" / "adopt.md"
#: The page's placeholders: where it says `mcp-codegen` is installed, and its home directory.
COMMAND = "/home/me/venv/bin/mcp-codegen"
HOME = "/home/me/"
BLOCK = re.compile(r'^```(\w+)(?: title="([^"]+)")?\n(.*?)^```$', re.MULTILINE | re.DOTALL)
PROMPT = re.compile(r"^(\w+)\$ (.*)$")
#: The framework of each project of the page (the oracle of its tools/list).
FLAVORS = {"notes": "mcp", "weather": "fastmcp"}


def blocks() -> list[tuple[str, str, str]]:
    """``(language, title, text)`` of every fenced block of the page, in order."""
    text = PAGE.read_text(encoding="utf-8")
    return [(m[1], m[2] or "", m[3]) for m in BLOCK.finditer(text)]


def _commands() -> list[tuple[str, str, list[str]]]:
    """``(directory, command, expected lines)`` of every console block."""
    found: list[tuple[str, str, list[str]]] = []
    for language, _, text in blocks():
        if language != "console":
            continue
        for line in text.splitlines():
            if prompt := PROMPT.match(line):
                found.append((prompt[1], prompt[2], []))
            elif line.strip() and line.strip() != "...":
                found[-1][2].append(line)
    return found


def _install_is_this_distribution(command: str) -> None:
    """``pip install`` lines are not run (no index here; this environment has the package):
    they must name this distribution and extras it declares."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    match = re.fullmatch(r'pip install "?([\w-]+)(?:\[([\w,]+)\])?"?', command)
    assert match, command
    assert match[1] == project["name"]
    assert set(filter(None, (match[2] or "").split(","))) <= set(project["optional-dependencies"])


def _in_order(expected: list[str], output: str) -> list[str]:
    """The expected lines that are not found, in order, among the output's lines."""
    lines = iter(output.splitlines())
    return [line for line in expected if not any(line == got for got in lines)]


@pytest.mark.slow
@pytest.mark.process
def test_every_command_of_the_page_prints_what_it_shows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    executable = Path(sys.executable).with_name("mcp-codegen")

    def real(text: str) -> str:
        return text.replace(COMMAND, str(executable)).replace(HOME, f"{home}/")

    for language, title, text in blocks():
        if title and language in ("python", "toml"):
            path = home / title
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    printed: dict[str, str] = {}
    commands = _commands()
    assert [c for _, c, _ in commands].count("mcp-codegen init") == 2
    for directory, command, expected in commands:
        if command.startswith("pip install"):
            _install_is_this_distribution(command)
            continue
        assert command.startswith("mcp-codegen "), command
        done = subprocess.run(
            [str(executable), *command.split()[1:]],
            cwd=home / directory,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        missing = _in_order([real(line) for line in expected], done.stdout)
        assert missing == [], f"{command} printed:\n{done.stdout}"
        printed.setdefault(directory, done.stdout)  # init's output, the first in each project
    configs = {title.split()[0]: text for language, title, text in blocks() if language == "json"}
    assert sorted(configs) == sorted(FLAVORS)
    for project, flavor in FLAVORS.items():
        shown = mcp_servers(real(configs[project]))
        assert shown == mcp_servers(printed[project])[: len(shown)]  # as init printed it
        entry = shown[0]
        elsewhere = tmp_path / "client"  # clients start servers from a directory of their own
        elsewhere.mkdir(exist_ok=True)
        listed = listed_tools(entry, elsewhere)
        roots = [Path(p) for p in entry["env"]["PYTHONPATH"].split(":")]
        assert listed == framework_tools(entry["args"][-1], flavor, *roots)
        assert listed  # the page's servers have tools
